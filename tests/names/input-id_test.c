/* SPDX-License-Identifier: MIT */
/*
 * input_id: every classification udev 252 makes (keyboard, mouse,
 * touchpad, joystick, accelerometer, switch, touchscreen, tablet, pad,
 * pointing stick, scroll wheel) and malformed bitmaps, against what the
 * real udevadm test-builtin input_id printed for the same fake devices
 * (tests/fixtures/sysfs/input-devices.*); the bitmap parser on its own.
 */
#include <atf-c.h>
#include <stdio.h>
#include <string.h>

#include "builtin-fixture.h"
#include "names/input-id.h"
#include "sysfs-fixture.h"

#define ROOT "sys"

static int input_id(const struct sysdev_root *root, const char *devpath, bx_set_fn set, void *u)
{
	/* no device node: udev's ioctl for the axes' size finds none either */
	return input_id_props(root, devpath, NULL, set, u);
}

ATF_TC_WITHOUT_HEAD(udev_classifications);
ATF_TC_BODY(udev_classifications, tc)
{
	ATF_CHECK_EQ(bx_compare(tc, "input-devices", ROOT, input_id, NULL), 24);
}

static int count(void *u, const char *key, const char *value)
{
	(void)key;
	(void)value;
	++*(int *)u;
	return 0;
}

ATF_TC_WITHOUT_HEAD(not_input_sets_nothing);
ATF_TC_BODY(not_input_sets_nothing, tc)
{
	struct sysdev_root sys;
	int n = 0;

	(void)tc;
	fx_device(ROOT, "/devices/virtual/tty/tty1", "class/tty", NULL);
	ATF_REQUIRE(sysdev_root_open(&sys, ROOT) == 0);
	ATF_CHECK_EQ(input_id_props(&sys, "/devices/virtual/tty/tty1", NULL, count, &n), 0);
	ATF_CHECK_EQ(n, 0);
	/* a devpath that is not there at all */
	ATF_CHECK_EQ(input_id_props(&sys, "/devices/none/event3", "/dev/null", count, &n), 0);
	ATF_CHECK_EQ(n, 0);
	sysdev_root_close(&sys);
}

ATF_TC_WITHOUT_HEAD(parse_words_least_significant_last);
ATF_TC_BODY(parse_words_least_significant_last, tc)
{
	unsigned long b[3];

	(void)tc;
	input_caps_parse("1f 0 fffffffffffffffe", b, 3);
	ATF_CHECK_EQ(b[0], 0xfffffffffffffffeUL);
	ATF_CHECK_EQ(b[1], 0);
	ATF_CHECK_EQ(b[2], 0x1f);
	input_caps_parse("", b, 3);
	ATF_CHECK(b[0] == 0 && b[1] == 0 && b[2] == 0);
}

ATF_TC_WITHOUT_HEAD(parse_malformed_words_skipped);
ATF_TC_BODY(parse_malformed_words_skipped, tc)
{
	unsigned long b[4];

	(void)tc;
	/* a word that is not hex, one too large, a negative one: zero, but still counted */
	input_caps_parse("5 -1 10000000000000000 zz", b, 4);
	ATF_CHECK(b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 5);
	/* two spaces make an empty word */
	input_caps_parse("3  1", b, 4);
	ATF_CHECK(b[0] == 1 && b[1] == 0 && b[2] == 3);
	/* 0x prefixes and leading blanks are what strtoul takes */
	input_caps_parse("0x2 \t7", b, 4);
	ATF_CHECK(b[0] == 7 && b[1] == 2);
}

ATF_TC_WITHOUT_HEAD(parse_extra_words_ignored);
ATF_TC_BODY(parse_extra_words_ignored, tc)
{
	char text[SYSDEV_ATTR_MAX + 100];
	unsigned long b[2];
	size_t len = 0;

	(void)tc;
	/* more words than fit, and longer than the page udev reads */
	while (len + 3 < sizeof(text)) {
		memcpy(text + len, "ff ", 3);
		len += 3;
	}
	text[len - 1] = '\0';
	input_caps_parse(text, b, 2);
	ATF_CHECK(b[0] != 0 || b[1] != 0);
	input_caps_parse("1 2 3", b, 2);
	ATF_CHECK(b[0] == 3 && b[1] == 2);
}

ATF_TC_WITHOUT_HEAD(classify_keyboard_mouse_switch);
ATF_TC_BODY(classify_keyboard_mouse_switch, tc)
{
	struct input_caps c = { 0 };

	(void)tc;
	c.ev[0] = 1UL << EV_KEY | 1UL << EV_REL | 1UL << EV_SW;
	c.key[0] = 0xfffffffeUL;
	c.key[BTN_LEFT / INPUT_LONG_BITS] |= 1UL << (BTN_LEFT % INPUT_LONG_BITS);
	c.rel[0] = 1UL << REL_X | 1UL << REL_Y;
	ATF_CHECK_EQ(input_id_classify(&c),
		     INPUT_MOUSE | INPUT_KEY | INPUT_KEYBOARD | INPUT_SWITCH);
	/* the same on an I2C bus is a pointing stick */
	c.bustype = BUS_I2C;
	ATF_CHECK(input_id_classify(&c) & INPUT_POINTINGSTICK);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, udev_classifications);
	ATF_TP_ADD_TC(tp, not_input_sets_nothing);
	ATF_TP_ADD_TC(tp, parse_words_least_significant_last);
	ATF_TP_ADD_TC(tp, parse_malformed_words_skipped);
	ATF_TP_ADD_TC(tp, parse_extra_words_ignored);
	ATF_TP_ADD_TC(tp, classify_keyboard_mouse_switch);
	return atf_no_error();
}
