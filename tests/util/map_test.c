/* SPDX-License-Identifier: MIT */
#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/map.h"

ATF_TC_WITHOUT_HEAD(add_get_remove);
ATF_TC_BODY(add_get_remove, tc)
{
	struct map s = MAP_INIT;
	int v1, v2;

	ATF_CHECK_EQ(map_add(&s, "a", &v1), 1);
	ATF_CHECK_EQ(map_add(&s, "a", &v2), 0);
	ATF_CHECK(map_get(&s, "a") == &v1);
	ATF_CHECK_EQ(map_put(&s, "a", &v2), 0);
	ATF_CHECK(map_get(&s, "a") == &v2);
	ATF_CHECK(!map_contains(&s, "b"));
	ATF_CHECK(map_remove(&s, "a", NULL));
	ATF_CHECK(!map_remove(&s, "a", NULL));
	ATF_CHECK_EQ(s.n, 0);
	map_clear(&s, NULL);
}

static bool count(void *u, const char *k, void *v)
{
	(*(int *)u)++;
	return true;
}

ATF_TC_WITHOUT_HEAD(grow_and_tombstones);
ATF_TC_BODY(grow_and_tombstones, tc)
{
	struct map s = MAP_INIT;
	char key[32];
	int n = 0;

	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "/devices/x%d", i);
		ATF_REQUIRE_EQ(map_add(&s, key, NULL), 1);
	}
	/* remove and re-add many times: tombstones must not break lookups */
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 5000; i += 2) {
			snprintf(key, sizeof(key), "/devices/x%d", i);
			ATF_REQUIRE(map_remove(&s, key, NULL));
		}
		for (int i = 0; i < 5000; i += 2) {
			snprintf(key, sizeof(key), "/devices/x%d", i);
			ATF_REQUIRE_EQ(map_add(&s, key, NULL), 1);
		}
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "/devices/x%d", i);
		ATF_REQUIRE(map_contains(&s, key));
	}
	map_foreach(&s, count, &n);
	ATF_CHECK_EQ(n, 5000);
	ATF_CHECK_EQ(s.n, 5000);
	map_clear(&s, NULL);
}

ATF_TC_WITHOUT_HEAD(clear_frees_values);
ATF_TC_BODY(clear_frees_values, tc)
{
	struct map s = MAP_INIT;

	ATF_REQUIRE_EQ(map_add(&s, "k", malloc(10)), 1);
	map_clear(&s, free); /* LeakSanitizer proves the value went */
	ATF_CHECK_EQ(s.n, 0);
	ATF_CHECK(!map_contains(&s, "k"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, add_get_remove);
	ATF_TP_ADD_TC(tp, grow_and_tombstones);
	ATF_TP_ADD_TC(tp, clear_frees_values);
	return atf_no_error();
}
