/* SPDX-License-Identifier: MIT */
/*
 * Strict numbers from outside text: decimal ints in a range (options) and
 * octal modes (rules, DEVMODE): digits only, bounded, nothing else taken.
 */
#include <atf-c.h>

#include <errno.h>
#include <stdint.h>

#include "util/number.h"

ATF_TC_WITHOUT_HEAD(octal);
ATF_TC_BODY(octal, tc)
{
	static const char *const bad[] = { "", " 1", "1 ", "+1", "-0", "0x1", "8", "0o7", "07a" };
	uint64_t v = 42;

	ATF_CHECK_EQ(number_parse_octal("0660", 07777, &v), 0);
	ATF_CHECK_EQ(v, 0660);
	ATF_CHECK_EQ(number_parse_octal("7777", 07777, &v), 0);
	ATF_CHECK_EQ(v, 07777);
	ATF_CHECK_EQ(number_parse_octal("0", 07777, &v), 0);
	ATF_CHECK_EQ(v, 0);
	ATF_CHECK_EQ(number_parse_octal("000000000000000000000000000000001", 1, &v), 0);
	ATF_CHECK_EQ(v, 1);
	ATF_CHECK_EQ(number_parse_octal("10000", 07777, &v), -ERANGE);
	ATF_CHECK_EQ(number_parse_octal("1777777777777777777777", UINT64_MAX, &v), 0);
	ATF_CHECK_EQ(v, UINT64_MAX);
	ATF_CHECK_EQ(number_parse_octal("2000000000000000000000", UINT64_MAX, &v), -ERANGE);
	ATF_CHECK_EQ(number_parse_octal(NULL, 07777, &v), -EINVAL);
	v = 42;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_EQ_MSG(number_parse_octal(bad[i], 07777, &v), -EINVAL, "'%s'", bad[i]);
	ATF_CHECK_EQ(v, 42); /* untouched on failure */
}

ATF_TC_WITHOUT_HEAD(int_range);
ATF_TC_BODY(int_range, tc)
{
	int v = 7;

	ATF_CHECK_EQ(number_parse_int("1", 1, 86400, &v), 0);
	ATF_CHECK_EQ(v, 1);
	ATF_CHECK_EQ(number_parse_int("86400", 1, 86400, &v), 0);
	ATF_CHECK_EQ(v, 86400);
	ATF_CHECK_EQ(number_parse_int("0", 1, 86400, &v), -ERANGE);
	ATF_CHECK_EQ(number_parse_int("86401", 1, 86400, &v), -ERANGE);
	ATF_CHECK_EQ(number_parse_int("99999999999999999999999", 1, 86400, &v), -ERANGE);
	ATF_CHECK_EQ(number_parse_int("-1", 1, 86400, &v), -EINVAL);
	ATF_CHECK_EQ(number_parse_int("5x", 1, 86400, &v), -EINVAL);
	ATF_CHECK_EQ(number_parse_int("", 1, 86400, &v), -EINVAL);
	ATF_CHECK_EQ(v, 86400);
}

ATF_TC_WITHOUT_HEAD(devnum);
ATF_TC_BODY(devnum, tc)
{
	unsigned int maj = 7, min = 7;

	ATF_CHECK_EQ(number_parse_devnum("8:0", &maj, &min), 0);
	ATF_CHECK_EQ(maj, 8);
	ATF_CHECK_EQ(min, 0);
	ATF_CHECK_EQ(number_parse_devnum("4294967295:1048575", &maj, &min), 0);
	ATF_CHECK_EQ(maj, 4294967295u);
	ATF_CHECK(number_parse_devnum("4294967296:0", &maj, &min) < 0);
	ATF_CHECK(number_parse_devnum("8", &maj, &min) < 0);
	ATF_CHECK(number_parse_devnum(":1", &maj, &min) < 0);
	ATF_CHECK(number_parse_devnum("1:", &maj, &min) < 0);
	ATF_CHECK(number_parse_devnum(" 8:1", &maj, &min) < 0);
	ATF_CHECK(number_parse_devnum("8:1:2", &maj, &min) < 0);
	ATF_CHECK(number_parse_devnum("-1:2", &maj, &min) < 0);
	ATF_CHECK_EQ(maj, 4294967295u);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, octal);
	ATF_TP_ADD_TC(tp, int_range);
	ATF_TP_ADD_TC(tp, devnum);
	return atf_no_error();
}
