/* SPDX-License-Identifier: MIT */
/*
 * The hwdb builtin through the rules' builtin table: its options and its
 * walk from the device up its parents, against what the real udevadm
 * test-builtin 'hwdb ...' (udev 252) printed with the same hwdb.bin over
 * the same fake USB tree (tests/fixtures/hwdb/builtin.udev); without a
 * hwdb.bin it fails as udev's does; the option parser on its own.
 */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin-fixture.h"
#include "rules/builtins.h"
#include "rules/hwdb-search.h"
#include "rules/sysfs.h"
#include "sysfs-fixture.h"

#define ROOT "sys"
#define ARGS_MAX 16

/* The device's event as the kernel would send it: DEVPATH, SUBSYSTEM, its uevent file. */
static void event_of(const struct sysdev_root *sys, const char *devpath, struct rules_event *ev)
{
	struct props p = PROPS_INIT;
	const char *env[64];
	static char pairs[64][4096];
	size_t n = 0;

	ATF_REQUIRE(rsys_uevent_props(sys, devpath, &p) >= 0);
	snprintf(pairs[n], sizeof(pairs[n]), "ACTION=add");
	env[n] = pairs[n];
	n++;
	for (size_t i = 0; i < p.n && n < 64; i++, n++) {
		snprintf(pairs[n], sizeof(pairs[n]), "%s=%s", p.v[i].key, p.v[i].value);
		env[n] = pairs[n];
	}
	props_clear(&p);
	ATF_REQUIRE_EQ(rules_event_init(ev, env, n, NULL), 0);
}

/* "hwdb --x 'a b'": words, single quotes grouping (enough for these lines) */
static int split(char *s, char **argv)
{
	int argc = 0;

	while (*s && argc < ARGS_MAX - 1) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (*s == '\'') {
			argv[argc++] = ++s;
			s += strcspn(s, "'");
		} else {
			argv[argc++] = s;
			s += strcspn(s, " ");
		}
		if (*s)
			*s++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

/* The properties the builtin added, in order. */
static void run_line(const struct sysdev_root *sys, const struct hwdb *db, const char *devpath,
		     char *args, char *out, size_t size)
{
	struct rules_builtins b = { .sysfs = ROOT, .sys = sys, .dev = "dev", .hwdb = db };
	struct rules_event ev;
	char *argv[ARGS_MAX];
	int argc = split(args, argv);
	size_t before;

	event_of(sys, devpath, &ev);
	before = ev.props.n;
	out[0] = '\0';
	if (rules_builtins_run(&b, &ev, RB_HWDB, argc, argv) == 0)
		for (size_t i = before; i < ev.props.n; i++)
			snprintf(out + strlen(out), size - strlen(out), "%s=%s\n",
				 ev.props.v[i].key, ev.props.v[i].value);
	rules_event_free(&ev);
}

struct lines {
	const struct sysdev_root *sys;
	const struct hwdb *db;
};

/* head: "DEVPATH<TAB>ARGS" */
static void compare_line(const char *head, const char *exp, void *u)
{
	const struct lines *l = u;
	char h[4096], out[4096], *tab;

	snprintf(h, sizeof(h), "%s", head);
	tab = strchr(h, '\t');
	ATF_REQUIRE(tab);
	*tab = '\0';
	run_line(l->sys, l->db, h, tab + 1, out, sizeof(out));
	ATF_CHECK_MSG(strcmp(out, exp) == 0, "%s:\n%s--- udev\n%s", head, out, exp);
}

ATF_TC_WITHOUT_HEAD(udev_builtin_lines);
ATF_TC_BODY(udev_builtin_lines, tc)
{
	static const char *const paths[] = { HWDB_FIXTURE_DIR "/test-hwdb.bin", NULL };
	struct sysdev_root sys;
	struct hwdb db;
	struct lines l = { &sys, &db };

	fx_build(tc, "usb-devices", ROOT);
	ATF_REQUIRE(sysdev_root_open(&sys, ROOT) == 0);
	ATF_REQUIRE_EQ(hwdb_open(&db, paths, NULL, NULL), 0);
	ATF_CHECK_EQ(bx_blocks(HWDB_FIXTURE_DIR "/builtin.udev", compare_line, &l), 14);
	hwdb_close(&db);
	sysdev_root_close(&sys);
}

ATF_TC_WITHOUT_HEAD(no_hwdb_fails);
ATF_TC_BODY(no_hwdb_fails, tc)
{
	struct sysdev_root sys;
	struct rules_event ev;
	struct rules_builtins b = { .sysfs = ROOT, .dev = "dev" };
	char *argv[] = { (char *)"hwdb", (char *)"exact:match", NULL };

	fx_build(tc, "usb-devices", ROOT);
	ATF_REQUIRE(sysdev_root_open(&sys, ROOT) == 0);
	b.sys = &sys;
	event_of(&sys, "/devices/pci0000:00/0000:00:04.0/usb1", &ev);
	ATF_CHECK_EQ(rules_builtins_run(&b, &ev, RB_HWDB, 2, argv), -EINVAL);
	rules_event_free(&ev);
	sysdev_root_close(&sys);
}

ATF_TC_WITHOUT_HEAD(args_as_getopt_long);
ATF_TC_BODY(args_as_getopt_long, tc)
{
	char *a1[] = {
		(char *)"hwdb",   (char *)"key", (char *)"--filter=F*", (char *)"-s", (char *)"usb",
		(char *)"second", NULL
	};
	char *a2[] = { (char *)"hwdb", (char *)"--lookup", (char *)"p:", (char *)"-fX",
		       (char *)"--",   (char *)"-k",       NULL };
	char *a3[] = { (char *)"hwdb",  (char *)"--bogus", (char *)"-z",
		       (char *)"--sub", (char *)"--",      NULL };
	char *a4[] = { (char *)"hwdb", (char *)"--device=b8:0", (char *)"--filter", NULL };
	struct hwdb_args a;

	(void)tc;
	hwdb_args_parse(6, a1, &a);
	ATF_CHECK_STREQ(a.key, "key");
	ATF_CHECK_STREQ(a.filter, "F*");
	ATF_CHECK_STREQ(a.subsystem, "usb");
	hwdb_args_parse(6, a2, &a);
	ATF_CHECK_STREQ(a.prefix, "p:");
	ATF_CHECK_STREQ(a.filter, "X");
	ATF_CHECK_STREQ(a.key, "-k");
	/* unknown ones skipped; a value may be "--" */
	hwdb_args_parse(5, a3, &a);
	ATF_CHECK(a.key == NULL && a.filter == NULL);
	ATF_CHECK_STREQ(a.subsystem, "--");
	/* a missing value is no option */
	hwdb_args_parse(3, a4, &a);
	ATF_CHECK_STREQ(a.device, "b8:0");
	ATF_CHECK(a.filter == NULL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, udev_builtin_lines);
	ATF_TP_ADD_TC(tp, no_hwdb_fails);
	ATF_TP_ADD_TC(tp, args_as_getopt_long);
	return atf_no_error();
}
