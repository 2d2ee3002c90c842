/* SPDX-License-Identifier: MIT */
/* Reading trace files that are cut short or edited by hand: what is wrong, and where. */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/trace-file.h"

#define HEAD "initdev-trace 1\nstart_monotonic_us 5\ncapacity 8192\ndropped 0\n"
#define TAIL "end 1000\n"

static void expect_ok(const char *text, size_t records)
{
	struct trace_log log;
	struct trace_error err;
	int r = trace_log_parse(&log, text, strlen(text), &err);

	if (r != 0)
		atf_tc_fail("rejected: %s\n%s", err.why, text);
	ATF_CHECK_EQ(log.n, records);
	trace_log_free(&log);
}

/* Rejected, at line (0: the file as a whole), with why containing what. */
static void expect_bad(const char *text, size_t len, uint32_t line, const char *what)
{
	struct trace_log log;
	struct trace_error err;
	int r = trace_log_parse(&log, text, len, &err);

	ATF_CHECK_EQ_MSG(r, -EINVAL, "accepted (%d): %.200s", r, text);
	ATF_CHECK_EQ_MSG(err.line, line, "line %u, expected %u: %s", err.line, line, err.why);
	ATF_CHECK_MSG(strstr(err.why, what), "'%s' does not say '%s'", err.why, what);
	ATF_CHECK(log.e == NULL && log.buf == NULL && log.n == 0);
}

static void bad(const char *text, uint32_t line, const char *what)
{
	expect_bad(text, strlen(text), line, what);
}

ATF_TC_WITHOUT_HEAD(accepts_every_kind_comments_and_blank_lines);
ATF_TC_BODY(accepts_every_kind_comments_and_blank_lines, tc)
{
	expect_ok(HEAD "# edited by hand\n\nphase 0 startup\ntrigger 10 /devices/a\n"
		       "event 20 7 add block /devices/a\nhandled 21 7 worker devnode=3 disk=400\n"
		       "module 30 500 7 loaded virtio_blk\nmodule 40 1 0 error:5 x-y\n"
		       "trigger 50 ...cut/tail\nhandled 60 8 main\nmarks_dropped 0\n" TAIL,
		  7);
	expect_ok(HEAD TAIL, 0);
}

ATF_TC_WITHOUT_HEAD(log_dropped_is_optional_and_once);
ATF_TC_BODY(log_dropped_is_optional_and_once, tc)
{
	static const char text[] = HEAD "log_dropped 42\n" TAIL;
	struct trace_log log;
	struct trace_error err;

	ATF_REQUIRE_EQ(trace_log_parse(&log, text, strlen(text), &err), 0);
	ATF_CHECK_EQ(log.log_dropped, 42);
	trace_log_free(&log);
	bad(HEAD "log_dropped 1\nlog_dropped 2\n" TAIL, 6, "given twice");
	bad(HEAD "log_dropped -1\n" TAIL, 5, "not a number");
	bad(HEAD "log_dropped 1 2\n" TAIL, 5, "");
}

ATF_TC_WITHOUT_HEAD(names_the_error_line_and_offset);
ATF_TC_BODY(names_the_error_line_and_offset, tc)
{
	static const char text[] = HEAD
		"trigger 10 /devices/a\nevent 20 x7 add block /devices/a\n" TAIL;
	struct trace_log log;
	struct trace_error err;
	char want[128];

	ATF_REQUIRE_EQ(trace_log_parse(&log, text, strlen(text), &err), -EINVAL);
	ATF_CHECK_EQ(err.line, 6);
	ATF_CHECK_EQ(err.offset, strlen(HEAD "trigger 10 /devices/a\n"));
	snprintf(want, sizeof(want), "line 6 (byte %zu): seqnum: 'x7' is not a number", err.offset);
	ATF_CHECK_MSG(strstr(err.why, want), "%s", err.why);
}

ATF_TC_WITHOUT_HEAD(cut_short);
ATF_TC_BODY(cut_short, tc)
{
	static const char whole[] = HEAD
		"trigger 10 /devices/a\nevent 20 7 add block /devices/a\n" TAIL;

	bad("", 0, "empty file");
	/* cut inside a line, and cut at a line's end (no 'end' line) */
	expect_bad(whole, strlen(HEAD) + 8, 5, "cut short");
	expect_bad(whole, strlen(whole) - strlen(TAIL), 7, "no 'end' line");
	expect_bad(whole, strlen(whole) - 1, 7, "cut short");
	bad(HEAD TAIL "trigger 1 /x\n", 6, "after the 'end' line");
}

ATF_TC_WITHOUT_HEAD(not_a_trace_or_another_version);
ATF_TC_BODY(not_a_trace_or_another_version, tc)
{
	bad("hello\n", 1, "not an initdev trace");
	bad("initdev-trace 2\n" TAIL, 1, "version '2'");
	bad("initdev-trace 1\nend 5\n", 0, "header line is missing");
	bad(HEAD "capacity 3\n" TAIL, 5, "capacity: given twice");
	bad(HEAD "bogus 1 2\n" TAIL, 5, "unknown record 'bogus'");
}

ATF_TC_WITHOUT_HEAD(bad_bytes_and_blanks);
ATF_TC_BODY(bad_bytes_and_blanks, tc)
{
	static const char nul[] = HEAD "trigger 1 /a\0b\n" TAIL;
	char longline[TRACE_LINE_MAX + 256];

	bad(HEAD "trigger 1 /a\tb\n" TAIL, 5, "byte 0x09 at column 13");
	bad(HEAD "trigger 1 /a\r\n" TAIL, 5, "byte 0x0d");
	bad(HEAD "trigger 1 /a\xff\n" TAIL, 5, "byte 0xff");
	expect_bad(nul, sizeof(nul) - 1, 5, "byte 0x00");
	bad(HEAD "trigger  1 /a\n" TAIL, 5, "empty field");
	bad(HEAD "trigger 1 /a \n" TAIL, 5, "empty field");
	bad(HEAD " trigger 1 /a\n" TAIL, 5, "empty field");
	snprintf(longline, sizeof(longline), "%s%0*d\n%s", HEAD "trigger 1 /", TRACE_LINE_MAX, 0,
		 TAIL);
	bad(longline, 5, "longer than");
}

ATF_TC_WITHOUT_HEAD(bad_fields);
ATF_TC_BODY(bad_fields, tc)
{
	bad(HEAD "trigger 1\n" TAIL, 5, "trigger: 2 fields, expected 3");
	bad(HEAD "trigger 1 devices/a\n" TAIL, 5, "devpath");
	bad(HEAD "trigger 1 /a\\x2\n" TAIL, 5, "devpath");
	bad(HEAD "trigger 1 /a\\q00\n" TAIL, 5, "devpath");
	bad(HEAD "trigger -1 /a\n" TAIL, 5, "time: '-1' is not a number");
	bad(HEAD "trigger 1000000000000001 /a\n" TAIL, 5, "time");
	bad(HEAD "event 1 2 Add block /a\n" TAIL, 5, "action");
	bad(HEAD "event 1 2 addaddadd block /a\n" TAIL, 5, "action");
	bad(HEAD "event 1 18446744073709551616 add block /a\n" TAIL, 5, "seqnum");
	bad(HEAD "handled 1 2 thread devnode=1\n" TAIL, 5, "thread");
	bad(HEAD "handled 1 2 main devnode\n" TAIL, 5, "expected NAME=MICROSECONDS");
	bad(HEAD "handled 1 2 main Devnode=1\n" TAIL, 5, "handler");
	bad(HEAD "handled 1 2 main devnode=1 devnode=2\n" TAIL, 5, "given twice");
	bad(HEAD "handled 1 2 main devnode=4294967296\n" TAIL, 5, "handler time");
	bad(HEAD "handled 1 2 main a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1\n" TAIL, 5,
	    "more than 12 fields");
	bad(HEAD "handled 1 2 main a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1\nhandled 1 3 main i=1\n" TAIL, 6,
	    "more than 8 handler names");
	bad(HEAD "module 1 2 3 fine virtio\n" TAIL, 5, "result");
	bad(HEAD "module 1 2 3 error:0 virtio\n" TAIL, 5, "result");
	bad(HEAD "module 1 2 3 error:4096 virtio\n" TAIL, 5, "result");
	bad(HEAD "module 1 2 3 loaded ../x\n" TAIL, 5, "module");
	bad(HEAD "phase 1 Settled\n" TAIL, 5, "phase");
	bad(HEAD "end 1 2\n", 5, "end: 3 fields");
}

ATF_TC_WITHOUT_HEAD(times_after_the_end);
ATF_TC_BODY(times_after_the_end, tc)
{
	bad(HEAD "trigger 1 /a\ntrigger 1001 /b\n" TAIL, 6, "ends after the trace's end");
	bad(HEAD "module 900 101 1 loaded m\n" TAIL, 5, "900 us + 101 us");
	bad(HEAD "handled 999 1 main a=1 b=1\n" TAIL, 5, "ends after");
	bad(HEAD "phase 1001 settled\n" TAIL, 5, "after the trace's end");
}

ATF_TC_WITHOUT_HEAD(bounded);
ATF_TC_BODY(bounded, tc)
{
	size_t n = TRACE_LOG_ENTRIES_MAX + 1, len = 0;
	char *big = malloc(strlen(HEAD) + n * sizeof("trigger 1 /\n") + 64);
	char phases[4096] = HEAD;

	ATF_REQUIRE(big);
	len += (size_t)sprintf(big, "%s", HEAD);
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(big + len, "trigger 1 /\n");
	len += (size_t)sprintf(big + len, TAIL);
	expect_bad(big, len, 5 + TRACE_LOG_ENTRIES_MAX, "more than 131072 records");
	free(big);
	for (int i = 0; i <= TRACE_MARKS_MAX; i++)
		strcat(phases, "phase 1 settled\n");
	strcat(phases, TAIL);
	bad(phases, 5 + TRACE_MARKS_MAX, "more than 64 phase lines");
	big = calloc(1, (size_t)TRACE_FILE_MAX + 2);
	ATF_REQUIRE(big);
	expect_bad(big, (size_t)TRACE_FILE_MAX + 1, 0, "larger than");
	free(big);
}

ATF_TC_WITHOUT_HEAD(load_reports_missing_file);
ATF_TC_BODY(load_reports_missing_file, tc)
{
	struct trace_log log;
	struct trace_error err;
	FILE *f;

	ATF_CHECK_EQ(trace_log_load(&log, "./none", &err), -ENOENT);
	f = fopen("t", "w");
	ATF_REQUIRE(f);
	fputs(HEAD "trigger 1 /a\n", f);
	fclose(f);
	ATF_CHECK_EQ(trace_log_load(&log, "./t", &err), -EINVAL);
	ATF_CHECK_MSG(strstr(err.why, "no 'end' line"), "%s", err.why);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, accepts_every_kind_comments_and_blank_lines);
	ATF_TP_ADD_TC(tp, names_the_error_line_and_offset);
	ATF_TP_ADD_TC(tp, log_dropped_is_optional_and_once);
	ATF_TP_ADD_TC(tp, cut_short);
	ATF_TP_ADD_TC(tp, not_a_trace_or_another_version);
	ATF_TP_ADD_TC(tp, bad_bytes_and_blanks);
	ATF_TP_ADD_TC(tp, bad_fields);
	ATF_TP_ADD_TC(tp, times_after_the_end);
	ATF_TP_ADD_TC(tp, bounded);
	ATF_TP_ADD_TC(tp, load_reports_missing_file);
	return atf_no_error();
}
