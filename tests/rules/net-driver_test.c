/* SPDX-License-Identifier: MIT */
/*
 * udev 257's net_driver builtin (src/rules/net-driver.c) on real
 * interfaces: the host's lo (no driver information: no property, no
 * failure) and a tun interface made in a private network namespace
 * (driver "tun"), through the rules builtin as the rules call it; names
 * that cannot be interfaces are never queried.
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rules/builtins.h"
#include "rules/net-driver.h"
#include "rules/rules.h"

static void net_event(struct rules_event *ev, const char *name)
{
	char d[128];
	const char *env[] = { "ACTION=add", d, "SUBSYSTEM=net", "INTERFACE=x" };

	snprintf(d, sizeof(d), "DEVPATH=/devices/virtual/net/%s", name);
	ATF_REQUIRE_EQ(rules_event_init(ev, env, sizeof(env) / sizeof(env[0]), NULL), 0);
}

static int run_builtin(struct rules_event *ev)
{
	struct rules_builtins b = { .sysfs = "/sys", .dev = "/dev" };
	char *argv[] = { (char *)"net_driver", NULL };

	return rules_builtins_run(&b, ev, RB_NET_DRIVER, 1, argv);
}

/* tun interface NAME in a new network namespace; the fd keeps it. */
static int make_tun(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int fd;

	if (geteuid() != 0)
		atf_tc_skip("needs root (a network namespace and a tun interface)");
	if (unshare(CLONE_NEWNET) < 0)
		atf_tc_skip("no private network namespace here: %s", strerror(errno));
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		atf_tc_skip("no /dev/net/tun: %s", strerror(errno));
	strcpy(ifr.ifr_name, name);
	ATF_REQUIRE_MSG(ioctl(fd, TUNSETIFF, &ifr) == 0, "TUNSETIFF: %s", strerror(errno));
	return fd;
}

ATF_TC_WITHOUT_HEAD(tun_driver_named);
ATF_TC_BODY(tun_driver_named, tc)
{
	struct rules_event ev;
	char driver[NET_DRIVER_MAX];
	int fd = make_tun("initdevtun0");

	ATF_REQUIRE_EQ(net_driver_get("initdevtun0", driver, sizeof(driver)), 0);
	ATF_CHECK_STREQ(driver, "tun");
	/* a buffer too small for the name is refused, not cut */
	ATF_CHECK_EQ(net_driver_get("initdevtun0", driver, 3), -ENAMETOOLONG);
	net_event(&ev, "initdevtun0");
	ATF_CHECK_EQ(run_builtin(&ev), 0);
	ATF_CHECK_STREQ(props_get(&ev.props, "ID_NET_DRIVER"), "tun");
	rules_event_free(&ev);
	close(fd);
}

ATF_TC_WITHOUT_HEAD(lo_has_no_driver);
ATF_TC_BODY(lo_has_no_driver, tc)
{
	struct rules_event ev;
	char driver[NET_DRIVER_MAX];
	int r = net_driver_get("lo", driver, sizeof(driver));

	/* the loopback has no ethtool driver information: "not supported" */
	ATF_CHECK_MSG(net_driver_not_supported(r), "lo: %d (%s)", r, strerror(-r));
	net_event(&ev, "lo");
	ATF_CHECK_EQ(run_builtin(&ev), 0);
	ATF_CHECK(props_get(&ev.props, "ID_NET_DRIVER") == NULL);
	rules_event_free(&ev);
}

ATF_TC_WITHOUT_HEAD(bad_names_not_queried);
ATF_TC_BODY(bad_names_not_queried, tc)
{
	static const char *const bad[] = { "", "sixteen-chars-xx", "a/b", "a:b", "a b", "lo\n" };
	struct rules_event ev;
	char driver[NET_DRIVER_MAX];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_EQ_MSG(net_driver_get(bad[i], driver, sizeof(driver)), -ENODEV, "'%s'",
				 bad[i]);
	/* udev would ask for "sixteen-chars-x", which may be another interface */
	ATF_CHECK_EQ(net_driver_get("initdev-nosuch0", driver, sizeof(driver)), -ENODEV);
	/* a block device's name: no such interface, the builtin does nothing */
	net_event(&ev, "initdev-nosuch0");
	ATF_CHECK_EQ(run_builtin(&ev), 0);
	ATF_CHECK(props_get(&ev.props, "ID_NET_DRIVER") == NULL);
	rules_event_free(&ev);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, tun_driver_named);
	ATF_TP_ADD_TC(tp, lo_has_no_driver);
	ATF_TP_ADD_TC(tp, bad_names_not_queried);
	return atf_no_error();
}
