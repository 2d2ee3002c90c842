/* SPDX-License-Identifier: MIT */
/*
 * usb_id against what the real udevadm test-builtin usb_id (udev 252)
 * printed for the same fake USB trees (tests/fixtures/sysfs/usb-devices.*):
 * hostile manufacturer/product/serial strings (over-long, control bytes,
 * non-ASCII, invalid UTF-8, '/', '..', '\'), SCSI and ATAPI storage,
 * corrupt and short descriptors, devices the builtin fails on. The
 * descriptor packer and the encoder on their own.
 */
#include <atf-c.h>
#include <string.h>

#include "builtin-fixture.h"
#include "names/usb-id.h"
#include "sysfs-fixture.h"

#define ROOT "sys"
#define KBD "/devices/pci0000:00/0000:00:04.0/usb1/1-2"

static int usb_id(const struct sysdev_root *root, const char *devpath, bx_set_fn set, void *u)
{
	return usb_id_props(root, devpath, false, set, u);
}

/*
 * udev 252 writes its \xNN escape's NUL one byte past its 256-byte
 * ID_VENDOR_ENC buffer for this over-long manufacturer, into the interface
 * list next to it on its stack: it loses ID_USB_INTERFACES. initdev keeps it.
 */
static const struct bx_gap gaps[] = {
	{ KBD, "ID_USB_INTERFACES", ":030101:030000:" },
	{ KBD "/1-2:1.0/0003:0627:0001.0001/input/input30/event30", "ID_USB_INTERFACES",
	  ":030101:030000:" },
	{ NULL, NULL, NULL },
};

ATF_TC_WITHOUT_HEAD(udev_hostile_strings);
ATF_TC_BODY(udev_hostile_strings, tc)
{
	ATF_CHECK_EQ(bx_compare(tc, "usb-devices", ROOT, usb_id, gaps), 14);
}

static int collect(void *u, const char *key, const char *value)
{
	char *out = u;

	if (strncmp(key, "ID_USB_", 7) != 0 && strcmp(key, "ID_BUS") != 0)
		strcat(out, "!"); /* an ID_* one */
	(void)value;
	return 0;
}

ATF_TC_WITHOUT_HEAD(id_bus_set_keeps_id_props);
ATF_TC_BODY(id_bus_set_keeps_id_props, tc)
{
	struct sysdev_root sys;
	char out[256] = "";

	fx_build(tc, "usb-devices", ROOT);
	ATF_REQUIRE(sysdev_root_open(&sys, ROOT) == 0);
	ATF_CHECK_EQ(usb_id_props(&sys, KBD, true, collect, out), 0);
	ATF_CHECK_STREQ(out, "");
	sysdev_root_close(&sys);
}

ATF_TC_WITHOUT_HEAD(pack_interfaces);
ATF_TC_BODY(pack_interfaces, tc)
{
	static const unsigned char dev[18] = { 18, 1 };
	unsigned char d[18 + 9 * 3 + 1];
	char out[USB_IFS_MAX];

	(void)tc;
	memcpy(d, dev, sizeof(dev));
	for (int i = 0; i < 3; i++) {
		unsigned char one[9] = {
			9, 4, (unsigned char)i, 0, 1, 8, 6, (unsigned char)(0x50 + (i == 2)), 0
		};

		memcpy(d + 18 + 9 * i, one, 9);
	}
	d[sizeof(d) - 1] = 0;
	usb_ifs_pack(d, sizeof(d), out);
	ATF_CHECK_STREQ(out, ":080650:080651:"); /* duplicates once */
	/* shorter than a device descriptor: nothing */
	usb_ifs_pack(d, 17, out);
	ATF_CHECK_STREQ(out, "");
	/* a length past the end stops the list, unclosed */
	d[18 + 9] = 200;
	usb_ifs_pack(d, sizeof(d), out);
	ATF_CHECK_STREQ(out, ":080650");
	/* a length under 3 ends it */
	d[18 + 9] = 2;
	usb_ifs_pack(d, sizeof(d), out);
	ATF_CHECK_STREQ(out, ":080650:");
}

ATF_TC_WITHOUT_HEAD(pack_many_interfaces_bounded);
ATF_TC_BODY(pack_many_interfaces_bounded, tc)
{
	static unsigned char d[18 + 9 * 200 + 1];
	char out[USB_IFS_MAX];

	(void)tc;
	d[0] = 18;
	for (int i = 0; i < 200; i++) {
		unsigned char *one = d + 18 + 9 * i;

		one[0] = 9;
		one[1] = 4;
		one[5] = (unsigned char)i;
	}
	usb_ifs_pack(d, sizeof(d), out);
	ATF_CHECK(strlen(out) < USB_IFS_MAX);
	ATF_CHECK_EQ(strlen(out), 7 * 72 + 1);
}

ATF_TC_WITHOUT_HEAD(encode_as_udev);
ATF_TC_BODY(encode_as_udev, tc)
{
	char out[257], in[300];

	(void)tc;
	usb_encode("a b/c\\\xc3\xa9\xff", out, sizeof(out));
	ATF_CHECK_STREQ(out, "a\\x20b\\x2fc\\x5c\xc3\xa9\\xff");
	/* 64 escapes fill all 256 bytes: udev keeps them */
	memset(in, ' ', 64);
	in[64] = '\0';
	usb_encode(in, out, sizeof(out));
	ATF_CHECK_EQ(strlen(out), 256);
	/* 256 plain bytes do not fit with their NUL: one piece less */
	memset(in, 'a', 256);
	in[256] = '\0';
	usb_encode(in, out, sizeof(out));
	ATF_CHECK_EQ(strlen(out), 255);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, udev_hostile_strings);
	ATF_TP_ADD_TC(tp, id_bus_set_keeps_id_props);
	ATF_TP_ADD_TC(tp, pack_interfaces);
	ATF_TP_ADD_TC(tp, pack_many_interfaces_bounded);
	ATF_TP_ADD_TC(tp, encode_as_udev);
	return atf_no_error();
}
