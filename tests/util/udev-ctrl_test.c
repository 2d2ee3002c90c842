/* SPDX-License-Identifier: MIT */
#include <atf-c.h>
#include <stdint.h>
#include <string.h>

#include "util/udev-ctrl.h"

static unsigned char w[UDEV_CTRL_WIRE_SIZE + 8];

/* the wire struct of udev 252's udev-ctrl.c, for layout checks */
struct wire252 {
	char version[16];
	unsigned magic;
	int type;
	union {
		int intval;
		char buf[256];
	} value;
};

ATF_TC_WITHOUT_HEAD(udevadm_messages_parse);
ATF_TC_BODY(udevadm_messages_parse, tc)
{
	struct udev_ctrl_msg m;

	ATF_REQUIRE_EQ(sizeof(struct wire252), UDEV_CTRL_WIRE_SIZE);
	for (int t = 0; t < UDEV_CTRL_TYPE_COUNT; t++) {
		if (t == UDEV_CTRL_SET_ENV)
			continue;
		udev_ctrl_build(w, t, 3, NULL);
		ATF_CHECK_EQ_MSG(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), NULL, "type %d", t);
		ATF_CHECK_EQ((int)m.type, t);
	}
	udev_ctrl_build(w, UDEV_CTRL_SET_LOG_LEVEL, 7, NULL);
	ATF_REQUIRE_EQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), NULL);
	ATF_CHECK_EQ(m.intval, 7);
	udev_ctrl_build(w, UDEV_CTRL_SET_ENV, 0, "rd_NO_LUKS=1");
	ATF_REQUIRE_EQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), NULL);
	ATF_CHECK_STREQ(m.env, "rd_NO_LUKS=1");
	udev_ctrl_build(w, UDEV_CTRL_SET_ENV, 0, "KEY=");
	ATF_REQUIRE_EQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), NULL);
	ATF_CHECK_STREQ(m.env, "KEY=");
	ATF_CHECK_STREQ(udev_ctrl_type_name(UDEV_CTRL_PING), "PING");
	ATF_CHECK_STREQ(udev_ctrl_type_name(99), "?");
}

/* the same layout as udevadm sends it: a struct filled field by field */
ATF_TC_WITHOUT_HEAD(layout_matches_udev);
ATF_TC_BODY(layout_matches_udev, tc)
{
	struct wire252 x = { .version = "udev-252", .magic = 0xdead1dea, .type = 7 };
	struct udev_ctrl_msg m;

	ATF_REQUIRE_EQ(udev_ctrl_parse(&x, sizeof(x), &m), NULL);
	ATF_CHECK_EQ(m.type, UDEV_CTRL_PING);
	udev_ctrl_build(w, UDEV_CTRL_EXIT, 0, NULL);
	x.type = 8;
	ATF_CHECK_EQ(memcmp(w, &x, sizeof(x)), 0);
}

ATF_TC_WITHOUT_HEAD(bad_messages_refused);
ATF_TC_BODY(bad_messages_refused, tc)
{
	struct udev_ctrl_msg m;
	uint32_t v;
	int32_t i;

	udev_ctrl_build(w, UDEV_CTRL_PING, 0, NULL);
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE - 1, &m),
			"not the size of a udev control message");
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE + 1, &m),
			"not the size of a udev control message");
	ATF_CHECK_STREQ(udev_ctrl_parse(w, 0, &m), "not the size of a udev control message");
	v = 0xdead1deb;
	memcpy(w + 16, &v, 4);
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "wrong magic");
	udev_ctrl_build(w, UDEV_CTRL_PING, 0, NULL);
	i = UDEV_CTRL_TYPE_COUNT;
	memcpy(w + 20, &i, 4);
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "unknown message type");
	i = -1;
	memcpy(w + 20, &i, 4);
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "unknown message type");
	udev_ctrl_build(w, UDEV_CTRL_SET_LOG_LEVEL, 8, NULL);
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "log level out of range");
	udev_ctrl_build(w, UDEV_CTRL_SET_LOG_LEVEL, -1, NULL);
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "log level out of range");
	udev_ctrl_build(w, UDEV_CTRL_SET_CHILDREN_MAX, -2, NULL);
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "negative children count");
}

ATF_TC_WITHOUT_HEAD(bad_env_refused);
ATF_TC_BODY(bad_env_refused, tc)
{
	struct udev_ctrl_msg m;

	udev_ctrl_build(w, UDEV_CTRL_SET_ENV, 0, "NOEQUALS");
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "ENV value is not KEY=VALUE");
	udev_ctrl_build(w, UDEV_CTRL_SET_ENV, 0, "=value");
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "ENV value is not KEY=VALUE");
	/* the '=' only after the terminating NUL does not count */
	udev_ctrl_build(w, UDEV_CTRL_SET_ENV, 0, "KEY");
	w[24 + 10] = '=';
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "ENV value is not KEY=VALUE");
	/* 256 bytes without a NUL: nothing past the message is read */
	udev_ctrl_build(w, UDEV_CTRL_SET_ENV, 0, "K=");
	memset(w + 24 + 2, 'v', 254);
	ATF_CHECK_STREQ(udev_ctrl_parse(w, UDEV_CTRL_WIRE_SIZE, &m), "ENV value not terminated");
	ATF_CHECK_STREQ(m.env, "");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, udevadm_messages_parse);
	ATF_TP_ADD_TC(tp, layout_matches_udev);
	ATF_TP_ADD_TC(tp, bad_messages_refused);
	ATF_TP_ADD_TC(tp, bad_env_refused);
	return 0;
}
