/* SPDX-License-Identifier: MIT */
#include <atf-c.h>
#include <string.h>

#include "util/oneline.h"

ATF_TC_WITHOUT_HEAD(plain_values_pass);
ATF_TC_BODY(plain_values_pass, tc)
{
	char why[ONELINE_WHY_MAX];

	ATF_CHECK(oneline_ok("ext4"));
	ATF_CHECK(oneline_ok(""));
	ATF_CHECK(oneline_ok("tab\there, \x1b and \xff are not line ends"));
	ATF_CHECK_STREQ(oneline_why("1.0", why), "");
	ATF_CHECK(oneline_ok_n("abc", 3));
	ATF_CHECK(oneline_ok_n("", 0));
}

/* systemd's database reader ends a line at '\r' too: "\rS:vda" would forge a link */
ATF_TC_WITHOUT_HEAD(both_line_ends_refused);
ATF_TC_BODY(both_line_ends_refused, tc)
{
	char why[ONELINE_WHY_MAX];

	ATF_CHECK(!oneline_ok("\rS:vda"));
	ATF_CHECK(!oneline_ok("x\nE:A=1"));
	ATF_CHECK(!oneline_ok("trailing\r"));
	ATF_CHECK(!oneline_ok(NULL));
	ATF_CHECK_STREQ(oneline_why("\rS:vda", why), "holds a carriage return at byte 0");
	ATF_CHECK_STREQ(oneline_why("ab\ncd\r", why), "holds a newline at byte 2");
	ATF_CHECK_STREQ(oneline_why(NULL, why), "is missing");
}

/* counted bytes: a NUL ends a C reader's string, so it is refused as well */
ATF_TC_WITHOUT_HEAD(counted_bytes_refuse_nul_and_ends);
ATF_TC_BODY(counted_bytes_refuse_nul_and_ends, tc)
{
	ATF_CHECK(!oneline_ok_n("a\0b", 3));
	ATF_CHECK(!oneline_ok_n("a\rb", 3));
	ATF_CHECK(!oneline_ok_n("a\nb", 3));
	ATF_CHECK(oneline_ok_n("a\nb", 1));
}

/* a log line: each line end becomes a space, the rest is kept */
ATF_TC_WITHOUT_HEAD(flatten_keeps_one_line);
ATF_TC_BODY(flatten_keeps_one_line, tc)
{
	char s[] = "a\r\nb\nc", plain[] = "abc";

	ATF_CHECK_EQ(oneline_flatten(s), 3);
	ATF_CHECK_STREQ(s, "a  b c");
	ATF_CHECK_EQ(oneline_flatten(plain), 0);
	ATF_CHECK_STREQ(plain, "abc");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, plain_values_pass);
	ATF_TP_ADD_TC(tp, both_line_ends_refused);
	ATF_TP_ADD_TC(tp, counted_bytes_refuse_nul_and_ends);
	ATF_TP_ADD_TC(tp, flatten_keeps_one_line);
	return atf_no_error();
}
