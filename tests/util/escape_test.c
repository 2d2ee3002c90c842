/* SPDX-License-Identifier: MIT */
#include <atf-c.h>
#include <string.h>

#include "util/escape.h"

ATF_TC_WITHOUT_HEAD(log_plain_and_hostile);
ATF_TC_BODY(log_plain_and_hostile, tc)
{
	char out[64];

	ATF_CHECK_STREQ(escape_log(out, sizeof(out), "sda1", 4), "sda1");
	ATF_CHECK_STREQ(escape_log(out, sizeof(out), "a\nb\"c\\", 6), "a\\x0ab\\x22c\\x5c");
	ATF_CHECK_STREQ(escape_log(out, sizeof(out), "\xff\x1b", 2), "\\xff\\x1b");
	ATF_CHECK_STREQ(escape_log(out, sizeof(out), "a\0b", 3), "a\\x00b");
}

ATF_TC_WITHOUT_HEAD(log_truncates_with_ellipsis);
ATF_TC_BODY(log_truncates_with_ellipsis, tc)
{
	char out[8];

	escape_log(out, sizeof(out), "abcdefghijkl", 12);
	ATF_CHECK_STREQ(out, "abcd...");
	escape_log(out, sizeof(out), "\n\n\n", 3);
	ATF_CHECK(strlen(out) < sizeof(out));
	ATF_CHECK(strchr(out, '\n') == NULL);
}

ATF_TC_WITHOUT_HEAD(json_escapes);
ATF_TC_BODY(json_escapes, tc)
{
	char out[64];

	escape_json(out, sizeof(out), "a\"b\\c\n", 6);
	ATF_CHECK_STREQ(out, "\"a\\\"b\\\\c\\u000a\"");
	/* valid UTF-8 passes, invalid bytes are escaped one by one */
	escape_json(out, sizeof(out), "\xc3\xa9", 2);
	ATF_CHECK_STREQ(out, "\"\xc3\xa9\"");
	escape_json(out, sizeof(out), "\xc3(\xff", 3);
	ATF_CHECK_STREQ(out, "\"\\u00c3(\\u00ff\"");
	/* overlong and surrogate forms are invalid */
	escape_json(out, sizeof(out), "\xc0\xaf\xed\xa0\x80", 5);
	ATF_CHECK_STREQ(out, "\"\\u00c0\\u00af\\u00ed\\u00a0\\u0080\"");
}

ATF_TC_WITHOUT_HEAD(json_reports_needed_length);
ATF_TC_BODY(json_reports_needed_length, tc)
{
	char out[4];

	ATF_CHECK_EQ(escape_json(out, sizeof(out), "abcdef", 6), 8);
	ATF_CHECK_STREQ(out, "\"ab");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, log_plain_and_hostile);
	ATF_TP_ADD_TC(tp, log_truncates_with_ellipsis);
	ATF_TP_ADD_TC(tp, json_escapes);
	ATF_TP_ADD_TC(tp, json_reports_needed_length);
	return atf_no_error();
}
