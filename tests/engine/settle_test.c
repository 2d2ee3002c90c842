/* SPDX-License-Identifier: MIT */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/settle.h"

ATF_TC_WITHOUT_HEAD(expect_reply_forget);
ATF_TC_BODY(expect_reply_forget, tc)
{
	struct settle s;

	settle_init(&s);
	ATF_REQUIRE_EQ(settle_expect(&s, "u1", "/devices/a", true), 0);
	ATF_REQUIRE_EQ(settle_expect(&s, "u2", "/devices/b", false), 0);
	ATF_CHECK_EQ(settle_expect(&s, "u2", "/devices/b", false), -EEXIST);
	ATF_CHECK_EQ(settle_pending_root(&s), 1);
	ATF_CHECK_EQ(settle_pending(&s), 2);
	ATF_CHECK(!settle_replied(&s, "u9"));     /* someone else's trigger */
	ATF_CHECK(!settle_replied(&s, NULL));
	ATF_CHECK(settle_replied(&s, "u1"));
	ATF_CHECK(!settle_replied(&s, "u1"));     /* counted once */
	settle_forget(&s, "u2");
	ATF_CHECK_EQ(settle_pending(&s), 0);
	ATF_CHECK_EQ(s.expected, 2);
	ATF_CHECK_EQ(s.replied, 1);
	ATF_CHECK_EQ(s.forgotten, 1);
	settle_fini(&s);
}

static void collect(void *u, const char *devpath)
{
	strcat(u, devpath);
	strcat(u, ";");
}

ATF_TC_WITHOUT_HEAD(list_pending_bounded);
ATF_TC_BODY(list_pending_bounded, tc)
{
	struct settle s;
	char buf[256] = "", uuid[8];

	settle_init(&s);
	for (int i = 0; i < 5; i++) {
		snprintf(uuid, sizeof(uuid), "u%d", i);
		ATF_REQUIRE_EQ(settle_expect(&s, uuid, "/devices/x", false), 0);
	}
	ATF_CHECK_EQ(settle_list_pending(&s, 2, collect, buf), 5);
	ATF_CHECK_STREQ(buf, "/devices/x;/devices/x;");
	settle_forget_all(&s);
	ATF_CHECK_EQ(settle_pending(&s), 0);
	ATF_CHECK_EQ(s.forgotten, 5);
	settle_fini(&s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ATF_REQUIRE(f);
	fputs(text, f);
	fclose(f);
}

ATF_TC_WITHOUT_HEAD(kernel_seqnum);
ATF_TC_BODY(kernel_seqnum, tc)
{
	uint64_t v = 0;

	ATF_REQUIRE_EQ(mkdir("sys", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("sys/kernel", 0755), 0);
	write_file("sys/kernel/uevent_seqnum", "12345\n");
	ATF_CHECK_EQ(settle_read_kernel_seqnum("sys", &v), 0);
	ATF_CHECK_EQ(v, 12345);
	write_file("sys/kernel/uevent_seqnum", "12x\n");
	ATF_CHECK_EQ(settle_read_kernel_seqnum("sys", &v), -EBADMSG);
	ATF_CHECK_EQ(settle_read_kernel_seqnum("nowhere", &v), -ENOENT);
	/* and the real one */
	ATF_CHECK_EQ(settle_read_kernel_seqnum("/sys", &v), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, expect_reply_forget);
	ATF_TP_ADD_TC(tp, list_pending_bounded);
	ATF_TP_ADD_TC(tp, kernel_seqnum);
	return atf_no_error();
}
