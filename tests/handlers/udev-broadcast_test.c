/* SPDX-License-Identifier: MIT */
/*
 * udev's netlink broadcast (src/handlers/udev-broadcast.c): the frame byte
 * by byte, and received by the system's own receivers, which is what byte
 * compatibility means: libudev's udev_monitor with subsystem and tag
 * filters (its in-kernel socket filter checks the hashes and the bloom
 * filter), and systemd 252's `udevadm monitor --udev --property`. The
 * root cases first move into a private network namespace of their own, so
 * no group-2 message reaches the host's listeners (PID 1, udevd).
 */
#include <atf-c.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_LIBUDEV
#include <libudev.h>
#endif

#include "gate/uevent-socket.h"
#include "handlers/udev-broadcast.h"

struct fx {
	struct props props;
	struct strv links, tags, current;
	struct udev_broadcast_device d;
};

/* a loop disk after udev's rules: the kernel's properties, then the rules' */
static void fx_init(struct fx *f, const char *devpath, const char *devtype, const char *tag)
{
	memset(f, 0, sizeof(*f));
	ATF_REQUIRE(props_set(&f->props, "ACTION", "add", false) == 0);
	ATF_REQUIRE(props_set(&f->props, "DEVPATH", devpath, false) == 0);
	ATF_REQUIRE(props_set(&f->props, "SUBSYSTEM", "block", false) == 0);
	ATF_REQUIRE(props_set(&f->props, "MAJOR", "7", false) == 0);
	ATF_REQUIRE(props_set(&f->props, "MINOR", "0", false) == 0);
	ATF_REQUIRE(props_set(&f->props, "DEVNAME", "/dev/loop0", false) == 0);
	ATF_REQUIRE(props_set(&f->props, "DEVTYPE", devtype, false) == 0);
	ATF_REQUIRE(props_set(&f->props, "SEQNUM", "1234", false) == 0);
	ATF_REQUIRE(props_set(&f->props, "ID_FS_UUID", "abc", true) == 0);
	ATF_REQUIRE(props_set(&f->props, "SYSTEMD_READY", "1", true) == 0);
	ATF_REQUIRE(strv_add(&f->links, "/dev/disk/by-uuid/abc") == 1);
	ATF_REQUIRE(strv_add(&f->links, "/dev/disk/by-label/root") == 1);
	if (tag) {
		ATF_REQUIRE(strv_add(&f->tags, tag) == 1);
		ATF_REQUIRE(strv_add(&f->current, tag) == 1);
	}
	f->d = (struct udev_broadcast_device){ .subsystem = "block", .devtype = devtype,
					       .props = &f->props, .links = &f->links,
					       .tags = &f->tags, .current_tags = &f->current,
					       .usec_initialized = 42 };
}

static void fx_fini(struct fx *f)
{
	props_clear(&f->props);
	strv_clear(&f->links);
	strv_clear(&f->tags);
	strv_clear(&f->current);
}

static uint32_t field(const char *buf, size_t i)
{
	uint32_t v;

	memcpy(&v, buf + 8 + 4 * i, 4);
	return v;
}

/* Values of systemd 252's src/basic/MurmurHash2.c (built from the source package). */
ATF_TC_WITHOUT_HEAD(murmur2_as_systemd);
ATF_TC_BODY(murmur2_as_systemd, tc)
{
	static const struct {
		const char *s;
		uint32_t h;
	} v[] = { { "block", 0xf0031db7 },   { "disk", 0x7bcbc5ee }, { "partition", 0xcb234489 },
		  { "systemd", 0xa75f972a }, { "mem", 0xc365cd83 },  { "net", 0xa74d3cc8 },
		  { "", 0 } };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ATF_CHECK_EQ_MSG(udev_murmur2(v[i].s, strlen(v[i].s), 0), v[i].h, "%s", v[i].s);
}

ATF_TC_WITHOUT_HEAD(frame_as_udevd);
ATF_TC_BODY(frame_as_udevd, tc)
{
	static const char props[] =
		"UDEV_DATABASE_VERSION=1\0ACTION=add\0DEVPATH=/devices/virtual/block/loop0\0"
		"SUBSYSTEM=block\0DEVNAME=/dev/loop0\0DEVTYPE=disk\0SEQNUM=1234\0MAJOR=7\0"
		"MINOR=0\0ID_FS_UUID=abc\0SYSTEMD_READY=1\0USEC_INITIALIZED=42\0"
		"DEVLINKS=/dev/disk/by-uuid/abc /dev/disk/by-label/root\0TAGS=:systemd:\0"
		"CURRENT_TAGS=:systemd:\0";
	char buf[4096];
	struct fx f;
	uint64_t bloom = udev_tag_bloom("systemd");
	ssize_t n;

	fx_init(&f, "/devices/virtual/block/loop0", "disk", "systemd");
	n = udev_broadcast_frame(&f.d, buf, sizeof(buf));
	ATF_REQUIRE_EQ(n, (ssize_t)(40 + sizeof(props) - 1));
	ATF_CHECK(memcmp(buf, "libudev\0", 8) == 0);
	ATF_CHECK(memcmp(buf + 8, "\xfe\xed\xca\xfe", 4) == 0);
	ATF_CHECK_EQ(field(buf, 1), 40u);                         /* header_size, host order */
	ATF_CHECK_EQ(field(buf, 2), 40u);                         /* properties_off */
	ATF_CHECK_EQ(field(buf, 3), (uint32_t)(sizeof(props) - 1)); /* properties_len */
	ATF_CHECK_EQ(field(buf, 4), htonl(0xf0031db7));           /* "block" */
	ATF_CHECK_EQ(field(buf, 5), htonl(0x7bcbc5ee));           /* "disk" */
	ATF_CHECK_EQ(field(buf, 6), htonl((uint32_t)(bloom >> 32)));
	ATF_CHECK_EQ(field(buf, 7), htonl((uint32_t)bloom));
	ATF_CHECK(bloom != 0);
	ATF_CHECK_MSG(memcmp(buf + 40, props, sizeof(props) - 1) == 0, "properties: %.*s",
		      (int)(n - 40), buf + 40);
	fx_fini(&f);
}

/* No devtype, no tags: their header fields stay 0, as udevd leaves them. */
ATF_TC_WITHOUT_HEAD(frame_without_devtype_or_tags);
ATF_TC_BODY(frame_without_devtype_or_tags, tc)
{
	char buf[4096];
	struct fx f;
	ssize_t n;

	fx_init(&f, "/devices/virtual/block/loop0", "disk", NULL);
	f.d.devtype = NULL;
	n = udev_broadcast_frame(&f.d, buf, sizeof(buf));
	ATF_REQUIRE(n > 40);
	ATF_CHECK_EQ(field(buf, 5), 0u);
	ATF_CHECK_EQ(field(buf, 6), 0u);
	ATF_CHECK_EQ(field(buf, 7), 0u);
	ATF_CHECK(!memmem(buf + 40, (size_t)n - 40, "TAGS=", 5));
	fx_fini(&f);
}

/* A value or name with a line end is left out whole: it cannot add a property of its own. */
ATF_TC_WITHOUT_HEAD(line_ends_left_out);
ATF_TC_BODY(line_ends_left_out, tc)
{
	char buf[4096];
	struct fx f;
	ssize_t n;

	fx_init(&f, "/devices/virtual/block/loop0", "disk", "systemd");
	ATF_REQUIRE(props_set(&f.props, "ID_FS_LABEL", "x\nSYSTEMD_READY=0", true) == 0);
	ATF_REQUIRE(props_set(&f.props, "ID_FS_TYPE", "ext4\rDEVNAME=/dev/sda", true) == 0);
	ATF_REQUIRE(strv_add(&f.links, "/dev/disk/by-label/x\ny") == 1);
	ATF_REQUIRE(strv_add(&f.tags, "bad\rtag") == 1);
	ATF_REQUIRE(strv_add(&f.tags, "a:b") == 1);
	n = udev_broadcast_frame(&f.d, buf, sizeof(buf));
	ATF_REQUIRE(n > 40);
	ATF_CHECK(!memmem(buf, (size_t)n, "ID_FS_LABEL", 11));
	ATF_CHECK(!memmem(buf, (size_t)n, "ID_FS_TYPE", 10));
	ATF_CHECK(!memmem(buf, (size_t)n, "\n", 1));
	ATF_CHECK(!memmem(buf, (size_t)n, "\r", 1));
	ATF_CHECK(memmem(buf, (size_t)n, "\0TAGS=:systemd:\0", 16));
	/* the bloom filter holds only the tags sent */
	ATF_CHECK_EQ(field(buf, 7), htonl((uint32_t)udev_tag_bloom("systemd")));
	fx_fini(&f);
}

ATF_TC_WITHOUT_HEAD(bounds_refused);
ATF_TC_BODY(bounds_refused, tc)
{
	char buf[4096];
	struct fx f;

	fx_init(&f, "/devices/virtual/block/loop0", "disk", "systemd");
	ATF_CHECK_EQ(udev_broadcast_frame(&f.d, buf, 100), -EMSGSIZE);
	ATF_CHECK_EQ(udev_broadcast_frame(&f.d, buf, 20), -EMSGSIZE);
	f.d.subsystem = NULL;
	ATF_CHECK_EQ(udev_broadcast_frame(&f.d, buf, sizeof(buf)), -EINVAL);
	fx_fini(&f);
}

/* ---- real receivers, in a network namespace of the test's own ---------- */

static void private_netns(void)
{
	if (unshare(CLONE_NEWNET) < 0)
		atf_tc_skip("unshare(CLONE_NEWNET): %s", strerror(errno));
}

static void send_fx(struct udev_broadcast *b, const char *devpath, const char *devtype,
		    const char *tag)
{
	struct fx f;

	fx_init(&f, devpath, devtype, tag);
	ATF_REQUIRE_EQ(udev_broadcast_send(b, &f.d), 0);
	fx_fini(&f);
}

/* A group-2 listener as libudev opens one (without its filter). */
static int group2_listener(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = UDEV_BROADCAST_GROUP };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	return fd;
}

/*
 * The gate's socket (group 1 only) never gets a group-2 message, and the
 * broadcast socket (no group) hears nothing, while a group-2 listener
 * does: netlink delivers a multicast within sendto, so "not there after
 * the send" is final, no waiting involved.
 */
ATF_TC(gate_never_hears_group2);
ATF_TC_HEAD(gate_never_hears_group2, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(gate_never_hears_group2, tc)
{
	struct uevent_socket_info info;
	static struct uevent_raw raw[8];
	struct udev_broadcast b;
	char buf[8192];
	int gate, l, n;

	private_netns();
	gate = uevent_socket_open(&(struct uevent_socket_options){ 0 }, &info);
	ATF_REQUIRE(gate >= 0);
	l = group2_listener();
	ATF_REQUIRE_EQ(udev_broadcast_open(&b), 0);
	send_fx(&b, "/devices/virtual/block/loop0", "disk", "systemd");
	ATF_REQUIRE_MSG(recv(l, buf, sizeof(buf), MSG_DONTWAIT) > 40, "group 2 got nothing");
	ATF_CHECK(memcmp(buf, "libudev", 8) == 0);
	/* the kernel's own events reach every namespace: only those may be there */
	while ((n = uevent_socket_recv(gate, raw, 8)) > 0)
		for (int i = 0; i < n; i++)
			ATF_CHECK_MSG(memcmp(raw[i].data, "libudev", 7) != 0 && raw[i].sender.nl_pid == 0,
				      "the gate's socket got a group-2 message");
	ATF_CHECK_EQ(recv(b.fd, buf, sizeof(buf), MSG_DONTWAIT), -1);
	ATF_CHECK_EQ(errno, EAGAIN);
	udev_broadcast_close(&b);
	close(l);
	close(gate);
}

ATF_TC(libudev_filters_pass_only_matching);
ATF_TC_HEAD(libudev_filters_pass_only_matching, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(libudev_filters_pass_only_matching, tc)
{
#ifndef HAVE_LIBUDEV
	atf_tc_skip("libudev-dev was missing at configure time (scripts/deps installs it)");
#else
	struct udev *udev;
	struct udev_monitor *mon;
	struct udev_device *dev;
	struct udev_list_entry *e;
	struct udev_broadcast b;
	int tags = 0, links = 0;

	private_netns();
	udev = udev_new();
	ATF_REQUIRE(udev);
	mon = udev_monitor_new_from_netlink(udev, "udev");
	ATF_REQUIRE(mon);
	ATF_REQUIRE_EQ(udev_monitor_filter_add_match_subsystem_devtype(mon, "block", "disk"), 0);
	ATF_REQUIRE_EQ(udev_monitor_filter_add_match_tag(mon, "systemd"), 0);
	ATF_REQUIRE_EQ(udev_monitor_enable_receiving(mon), 0);
	ATF_REQUIRE_EQ(udev_broadcast_open(&b), 0);
	/* each fails one filter; libudev's socket filter drops them in the kernel */
	send_fx(&b, "/devices/virtual/block/loop1", "partition", "systemd");
	send_fx(&b, "/devices/virtual/block/loop2", "disk", "uaccess");
	send_fx(&b, "/devices/virtual/block/loop3", "disk", NULL);
	send_fx(&b, "/devices/virtual/block/loop0", "disk", "systemd");
	dev = udev_monitor_receive_device(mon);
	ATF_REQUIRE_MSG(dev, "libudev received nothing");
	ATF_CHECK_STREQ(udev_device_get_devpath(dev), "/devices/virtual/block/loop0");
	ATF_CHECK_STREQ(udev_device_get_action(dev), "add");
	ATF_CHECK_STREQ(udev_device_get_subsystem(dev), "block");
	ATF_CHECK_STREQ(udev_device_get_devtype(dev), "disk");
	ATF_CHECK_STREQ(udev_device_get_devnode(dev), "/dev/loop0");
	ATF_CHECK_EQ(udev_device_get_devnum(dev), makedev(7, 0));
	ATF_CHECK_EQ(udev_device_get_seqnum(dev), 1234u);
	ATF_CHECK_STREQ(udev_device_get_property_value(dev, "ID_FS_UUID"), "abc");
	ATF_CHECK_EQ(udev_device_get_is_initialized(dev), 1);
	ATF_CHECK_EQ(udev_device_has_tag(dev, "systemd"), 1);
	ATF_CHECK_EQ(udev_device_has_current_tag(dev, "systemd"), 1);
	udev_list_entry_foreach(e, udev_device_get_tags_list_entry(dev))
		tags++;
	udev_list_entry_foreach(e, udev_device_get_devlinks_list_entry(dev))
		links++;
	ATF_CHECK(tags >= 1);
	ATF_CHECK_EQ(links, 2);
	udev_device_unref(dev);
	/* the filtered ones never reached the socket */
	ATF_CHECK(udev_monitor_receive_device(mon) == NULL);
	udev_broadcast_close(&b);
	udev_monitor_unref(mon);
	udev_unref(udev);
#endif
}

/* Lines of fd up to (and including) the line equal to want; false at EOF. */
static bool read_until(FILE *f, const char *want, char *all, size_t size)
{
	char line[512];
	size_t len = strlen(all);

	while (fgets(line, sizeof(line), f)) {
		if (len + strlen(line) < size) {
			strcpy(all + len, line);
			len += strlen(line);
		}
		if (strcmp(line, want) == 0)
			return true;
	}
	return false;
}

/*
 * systemd 252's udevadm monitor, a read-only client, in the same
 * namespace: it prints its banner once its group-2 socket is bound, then
 * each event it receives with its properties, ending with an empty line.
 */
ATF_TC(udevadm_monitor_prints_frame);
ATF_TC_HEAD(udevadm_monitor_prints_frame, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(udevadm_monitor_prints_frame, tc)
{
	static char out[16384];
	struct udev_broadcast b;
	int pipefd[2], status;
	FILE *f;
	pid_t pid;

	if (access("/usr/bin/udevadm", X_OK) < 0 && access("/bin/udevadm", X_OK) < 0)
		atf_tc_skip("systemd's udevadm is not installed");
	private_netns();
	ATF_REQUIRE(pipe(pipefd) == 0);
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failed check ends the test: the monitor too */
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execlp("udevadm", "udevadm", "monitor", "--udev", "--property",
		       "--subsystem-match=block/disk", "--tag-match=systemd", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	ATF_REQUIRE(f);
	ATF_REQUIRE_MSG(read_until(f, "UDEV - the event which udev sends out after rule processing\n",
				   out, sizeof(out)), "udevadm monitor did not start: %s", out);
	ATF_REQUIRE_EQ(udev_broadcast_open(&b), 0);
	send_fx(&b, "/devices/virtual/block/loop2", "disk", "uaccess");
	send_fx(&b, "/devices/virtual/block/loop0", "disk", "systemd");
	out[0] = '\0';
	ATF_REQUIRE(read_until(f, "\n", out, sizeof(out))); /* the banner's empty line */
	ATF_REQUIRE_MSG(read_until(f, "\n", out, sizeof(out)), "no event: %s", out);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	fclose(f);
	udev_broadcast_close(&b);
	printf("%s", out);
	ATF_CHECK(strstr(out, "UDEV  ["));
	ATF_CHECK(strstr(out, "] add      /devices/virtual/block/loop0 (block)\n"));
	ATF_CHECK(!strstr(out, "loop2"));
	ATF_CHECK(strstr(out, "\nACTION=add\nDEVPATH=/devices/virtual/block/loop0\n"
			      "SUBSYSTEM=block\nDEVNAME=/dev/loop0\nDEVTYPE=disk\n"
			      "SEQNUM=1234\nID_FS_UUID=abc\n"
			      "SYSTEMD_READY=1\nUSEC_INITIALIZED=42\nMAJOR=7\nMINOR=0\nDEVLINKS="));
	/* sd-device keeps the links in a set, printed in its hash order (seeded per process) */
	ATF_CHECK(strstr(out, "\nDEVLINKS=/dev/disk/by-uuid/abc /dev/disk/by-label/root\n") ||
		  strstr(out, "\nDEVLINKS=/dev/disk/by-label/root /dev/disk/by-uuid/abc\n"));
	ATF_CHECK(strstr(out, "\nTAGS=:systemd:\nCURRENT_TAGS=:systemd:\n"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, murmur2_as_systemd);
	ATF_TP_ADD_TC(tp, frame_as_udevd);
	ATF_TP_ADD_TC(tp, frame_without_devtype_or_tags);
	ATF_TP_ADD_TC(tp, line_ends_left_out);
	ATF_TP_ADD_TC(tp, bounds_refused);
	ATF_TP_ADD_TC(tp, gate_never_hears_group2);
	ATF_TP_ADD_TC(tp, libudev_filters_pass_only_matching);
	ATF_TP_ADD_TC(tp, udevadm_monitor_prints_frame);
	return 0;
}
