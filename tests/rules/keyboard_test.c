/* SPDX-License-Identifier: MIT */
/*
 * The keyboard builtin on a fake atkbd tree: key names as udev spells
 * them, the force_release list and the pointing stick's sensitivity
 * written to the serio parent, bad properties skipped, the node required
 * only when there is a key to map. (EVIOCSKEYCODE itself needs a real
 * keyboard: the node here is a plain file, the ioctl fails and is logged.)
 */
#include <atf-c.h>
#include <errno.h>
#include <linux/input.h>
#include <string.h>

#include "rules/keyboard.h"
#include "fake-sysfs.h"
#include "sysfs-fixture.h"

#define ROOT "sys"
#define SERIO "/devices/platform/i8042/serio0"
#define EVENT SERIO "/input/input1/event1"

static struct logger quiet = { .fd = -1, .max_level = -1, .echo_fd = -1 };

static void tree(const char *force_release)
{
	fx_device(ROOT, "/devices/platform/i8042", "bus/platform", NULL);
	fx_device(ROOT, SERIO, "bus/serio", NULL);
	fx_text(ROOT, SERIO "/force_release", force_release);
	fx_text(ROOT, SERIO "/sensitivity", "128\n");
	fx_device(ROOT, SERIO "/input/input1", "class/input", NULL);
	fx_device(ROOT, EVENT, "class/input", NULL);
	fx_text(".", "node", "");
}

static int run(const char *const *kv, const char *node)
{
	struct props p = PROPS_INIT;
	struct sysdev_root sys;
	int r;

	for (; kv[0]; kv += 2)
		ATF_REQUIRE_EQ(props_set(&p, kv[0], kv[1], false), 0);
	ATF_REQUIRE_EQ(sysdev_root_open(&sys, ROOT), 0);
	r = keyboard_builtin(&sys, EVENT, node, &p, &quiet);
	sysdev_root_close(&sys);
	props_clear(&p);
	return r;
}

ATF_TC_WITHOUT_HEAD(key_names_as_udev);
ATF_TC_BODY(key_names_as_udev, tc)
{
	(void)tc;
	ATF_CHECK_EQ(keyboard_key_code("leftctrl"), KEY_LEFTCTRL);
	ATF_CHECK_EQ(keyboard_key_code("key_a"), KEY_A);
	ATF_CHECK_EQ(keyboard_key_code("a"), KEY_A);
	ATF_CHECK_EQ(keyboard_key_code("playpause"), KEY_PLAYPAUSE);
	ATF_CHECK_EQ(keyboard_key_code("btn_left"), BTN_LEFT);
	ATF_CHECK_EQ(keyboard_key_code("0x1e"), KEY_A);
	ATF_CHECK_EQ(keyboard_key_code("30"), KEY_A);
	/* not names udev knows: case, spelling, range markers, junk */
	ATF_CHECK_EQ(keyboard_key_code("LEFTCTRL"), -1);
	ATF_CHECK_EQ(keyboard_key_code("left_ctrl"), -1);
	ATF_CHECK_EQ(keyboard_key_code("key_max"), -1);
	ATF_CHECK_EQ(keyboard_key_code("-1"), -1);
	ATF_CHECK_EQ(keyboard_key_code("99999"), -1);
	ATF_CHECK_EQ(keyboard_key_code(""), -1);
}

ATF_TC_WITHOUT_HEAD(force_release_appended);
ATF_TC_BODY(force_release_appended, tc)
{
	static const char *const kv[] = { "KEYBOARD_KEY_a0",
					  "!mute",
					  "KEYBOARD_KEY_a1",
					  "!",
					  "KEYBOARD_KEY_zz",
					  "x",
					  "KEYBOARD_KEY_",
					  "y",
					  "ID_INPUT",
					  "1",
					  NULL };
	char out[128];

	(void)tc;
	tree("369-370\n");
	ATF_CHECK_EQ(run(kv, "node"), 0);
	fs_read_file(ROOT SERIO "/force_release", out, sizeof(out));
	ATF_CHECK_STREQ(out, "369-370,160,161");
}

ATF_TC_WITHOUT_HEAD(force_release_bounded);
ATF_TC_BODY(force_release_bounded, tc)
{
	static const char *const kv[] = { "KEYBOARD_KEY_1", "!", "KEYBOARD_KEY_2", "!", NULL };
	static char big[5000], out[5000];

	(void)tc;
	memset(big, '7', 4093);
	tree(big);
	ATF_CHECK_EQ(run(kv, ""), 0);
	fs_read_file(ROOT SERIO "/force_release", out, sizeof(out));
	ATF_CHECK(strlen(out) <= 4095);
	ATF_CHECK(strncmp(out + 4093, ",1", 2) == 0);
}

ATF_TC_WITHOUT_HEAD(sensitivity_in_range_only);
ATF_TC_BODY(sensitivity_in_range_only, tc)
{
	static const char *const bad[] = { "POINTINGSTICK_SENSITIVITY", "300", NULL };
	static const char *const good[] = { "POINTINGSTICK_SENSITIVITY", "200", NULL };
	char out[16];

	(void)tc;
	tree("");
	ATF_CHECK_EQ(run(bad, ""), 0);
	fs_read_file(ROOT SERIO "/sensitivity", out, sizeof(out));
	ATF_CHECK_STREQ(out, "128\n");
	ATF_CHECK_EQ(run(good, ""), 0);
	fs_read_file(ROOT SERIO "/sensitivity", out, sizeof(out));
	ATF_CHECK(strncmp(out, "200", 3) == 0);
}

ATF_TC_WITHOUT_HEAD(node_needed_to_map);
ATF_TC_BODY(node_needed_to_map, tc)
{
	static const char *const map[] = { "KEYBOARD_KEY_1e", "b", NULL };
	static const char *const none[] = { "ID_INPUT_KEY", "1", NULL };

	(void)tc;
	tree("");
	ATF_CHECK_EQ(run(map, ""), -ENODEV);
	ATF_CHECK_EQ(run(map, "missing-node"), -ENOENT);
	/* a plain file: the ioctl fails, logged; the builtin goes on as udev's */
	ATF_CHECK_EQ(run(map, "node"), 0);
	ATF_CHECK_EQ(run(none, ""), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, key_names_as_udev);
	ATF_TP_ADD_TC(tp, force_release_appended);
	ATF_TP_ADD_TC(tp, force_release_bounded);
	ATF_TP_ADD_TC(tp, sensitivity_in_range_only);
	ATF_TP_ADD_TC(tp, node_needed_to_map);
	return atf_no_error();
}
