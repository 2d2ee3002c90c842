/* SPDX-License-Identifier: MIT */
/*
 * read_full: whole reads across several short reads (a pipe written in
 * pieces), the bound kept, end of file short, errors as -errno.
 */
#include <atf-c.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/readfull.h"

ATF_TC_WITHOUT_HEAD(pieces_joined);
ATF_TC_BODY(pieces_joined, tc)
{
	char buf[16];
	int p[2];

	ATF_REQUIRE_EQ(pipe(p), 0);
	ATF_REQUIRE_EQ(write(p[1], "abc", 3), 3);
	ATF_REQUIRE_EQ(write(p[1], "defg", 4), 4);
	ATF_REQUIRE_EQ(close(p[1]), 0);
	ATF_CHECK_EQ(read_full(p[0], buf, sizeof(buf)), 7);
	ATF_CHECK(memcmp(buf, "abcdefg", 7) == 0);
	ATF_CHECK_EQ(read_full(p[0], buf, sizeof(buf)), 0); /* end of file */
	close(p[0]);
}

ATF_TC_WITHOUT_HEAD(bound_kept);
ATF_TC_BODY(bound_kept, tc)
{
	char buf[8] = "........";
	int p[2];

	ATF_REQUIRE_EQ(pipe(p), 0);
	ATF_REQUIRE_EQ(write(p[1], "0123456789", 10), 10);
	ATF_CHECK_EQ(read_full(p[0], buf, 4), 4);
	ATF_CHECK(memcmp(buf, "0123....", 8) == 0);
	ATF_CHECK_EQ(read_full(p[0], buf, 0), 0);
	close(p[1]);
	ATF_CHECK_EQ(read_full(p[0], buf, sizeof(buf)), 6);
	close(p[0]);
}

ATF_TC_WITHOUT_HEAD(errors);
ATF_TC_BODY(errors, tc)
{
	char buf[4];
	int p[2];

	ATF_CHECK_EQ(read_full(-1, buf, sizeof(buf)), -EBADF);
	ATF_REQUIRE_EQ(pipe(p), 0);
	ATF_CHECK_EQ(read_full(p[1], buf, sizeof(buf)), -EBADF); /* the write end */
	close(p[0]);
	close(p[1]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, pieces_joined);
	ATF_TP_ADD_TC(tp, bound_kept);
	ATF_TP_ADD_TC(tp, errors);
	return atf_no_error();
}
