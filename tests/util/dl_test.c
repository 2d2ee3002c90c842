/* SPDX-License-Identifier: MIT */
/* Libraries loaded on first use: all symbols or none, tried once. */
#include <atf-c.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/dl.h"

struct api {
	size_t (*strlen_)(const char *);
	void *(*missing)(void);
};

static const struct dl_sym good[] = { DL_SYM(struct api, strlen_, "strlen") };
static const struct dl_sym bad[] = {
	DL_SYM(struct api, strlen_, "strlen"),
	DL_SYM(struct api, missing, "initdev_no_such_symbol"),
};

ATF_TC_WITHOUT_HEAD(fills_the_table);
ATF_TC_BODY(fills_the_table, tc)
{
	struct api api = { 0 };
	struct dl_lib lib = DL_LIB("libc.so.6", good, &api);

	ATF_REQUIRE_EQ(dl_load(&lib), 0);
	ATF_REQUIRE(api.strlen_ != NULL);
	ATF_CHECK_EQ(api.strlen_("four"), 4);
	ATF_CHECK_EQ(dl_load(&lib), 0);
}

ATF_TC_WITHOUT_HEAD(missing_symbol_or_library);
ATF_TC_BODY(missing_symbol_or_library, tc)
{
	struct api api = { 0 };
	struct dl_lib lib = DL_LIB("libc.so.6", bad, &api);
	struct dl_lib none = DL_LIB("libinitdev-none.so.9", good, &api);

	ATF_CHECK_EQ(dl_load(&lib), -ENOENT);
	ATF_CHECK_EQ(api.missing, NULL);
	ATF_CHECK_EQ(dl_load(&lib), -ENOENT); /* tried once: the same answer */
	ATF_CHECK_EQ(dl_load(&none), -ENOENT);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, fills_the_table);
	ATF_TP_ADD_TC(tp, missing_symbol_or_library);
	return atf_no_error();
}
