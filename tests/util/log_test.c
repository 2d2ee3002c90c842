/* SPDX-License-Identifier: MIT */
#include <atf-c.h>

#include "util/log.h"

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
	return atf_no_error();
}
