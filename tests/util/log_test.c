/* SPDX-License-Identifier: MIT */
#include <atf-c.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

/* A logger writing to a pipe as if it were /dev/kmsg under its rate limit. */
static void kmsg_logger(struct logger *log, int fds[2])
{
	ATF_REQUIRE(pipe(fds) == 0);
	log_init(log, LOG_TARGET_STDERR, LOG_DEBUG);
	log->fd = fds[1];
	log->limit->on = true;
}

/* The lines in the pipe so far; the last one into last. */
static int lines_in(int fd, char *last, size_t size)
{
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int lines = 0;

	ATF_REQUIRE(n > 0);
	buf[n] = '\0';
	for (char *p = buf, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		lines++;
		snprintf(last, size, "%.*s", (int)(nl - p), p);
	}
	return lines;
}

ATF_TC_WITHOUT_HEAD(kmsg_budget_keeps_room_for_warnings);
ATF_TC_BODY(kmsg_budget_keeps_room_for_warnings, tc)
{
	struct logger log;
	char last[512];
	int fds[2];

	kmsg_logger(&log, fds);
	for (int i = 0; i < 20; i++)
		log_msg(&log, LOG_INFO, "info %d", i);
	for (int i = 0; i < 5; i++)
		log_msg(&log, LOG_WARNING, "warning %d", i);
	/* 7 of the 10 for info, the last 3 for warnings; the rest counted */
	ATF_CHECK_EQ(lines_in(fds[0], last, sizeof(last)), 10);
	ATF_CHECK_MSG(strstr(last, "warning 2"), "last line: %s", last);
	ATF_CHECK_EQ(log_dropped(&log), 13 + 2);
}

ATF_TC_WITHOUT_HEAD(kmsg_next_window_says_how_many);
ATF_TC_BODY(kmsg_next_window_says_how_many, tc)
{
	struct logger log;
	char last[512];
	int fds[2];

	kmsg_logger(&log, fds);
	/* the kernel's is 5 s; 2 s: no stall of a loaded host splits the loop below */
	log.limit->rl.interval_usec = 2000000;
	for (int i = 0; i < 12; i++)
		log_msg(&log, LOG_ERR, "error %d", i);
	ATF_CHECK_EQ(lines_in(fds[0], last, sizeof(last)), 10);
	usleep(2100000);
	log_msg(&log, LOG_INFO, "after");
	ATF_CHECK_EQ(lines_in(fds[0], last, sizeof(last)), 2);
	ATF_CHECK_MSG(strstr(last, "after"), "last line: %s", last);
	ATF_CHECK_EQ(log_dropped(&log), 2);
}

/* what the note in the next window says */
ATF_TC_WITHOUT_HEAD(kmsg_note_counts);
ATF_TC_BODY(kmsg_note_counts, tc)
{
	struct logger log;
	char buf[4096];
	int fds[2];
	ssize_t n;

	kmsg_logger(&log, fds);
	log.limit->rl.interval_usec = 2000000;
	for (int i = 0; i < 25; i++)
		log_msg(&log, LOG_DEBUG, "debug %d", i);
	ATF_REQUIRE(read(fds[0], buf, sizeof(buf)) > 0);
	usleep(2100000);
	log_msg(&log, LOG_DEBUG, "next");
	n = read(fds[0], buf, sizeof(buf) - 1);
	ATF_REQUIRE(n > 0);
	buf[n] = '\0';
	ATF_CHECK_MSG(strncmp(buf, "<4>initdev[", 11) == 0 &&
		      strstr(buf, "]: 18 log lines were not written (/dev/kmsg's rate limit"),
		      "note: %s", buf);
}

/* not on a plain stderr logger, nor when the kernel does not limit */
ATF_TC_WITHOUT_HEAD(kmsg_limit_only_when_ratelimited);
ATF_TC_BODY(kmsg_limit_only_when_ratelimited, tc)
{
	struct logger log;
	char last[512];
	int fds[2];

	ATF_CHECK(log_kmsg_limited("ratelimit\n"));
	ATF_CHECK(log_kmsg_limited(NULL)); /* unreadable: the kernel's default */
	ATF_CHECK(log_kmsg_limited("onx\n"));
	ATF_CHECK(log_kmsg_limited(""));
	ATF_CHECK(!log_kmsg_limited("on\n"));
	ATF_CHECK(!log_kmsg_limited("off"));
	kmsg_logger(&log, fds);
	log.limit->on = false;
	for (int i = 0; i < 30; i++)
		log_msg(&log, LOG_INFO, "info %d", i);
	ATF_CHECK_EQ(lines_in(fds[0], last, sizeof(last)), 30);
	ATF_CHECK_EQ(log_dropped(&log), 0);
}

ATF_TC_WITHOUT_HEAD(ratelimit_burst_then_suppress);
ATF_TC_BODY(ratelimit_burst_then_suppress, tc)
{
	struct ratelimit rl = RATELIMIT_INIT(1000, 3);
	uint64_t dropped;

	for (int i = 0; i < 3; i++)
		ATF_CHECK(ratelimit_allow(&rl, 10 + i, NULL));
	ATF_CHECK(!ratelimit_allow(&rl, 20, NULL));
	ATF_CHECK(!ratelimit_allow(&rl, 30, NULL));
	/* a new interval reports what the last one swallowed */
	ATF_CHECK(ratelimit_allow(&rl, 2000, &dropped));
	ATF_CHECK_EQ(dropped, 2);
	ATF_CHECK(ratelimit_allow(&rl, 2001, &dropped));
	ATF_CHECK_EQ(dropped, 0);
}

ATF_TC_WITHOUT_HEAD(level_names);
ATF_TC_BODY(level_names, tc)
{
	ATF_CHECK_EQ(log_level_from_name("debug"), LOG_DEBUG);
	ATF_CHECK_EQ(log_level_from_name("WARNING"), LOG_WARNING);
	ATF_CHECK_EQ(log_level_from_name("error"), LOG_ERR);
	ATF_CHECK_EQ(log_level_from_name("5"), 5);
	ATF_CHECK_EQ(log_level_from_name("8"), -1);
	ATF_CHECK_EQ(log_level_from_name("loud"), -1);
	ATF_CHECK_EQ(log_level_from_name(""), -1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, ratelimit_burst_then_suppress);
	ATF_TP_ADD_TC(tp, level_names);
	ATF_TP_ADD_TC(tp, kmsg_budget_keeps_room_for_warnings);
	ATF_TP_ADD_TC(tp, kmsg_next_window_says_how_many);
	ATF_TP_ADD_TC(tp, kmsg_note_counts);
	ATF_TP_ADD_TC(tp, kmsg_limit_only_when_ratelimited);
	return atf_no_error();
}
