/* SPDX-License-Identifier: MIT */
/*
 * Coldplug against a fake sysfs of plain files, directories and symlinks
 * built in the test's working directory, plus one read-only scan of /sys.
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/coldplug.h"
#include "fake-sysfs.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

ATF_TC_WITHOUT_HEAD(trigger_writes);
ATF_TC_BODY(trigger_writes, tc)
{
	char uuid[COLDPLUG_UUID_LEN + 1], want[64], got[128];
	struct coldplug_uuids u = { .left = 0 };

	fs_small_machine();
	ATF_REQUIRE_EQ(coldplug_new_uuid(&u, uuid), 0);
	ATF_REQUIRE_EQ(coldplug_trigger("sys", "/devices/virtual/mem/null", "add", uuid), 0);
	snprintf(want, sizeof(want), "add %s", uuid);
	fs_read_file("sys/devices/virtual/mem/null/uevent", got, sizeof(got));
	ATF_CHECK_STREQ(got, want);
	fs_read_file("sys/devices/virtual/mem/zero/uevent", got, sizeof(got));
	ATF_CHECK_STREQ(got, "");

	ATF_REQUIRE_EQ(coldplug_trigger("sys", "/devices/virtual/mem/zero", "change", NULL), 0);
	fs_read_file("sys/devices/virtual/mem/zero/uevent", got, sizeof(got));
	ATF_CHECK_STREQ(got, "change");
}

ATF_TC_WITHOUT_HEAD(trigger_errors);
ATF_TC_BODY(trigger_errors, tc)
{
	char uuid[COLDPLUG_UUID_LEN + 1], got[64];
	const char *null = "/devices/virtual/mem/null";
	struct coldplug_uuids u = { .left = 0 };

	fs_small_machine();
	ATF_REQUIRE_EQ(coldplug_new_uuid(&u, uuid), 0);
	ATF_CHECK_EQ(coldplug_trigger("sys", "/devices/virtual/mem/gone", "add", uuid), -ENOENT);
	ATF_CHECK_EQ(coldplug_trigger("nosys", null, "add", uuid), -ENOENT);
	ATF_CHECK_EQ(coldplug_trigger("sys", "/devices/virtual/nodev", "add", NULL), -ENOENT);
	/* uevent must not be a symlink */
	ATF_CHECK_EQ(coldplug_trigger("sys", "/devices/virtual/ulink", "add", NULL), -ELOOP);
	ATF_CHECK_EQ(coldplug_trigger("sys", "/devices/virtual/udir", "add", NULL), -EISDIR);
	/* nothing but a lowercase word and a well-formed uuid reaches the file */
	ATF_CHECK_EQ(coldplug_trigger("sys", null, "add x=y", NULL), -EINVAL);
	ATF_CHECK_EQ(coldplug_trigger("sys", null, "", NULL), -EINVAL);
	ATF_CHECK_EQ(coldplug_trigger("sys", null, "add\n", NULL), -EINVAL);
	ATF_CHECK_EQ(coldplug_trigger("sys", null, "add", "not-a-uuid"), -EINVAL);
	uuid[35] = 'g';
	ATF_CHECK_EQ(coldplug_trigger("sys", null, "add", uuid), -EINVAL);
	ATF_CHECK_EQ(coldplug_trigger("sys", null, "add",
				      "01234567-89ab-cdef-0123-456789abcdef0"), -EINVAL);
	ATF_CHECK_EQ(coldplug_trigger("sys", "/devices/virtual/../virtual/mem/null", "add", NULL),
		     -EINVAL);
	ATF_CHECK_EQ(coldplug_trigger("sys", "devices/virtual/mem/null", "add", NULL), -EINVAL);
	fs_read_file("sys/devices/virtual/mem/null/uevent", got, sizeof(got));
	ATF_CHECK_STREQ(got, "");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

ATF_TC_WITHOUT_HEAD(uuid_format);
ATF_TC_BODY(uuid_format, tc)
{
	static char uuids[1000][COLDPLUG_UUID_LEN + 1];
	struct coldplug_uuids u = { .left = 0 };
	regex_t re;

	ATF_REQUIRE(regcomp(&re, "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
			    "[0-9a-f]{12}$", REG_EXTENDED | REG_NOSUB) == 0);
	for (size_t i = 0; i < N_ELEMS(uuids); i++) {
		memset(uuids[i], 'X', sizeof(uuids[i]));
		ATF_REQUIRE_EQ(coldplug_new_uuid(&u, uuids[i]), 0);
		ATF_REQUIRE_EQ(strlen(uuids[i]), COLDPLUG_UUID_LEN);
		ATF_CHECK_MSG(regexec(&re, uuids[i], 0, NULL, 0) == 0, "bad uuid %s", uuids[i]);
		ATF_CHECK_EQ(uuids[i][14], '4');
	}
	regfree(&re);
	qsort(uuids, N_ELEMS(uuids), sizeof(uuids[0]), cmp_str);
	for (size_t i = 1; i < N_ELEMS(uuids); i++)
		ATF_CHECK_MSG(strcmp(uuids[i - 1], uuids[i]) != 0, "repeated %s", uuids[i]);
}

/* ---- a coldplug pass ---- */

static void make_devices(int n)
{
	char devpath[64];

	for (int i = 0; i < n; i++) {
		snprintf(devpath, sizeof(devpath), "/devices/virtual/test/t%d", i);
		fs_mkdev(devpath, "class/test");
	}
}

/* Paced by the replies outstanding; every device once; done exactly once. */
ATF_TC_WITHOUT_HEAD(run_paced);
ATF_TC_BODY(run_paced, tc)
{
	struct coldplug_run r;
	struct logger log;
	struct settle s;
	int done = 0;

	make_devices(150);
	log_init(&log, LOG_TARGET_STDERR, LOG_DEBUG);
	settle_init(&s);
	coldplug_run_init(&r, "sys", false, &log);
	ATF_CHECK(!coldplug_run_ready(&r, &s));
	ATF_REQUIRE_EQ(coldplug_run_begin(&r, NULL, 0), 0);
	ATF_CHECK_EQ(coldplug_run_left(&r), 150);
	ATF_CHECK(!coldplug_run_step(&r, &s));
	ATF_CHECK_EQ(settle_pending(&s), 64);
	ATF_CHECK(!coldplug_run_step(&r, &s));
	ATF_CHECK_EQ(settle_pending(&s), 128);
	ATF_CHECK(coldplug_run_ready(&r, &s)); /* at two batches, still */
	done += coldplug_run_step(&r, &s);
	ATF_CHECK_EQ(done, 1);
	ATF_CHECK_EQ(settle_pending(&s), 150);
	ATF_CHECK_EQ(r.triggers, 150);
	ATF_CHECK_EQ(coldplug_run_left(&r), 0);
	ATF_CHECK(!coldplug_run_step(&r, &s)); /* over: nothing more */
	ATF_CHECK_EQ(r.triggers, 150);
	coldplug_run_fini(&r);
	settle_fini(&s);
}

/* Root-path triggers left: all at the start, none once their batch is written. */
ATF_TC_WITHOUT_HEAD(run_root_left);
ATF_TC_BODY(run_root_left, tc)
{
	struct coldplug_run r;
	struct logger log;
	struct settle s;

	make_devices(100);
	/* a virtio-blk controller (class 01: storage) and its disk */
	fs_mkdev(FS_PCI "/0000:00:04.0", "bus/pci");
	fs_write_file("sys" FS_PCI "/0000:00:04.0/modalias",
		      "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00\n");
	fs_mkdev(FS_PCI "/0000:00:04.0/virtio1/block/vda", "class/block");
	log_init(&log, LOG_TARGET_STDERR, LOG_DEBUG);
	settle_init(&s);
	coldplug_run_init(&r, "sys", false, &log);
	r.root_first = true;
	ATF_CHECK_EQ(coldplug_run_root_left(&r), 0); /* not begun */
	ATF_REQUIRE_EQ(coldplug_run_begin(&r, NULL, 0), 0);
	ATF_CHECK_EQ(coldplug_run_root_left(&r), 2);
	ATF_CHECK(!coldplug_run_step(&r, &s));
	ATF_CHECK_EQ(coldplug_run_root_left(&r), 0);
	ATF_CHECK(coldplug_run_left(&r) > 0);
	coldplug_run_fini(&r);
	settle_fini(&s);
}

/* More than two batches without replies: no further triggers until replies come. */
ATF_TC_WITHOUT_HEAD(run_waits_for_replies);
ATF_TC_BODY(run_waits_for_replies, tc)
{
	struct coldplug_run r;
	struct logger log;
	struct settle s;

	make_devices(300);
	log_init(&log, LOG_TARGET_STDERR, LOG_DEBUG);
	settle_init(&s);
	coldplug_run_init(&r, "sys", false, &log);
	ATF_REQUIRE_EQ(coldplug_run_begin(&r, NULL, 0), 0);
	for (int i = 0; i < 5; i++)
		(void)coldplug_run_step(&r, &s);
	ATF_CHECK_EQ(r.triggers, 192);
	ATF_CHECK(!coldplug_run_ready(&r, &s));
	settle_forget_all(&s); /* as if every reply came */
	ATF_CHECK(coldplug_run_ready(&r, &s));
	(void)coldplug_run_step(&r, &s);
	ATF_CHECK_EQ(r.triggers, 256);
	coldplug_run_fini(&r);
	settle_fini(&s);
}

/* After lost events the next pass goes slower; the batch never reaches 0. */
ATF_TC_WITHOUT_HEAD(run_slow_down);
ATF_TC_BODY(run_slow_down, tc)
{
	struct coldplug_run r;
	struct logger log;

	make_devices(3);
	log_init(&log, LOG_TARGET_STDERR, LOG_DEBUG);
	coldplug_run_init(&r, "sys", true, &log);
	ATF_REQUIRE_EQ(coldplug_run_begin(&r, NULL, 0), 0);
	coldplug_run_slow_down(&r);
	ATF_CHECK(!r.active);
	ATF_CHECK(!r.unpaced);
	ATF_CHECK_EQ(r.batch, 32);
	for (int i = 0; i < 10; i++)
		coldplug_run_slow_down(&r);
	ATF_CHECK_EQ(r.batch, 1);
	coldplug_run_fini(&r);
}

/* A trigger that cannot be written is counted (a vanished device is not). */
ATF_TC_WITHOUT_HEAD(run_write_errors);
ATF_TC_BODY(run_write_errors, tc)
{
	struct coldplug_run r;
	struct logger log;
	struct settle s;

	make_devices(3);
	ATF_REQUIRE_EQ(chmod("sys/devices/virtual/test/t1/uevent", 0), 0);
	log_init(&log, LOG_TARGET_STDERR, LOG_DEBUG);
	settle_init(&s);
	coldplug_run_init(&r, "sys", false, &log);
	ATF_REQUIRE_EQ(coldplug_run_begin(&r, NULL, 0), 0);
	ATF_REQUIRE_EQ(system("rm -rf sys/devices/virtual/test/t2"), 0);
	ATF_CHECK(coldplug_run_step(&r, &s));
	if (geteuid() != 0)
		ATF_CHECK_EQ(r.errors, 1); /* root may write a mode-0 file */
	ATF_CHECK_EQ(r.triggers + r.errors, 2);
	ATF_CHECK_EQ(settle_pending(&s), r.triggers);
	coldplug_run_fini(&r);
	settle_fini(&s);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, trigger_writes);
	ATF_TP_ADD_TC(tp, trigger_errors);
	ATF_TP_ADD_TC(tp, uuid_format);
	ATF_TP_ADD_TC(tp, run_paced);
	ATF_TP_ADD_TC(tp, run_root_left);
	ATF_TP_ADD_TC(tp, run_waits_for_replies);
	ATF_TP_ADD_TC(tp, run_slow_down);
	ATF_TP_ADD_TC(tp, run_write_errors);
	return atf_no_error();
}
