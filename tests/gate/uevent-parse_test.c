/* SPDX-License-Identifier: MIT */
/* Tests for the kernel uevent parser: what the kernel sends, and what it never would. */
#include <atf-c.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gate/uevent.h"

#define BLOCK_SDA "/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda"
#define UUID "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

static char msg[UEVENT_MSG_MAX + 64];
static size_t msglen;
static char err[256];
static struct uevent ev;

/* Join strings, each followed by its NUL, into buf; stops at a NULL. */
static size_t join(char *buf, size_t cap, const char *const *parts)
{
	size_t n = 0;

	for (; *parts != NULL; parts++) {
		size_t len = strlen(*parts) + 1;

		ATF_REQUIRE_MSG(n + len <= cap, "test payload too large");
		memcpy(buf + n, *parts, len);
		n += len;
	}
	return n;
}

/* Build msg from the header and a NULL-terminated list, and parse it. */
static enum uevent_parse_result parse(const char *header, ...)
{
	const char *parts[2 * UEVENT_ENV_MAX_VARS] = { header };
	size_t i = 1;
	va_list ap;

	va_start(ap, header);
	while ((parts[i] = va_arg(ap, const char *)) != NULL) {
		i++;
		ATF_REQUIRE(i < sizeof(parts) / sizeof(parts[0]));
	}
	va_end(ap);
	msglen = join(msg, sizeof(msg), parts);
	return uevent_parse(&ev, msg, msglen, err, sizeof(err));
}

#define PARSE(...) parse(__VA_ARGS__, (const char *)NULL)

#define REQUIRE_OK(...)                                                    \
	do {                                                               \
		enum uevent_parse_result r_ = PARSE(__VA_ARGS__);          \
		ATF_REQUIRE_EQ_MSG(r_, UEVENT_PARSE_OK, "err: %s", err);   \
	} while (0)

/* Malformed, with an err that mentions needle. */
#define REQUIRE_BAD(needle, ...)                                           \
	do {                                                               \
		enum uevent_parse_result r_ = PARSE(__VA_ARGS__);          \
		ATF_REQUIRE_EQ_MSG(r_, UEVENT_PARSE_MALFORMED,             \
				   "accepted; wanted error about %s", needle); \
		ATF_REQUIRE_MSG(strstr(err, needle) != NULL,               \
				"err \"%s\" lacks \"%s\"", err, needle);   \
		ATF_REQUIRE_EQ(ev.nenv, 0);                                \
	} while (0)

/* The four keys every event carries, for an add of /devices/x. */
#define BASE "add@/devices/x", "ACTION=add", "DEVPATH=/devices/x", \
	     "SUBSYSTEM=misc", "SEQNUM=1"

/* Every pointer the parser hands out must point into its private copy. */
static void require_inside(const char *p)
{
	if (p != NULL)
		ATF_REQUIRE(p >= ev.buf && p < ev.buf + ev.len);
}

static void require_sane(void)
{
	require_inside(ev.devpath);
	require_inside(ev.subsystem);
	require_inside(ev.devname);
	require_inside(ev.devpath_old);
	require_inside(ev.devtype);
	require_inside(ev.modalias);
	require_inside(ev.driver);
	require_inside(ev.synth_uuid);
	for (size_t i = 0; i < ev.nenv; i++)
		require_inside(ev.env[i]);
	ATF_REQUIRE_STREQ(err, "");
}

/* A plain event for action on /devices/virtual/misc/foo. */
static void check_action(const char *name, enum uevent_action action)
{
	char hdr[64], act[32];

	snprintf(hdr, sizeof(hdr), "%s@/devices/virtual/misc/foo", name);
	snprintf(act, sizeof(act), "ACTION=%s", name);
	REQUIRE_OK(hdr, act, "DEVPATH=/devices/virtual/misc/foo",
		   "SUBSYSTEM=misc", "SEQNUM=4242");
	require_sane();
	ATF_REQUIRE_EQ(ev.action, action);
	ATF_REQUIRE_STREQ(ev.devpath, "/devices/virtual/misc/foo");
	ATF_REQUIRE_STREQ(ev.subsystem, "misc");
	ATF_REQUIRE_EQ(ev.seqnum, 4242);
	ATF_REQUIRE_EQ(ev.nenv, 4);
	ATF_REQUIRE_STREQ(ev.env[0], act);
	ATF_REQUIRE_STREQ(uevent_get(&ev, "ACTION"), name);
	ATF_REQUIRE_EQ(ev.devname, NULL);
	ATF_REQUIRE(!ev.has_devnum && !ev.has_devmode && !ev.has_diskseq);
	ATF_REQUIRE_EQ(ev.len, msglen);
}

ATF_TC_WITHOUT_HEAD(action_add);
ATF_TC_BODY(action_add, tc) { check_action("add", UEVENT_ADD); }
ATF_TC_WITHOUT_HEAD(action_remove);
ATF_TC_BODY(action_remove, tc) { check_action("remove", UEVENT_REMOVE); }
ATF_TC_WITHOUT_HEAD(action_change);
ATF_TC_BODY(action_change, tc) { check_action("change", UEVENT_CHANGE); }
ATF_TC_WITHOUT_HEAD(action_online);
ATF_TC_BODY(action_online, tc) { check_action("online", UEVENT_ONLINE); }
ATF_TC_WITHOUT_HEAD(action_offline);
ATF_TC_BODY(action_offline, tc) { check_action("offline", UEVENT_OFFLINE); }

ATF_TC_WITHOUT_HEAD(action_move);
ATF_TC_BODY(action_move, tc)
{
	REQUIRE_OK("move@/devices/virtual/net/eth1", "ACTION=move",
		   "DEVPATH=/devices/virtual/net/eth1", "SUBSYSTEM=net",
		   "DEVPATH_OLD=/devices/virtual/net/eth0", "INTERFACE=eth1",
		   "IFINDEX=3", "SEQNUM=77");
	require_sane();
	ATF_REQUIRE_EQ(ev.action, UEVENT_MOVE);
	ATF_REQUIRE_STREQ(ev.devpath, "/devices/virtual/net/eth1");
	ATF_REQUIRE_STREQ(ev.devpath_old, "/devices/virtual/net/eth0");
	ATF_REQUIRE_STREQ(ev.subsystem, "net");
	ATF_REQUIRE_EQ(ev.seqnum, 77);
	ATF_REQUIRE_STREQ(uevent_get(&ev, "INTERFACE"), "eth1");
	ATF_REQUIRE_EQ(ev.nenv, 7);
}

ATF_TC_WITHOUT_HEAD(action_bind);
ATF_TC_BODY(action_bind, tc)
{
	REQUIRE_OK("bind@/devices/pci0000:00/0000:00:14.0", "ACTION=bind",
		   "DEVPATH=/devices/pci0000:00/0000:00:14.0", "SUBSYSTEM=pci",
		   "DRIVER=xhci_hcd", "PCI_CLASS=C0330",
		   "MODALIAS=pci:v00008086d0000A36Dsv00001028sd0000085Cbc0Csc03i30",
		   "SEQNUM=2001");
	require_sane();
	ATF_REQUIRE_EQ(ev.action, UEVENT_BIND);
	ATF_REQUIRE_STREQ(ev.driver, "xhci_hcd");
	ATF_REQUIRE_STREQ(ev.modalias,
			  "pci:v00008086d0000A36Dsv00001028sd0000085Cbc0Csc03i30");
	ATF_REQUIRE_STREQ(ev.subsystem, "pci");
	ATF_REQUIRE_EQ(ev.seqnum, 2001);
}

ATF_TC_WITHOUT_HEAD(action_unbind);
ATF_TC_BODY(action_unbind, tc)
{
	REQUIRE_OK("unbind@/devices/pci0000:00/0000:00:14.0", "ACTION=unbind",
		   "DEVPATH=/devices/pci0000:00/0000:00:14.0", "SUBSYSTEM=pci",
		   "DRIVER=xhci_hcd", "SEQNUM=2002");
	require_sane();
	ATF_REQUIRE_EQ(ev.action, UEVENT_UNBIND);
	ATF_REQUIRE_STREQ(ev.driver, "xhci_hcd");
}

ATF_TC_WITHOUT_HEAD(block_add);
ATF_TC_BODY(block_add, tc)
{
	REQUIRE_OK("add@" BLOCK_SDA, "ACTION=add", "DEVPATH=" BLOCK_SDA,
		   "SUBSYSTEM=block", "MAJOR=8", "MINOR=0", "DEVNAME=sda",
		   "DEVTYPE=disk", "DISKSEQ=9", "SEQNUM=3128");
	require_sane();
	ATF_REQUIRE_EQ(ev.action, UEVENT_ADD);
	ATF_REQUIRE_STREQ(ev.devpath, BLOCK_SDA);
	ATF_REQUIRE_STREQ(ev.subsystem, "block");
	ATF_REQUIRE_STREQ(ev.devname, "sda");
	ATF_REQUIRE_STREQ(ev.devtype, "disk");
	ATF_REQUIRE(ev.has_devnum);
	ATF_REQUIRE_EQ(ev.major, 8);
	ATF_REQUIRE_EQ(ev.minor, 0);
	ATF_REQUIRE(ev.has_diskseq);
	ATF_REQUIRE_EQ(ev.diskseq, 9);
	ATF_REQUIRE_EQ(ev.seqnum, 3128);
	ATF_REQUIRE(!ev.has_devmode && !ev.has_devuid && !ev.has_devgid);
	ATF_REQUIRE_EQ(ev.devpath_old, NULL);
	ATF_REQUIRE_EQ(ev.synth_uuid, NULL);
	ATF_REQUIRE_EQ(ev.nenv, 9);
	ATF_REQUIRE_STREQ(ev.env[4], "MINOR=0");
	ATF_REQUIRE_STREQ(ev.env[8], "SEQNUM=3128");
	ATF_REQUIRE_EQ(uevent_get(&ev, "DEVNAME"), ev.devname);
	ATF_REQUIRE_STREQ(uevent_get(&ev, "DISKSEQ"), "9");
}

ATF_TC_WITHOUT_HEAD(partition_add);
ATF_TC_BODY(partition_add, tc)
{
	REQUIRE_OK("add@" BLOCK_SDA "/sda1", "ACTION=add",
		   "DEVPATH=" BLOCK_SDA "/sda1", "SUBSYSTEM=block", "MAJOR=8",
		   "MINOR=1", "DEVNAME=sda1", "DEVTYPE=partition", "DISKSEQ=9",
		   "PARTN=1", "PARTNAME=EFI System", "SEQNUM=3129");
	require_sane();
	ATF_REQUIRE_EQ(ev.minor, 1);
	ATF_REQUIRE_STREQ(uevent_get(&ev, "PARTNAME"), "EFI System");
	ATF_REQUIRE_STREQ(uevent_get(&ev, "PARTN"), "1");
}

ATF_TC_WITHOUT_HEAD(synthetic_change);
ATF_TC_BODY(synthetic_change, tc)
{
	REQUIRE_OK("change@" BLOCK_SDA, "ACTION=change", "DEVPATH=" BLOCK_SDA,
		   "SUBSYSTEM=block", "SYNTH_UUID=" UUID, "SYNTH_ARG_WHO=initdev",
		   "MAJOR=8", "MINOR=0", "DEVNAME=sda", "DEVTYPE=disk", "SEQNUM=5000");
	require_sane();
	ATF_REQUIRE_EQ(ev.action, UEVENT_CHANGE);
	ATF_REQUIRE_STREQ(ev.synth_uuid, UUID);
	ATF_REQUIRE_STREQ(uevent_get(&ev, "SYNTH_ARG_WHO"), "initdev");

	REQUIRE_OK(BASE, "SYNTH_UUID=0");
	ATF_REQUIRE_STREQ(ev.synth_uuid, "0");
	REQUIRE_OK(BASE, "SYNTH_UUID=3F2504E0-4F89-11D3-9A0C-0305E82C3301");
	REQUIRE_BAD("SYNTH_UUID", BASE, "SYNTH_UUID=1");
	REQUIRE_BAD("SYNTH_UUID", BASE, "SYNTH_UUID=" UUID "0");
	REQUIRE_BAD("SYNTH_UUID", BASE, "SYNTH_UUID=3f2504e0-4f89-11d3-9a0c-0305e82c330");
	REQUIRE_BAD("SYNTH_UUID", BASE, "SYNTH_UUID=3f2504e0_4f89-11d3-9a0c-0305e82c3301");
	REQUIRE_BAD("SYNTH_UUID", BASE, "SYNTH_UUID=3f2504e0-4f89-11d3-9a0c-0305e82c330g");
}

ATF_TC_WITHOUT_HEAD(devnode_owner_mode);
ATF_TC_BODY(devnode_owner_mode, tc)
{
	REQUIRE_OK("add@/devices/pci0000:00/0000:00:14.0/usb1/1-1", "ACTION=add",
		   "DEVPATH=/devices/pci0000:00/0000:00:14.0/usb1/1-1",
		   "SUBSYSTEM=usb", "MAJOR=189", "MINOR=1",
		   "DEVNAME=bus/usb/001/002", "DEVTYPE=usb_device",
		   "DEVMODE=0664", "DEVUID=0", "DEVGID=4294967294", "SEQNUM=1");
	require_sane();
	ATF_REQUIRE_STREQ(ev.devname, "bus/usb/001/002");
	ATF_REQUIRE(ev.has_devmode && ev.has_devuid && ev.has_devgid);
	ATF_REQUIRE_EQ(ev.devmode, 0664);
	ATF_REQUIRE_EQ(ev.devuid, 0);
	ATF_REQUIRE_EQ(ev.devgid, 4294967294u);
	ATF_REQUIRE_EQ(ev.major, 189);

	REQUIRE_OK(BASE, "DEVMODE=07777");
	ATF_REQUIRE_EQ(ev.devmode, 07777);
	REQUIRE_OK(BASE, "DEVMODE=0");
	REQUIRE_BAD("DEVMODE", BASE, "DEVMODE=0689");
	REQUIRE_BAD("DEVMODE", BASE, "DEVMODE=010000");
	REQUIRE_BAD("DEVMODE", BASE, "DEVMODE=");
	REQUIRE_BAD("DEVMODE", BASE, "DEVMODE=-600");
	REQUIRE_BAD("DEVUID", BASE, "DEVUID=4294967295");
	REQUIRE_BAD("DEVGID", BASE, "DEVGID=4294967295");
	REQUIRE_BAD("DEVUID", BASE, "DEVUID= 0");
}

ATF_TC_WITHOUT_HEAD(number_limits);
ATF_TC_BODY(number_limits, tc)
{
	REQUIRE_OK(BASE, "MAJOR=4095", "MINOR=1048575", "DISKSEQ=18446744073709551615");
	ATF_REQUIRE_EQ(ev.major, 4095);
	ATF_REQUIRE_EQ(ev.minor, 1048575);
	ATF_REQUIRE_EQ(ev.diskseq, UINT64_MAX);
	REQUIRE_OK("add@/devices/x", "ACTION=add", "DEVPATH=/devices/x",
		   "SUBSYSTEM=misc", "SEQNUM=18446744073709551615");
	ATF_REQUIRE_EQ(ev.seqnum, UINT64_MAX);
	REQUIRE_OK("add@/devices/x", "ACTION=add", "DEVPATH=/devices/x",
		   "SUBSYSTEM=misc", "SEQNUM=0");
	ATF_REQUIRE_EQ(ev.seqnum, 0);

	REQUIRE_BAD("MAJOR", BASE, "MAJOR=8a", "MINOR=0");
	REQUIRE_BAD("MAJOR", BASE, "MAJOR=08", "MINOR=0");
	REQUIRE_BAD("MAJOR", BASE, "MAJOR=-1", "MINOR=0");
	REQUIRE_BAD("MAJOR", BASE, "MAJOR=+8", "MINOR=0");
	REQUIRE_BAD("MAJOR", BASE, "MAJOR=", "MINOR=0");
	REQUIRE_BAD("MAJOR", BASE, "MAJOR=4096", "MINOR=0");
	REQUIRE_BAD("MINOR", BASE, "MAJOR=8", "MINOR=1048576");
	REQUIRE_BAD("MINOR", BASE, "MAJOR=8", "MINOR=99999999999999999999999");
	REQUIRE_BAD("DISKSEQ", BASE, "DISKSEQ=18446744073709551616");
	REQUIRE_BAD("SEQNUM", "add@/devices/x", "ACTION=add", "DEVPATH=/devices/x",
		    "SUBSYSTEM=misc", "SEQNUM=18446744073709551616");
	REQUIRE_BAD("SEQNUM", "add@/devices/x", "ACTION=add", "DEVPATH=/devices/x",
		    "SUBSYSTEM=misc", "SEQNUM=00");
}

ATF_TC_WITHOUT_HEAD(devnum_pairing);
ATF_TC_BODY(devnum_pairing, tc)
{
	REQUIRE_BAD("MAJOR without MINOR", BASE, "MAJOR=8");
	REQUIRE_BAD("MINOR without MAJOR", BASE, "MINOR=0");
	REQUIRE_BAD("without MAJOR/MINOR", BASE, "DEVNAME=sda");
	/* a number without a name is not a node, but is not wrong either */
	REQUIRE_OK(BASE, "MAJOR=8", "MINOR=0");
	ATF_REQUIRE(ev.has_devnum);
	ATF_REQUIRE_EQ(ev.devname, NULL);
}

ATF_TC_WITHOUT_HEAD(bad_devname);
ATF_TC_BODY(bad_devname, tc)
{
	REQUIRE_BAD("DEVNAME \"../x\" (offset ", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=../x");
	REQUIRE_BAD("'..' component would leave /dev", BASE, "MAJOR=1", "MINOR=1",
		    "DEVNAME=../x");
	REQUIRE_BAD("relative to /dev", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=/abs");
	REQUIRE_BAD("'..'", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=a/../../b");
	REQUIRE_BAD("'//'", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=a//b");
	REQUIRE_BAD("trailing '/'", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=a/");
	REQUIRE_BAD("'.'", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=./a");
	REQUIRE_BAD("'.'", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=.");
	REQUIRE_BAD("'..'", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=..");
	REQUIRE_BAD("empty", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=");
	REQUIRE_BAD("0x7f", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=a\x7f");
	REQUIRE_BAD("0x1b", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=a\x1b[2J");
	/* names that merely look like dots are fine */
	REQUIRE_OK(BASE, "MAJOR=1", "MINOR=1", "DEVNAME=...");
	REQUIRE_OK(BASE, "MAJOR=1", "MINOR=1", "DEVNAME=.a/b..");
}

ATF_TC_WITHOUT_HEAD(devname_length);
ATF_TC_BODY(devname_length, tc)
{
	char name[8 + UEVENT_DEVNAME_MAX + 2];

	memcpy(name, "DEVNAME=", 8);
	memset(name + 8, 'a', UEVENT_DEVNAME_MAX);
	name[8 + UEVENT_DEVNAME_MAX] = '\0';
	REQUIRE_OK(BASE, "MAJOR=1", "MINOR=1", name);
	ATF_REQUIRE_EQ(strlen(ev.devname), UEVENT_DEVNAME_MAX);
	strcat(name, "a");
	REQUIRE_BAD("longer than 255", BASE, "MAJOR=1", "MINOR=1", name);
}

ATF_TC_WITHOUT_HEAD(devname_escaped_in_err);
ATF_TC_BODY(devname_escaped_in_err, tc)
{
	REQUIRE_BAD("DEVNAME", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=a\nb\"c");
	ATF_REQUIRE(strchr(err, '\n') == NULL);
	ATF_REQUIRE(strstr(err, "a\\x0ab\\x22c") != NULL);
	for (const char *p = err; *p != '\0'; p++)
		ATF_REQUIRE(*p >= 0x20 && *p < 0x7f);
}

ATF_TC_WITHOUT_HEAD(bad_devpath);
ATF_TC_BODY(bad_devpath, tc)
{
	REQUIRE_BAD("start with '/'", "add@devices/x", "ACTION=add",
		    "DEVPATH=devices/x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("'..' component would leave /sys", "add@/devices/../x",
		    "ACTION=add", "DEVPATH=/devices/../x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("'.'", "add@/devices/./x", "ACTION=add",
		    "DEVPATH=/devices/./x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("'//'", "add@/devices//x", "ACTION=add",
		    "DEVPATH=/devices//x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("'//'", "add@//devices", "ACTION=add",
		    "DEVPATH=//devices", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("trailing '/'", "add@/devices/x/", "ACTION=add",
		    "DEVPATH=/devices/x/", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("DEVPATH", "add@/", "ACTION=add", "DEVPATH=/",
		    "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("0x09", "add@/devices/\tx", "ACTION=add",
		    "DEVPATH=/devices/\tx", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("DEVPATH_OLD", "move@/devices/x", "ACTION=move",
		    "DEVPATH=/devices/x", "DEVPATH_OLD=/devices/../y",
		    "SUBSYSTEM=misc", "SEQNUM=1");
	/* '@' may appear in device names (e.g. "soc@0"); the first one splits */
	REQUIRE_OK("add@/devices/platform/soc@0", "ACTION=add",
		   "DEVPATH=/devices/platform/soc@0", "SUBSYSTEM=platform", "SEQNUM=1");
	ATF_REQUIRE_STREQ(ev.devpath, "/devices/platform/soc@0");
}

ATF_TC_WITHOUT_HEAD(bad_subsystem);
ATF_TC_BODY(bad_subsystem, tc)
{
	REQUIRE_BAD("SUBSYSTEM", "add@/devices/x", "ACTION=add",
		    "DEVPATH=/devices/x", "SUBSYSTEM=", "SEQNUM=1");
	REQUIRE_BAD("SUBSYSTEM", "add@/devices/x", "ACTION=add",
		    "DEVPATH=/devices/x", "SUBSYSTEM=../block", "SEQNUM=1");
	REQUIRE_BAD("SUBSYSTEM", "add@/devices/x", "ACTION=add",
		    "DEVPATH=/devices/x", "SUBSYSTEM=..", "SEQNUM=1");
}

ATF_TC_WITHOUT_HEAD(bad_header);
ATF_TC_BODY(bad_header, tc)
{
	REQUIRE_BAD("no '@'", "add/devices/x", "ACTION=add",
		    "DEVPATH=/devices/x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("does not match ACTION", "remove@/devices/x", "ACTION=add",
		    "DEVPATH=/devices/x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("does not match DEVPATH", "add@/devices/y", "ACTION=add",
		    "DEVPATH=/devices/x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("not one of the kernel's actions", "frob@/devices/x",
		    "ACTION=frob", "DEVPATH=/devices/x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("ACTION \"frob\"", "add@/devices/x", "ACTION=frob",
		    "DEVPATH=/devices/x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("not one of", "ADD@/devices/x", "ACTION=add",
		    "DEVPATH=/devices/x", "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("no '@'", "", "ACTION=add");
}

ATF_TC_WITHOUT_HEAD(missing_keys);
ATF_TC_BODY(missing_keys, tc)
{
	REQUIRE_BAD("missing SEQNUM", "add@/devices/x", "ACTION=add",
		    "DEVPATH=/devices/x", "SUBSYSTEM=misc");
	REQUIRE_BAD("missing SUBSYSTEM", "add@/devices/x", "ACTION=add",
		    "DEVPATH=/devices/x", "SEQNUM=1");
	REQUIRE_BAD("missing DEVPATH", "add@/devices/x", "ACTION=add",
		    "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("missing ACTION", "add@/devices/x", "DEVPATH=/devices/x",
		    "SUBSYSTEM=misc", "SEQNUM=1");
	REQUIRE_BAD("missing ACTION", "add@/devices/x");
}

/* Fill env so that the variables after the header total exactly bytes. */
static void parse_env_of_size(size_t bytes, enum uevent_parse_result want)
{
	static const char *head[] = { "add@/devices/x", "ACTION=add",
		"DEVPATH=/devices/x", "SUBSYSTEM=misc", "SEQNUM=1", NULL };
	size_t hlen = strlen(head[0]) + 1;
	size_t n = join(msg, sizeof(msg), head);
	size_t fill = bytes - (n - hlen) - 1; /* "F=...\0" */

	memcpy(msg + n, "F=", 2);
	memset(msg + n + 2, 'v', fill - 2);
	msg[n + fill] = '\0';
	msglen = n + fill + 1;
	ATF_REQUIRE_EQ(msglen - hlen, bytes);
	ATF_REQUIRE_EQ(uevent_parse(&ev, msg, msglen, err, sizeof(err)), want);
}

ATF_TC_WITHOUT_HEAD(env_size_limit);
ATF_TC_BODY(env_size_limit, tc)
{
	parse_env_of_size(UEVENT_ENV_MAX_BYTES, UEVENT_PARSE_OK);
	ATF_REQUIRE_EQ(ev.nenv, 5);
	parse_env_of_size(UEVENT_ENV_MAX_BYTES + 1, UEVENT_PARSE_MALFORMED);
	ATF_REQUIRE(strstr(err, "2049 bytes") != NULL);
}

ATF_TC_WITHOUT_HEAD(msg_size_limit);
ATF_TC_BODY(msg_size_limit, tc)
{
	static char big[UEVENT_MSG_MAX + 1];

	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	ATF_REQUIRE_EQ(uevent_parse(&ev, big, sizeof(big), err, sizeof(err)),
		       UEVENT_PARSE_MALFORMED);
	ATF_REQUIRE(strstr(err, "8193") != NULL);
	ATF_REQUIRE_EQ(uevent_parse(&ev, big, 0, err, sizeof(err)),
		       UEVENT_PARSE_MALFORMED);
	ATF_REQUIRE(strstr(err, "empty") != NULL);
}

/* BASE plus extra "Xnn=1" variables, nvars in all. */
static void parse_nvars(size_t nvars, enum uevent_parse_result want)
{
	const char *parts[UEVENT_ENV_MAX_VARS + 8] = { BASE };
	char extra[UEVENT_ENV_MAX_VARS + 4][8];

	ATF_REQUIRE(nvars >= 4 && nvars - 4 < sizeof(extra) / sizeof(extra[0]));
	for (size_t i = 0; i < nvars - 4; i++) {
		snprintf(extra[i], sizeof(extra[i]), "X%zu=1", i);
		parts[5 + i] = extra[i];
	}
	parts[nvars + 1] = NULL;
	msglen = join(msg, sizeof(msg), parts);
	ATF_REQUIRE_EQ(uevent_parse(&ev, msg, msglen, err, sizeof(err)), want);
}

ATF_TC_WITHOUT_HEAD(var_count_limit);
ATF_TC_BODY(var_count_limit, tc)
{
	parse_nvars(UEVENT_ENV_MAX_VARS, UEVENT_PARSE_OK);
	ATF_REQUIRE_EQ(ev.nenv, UEVENT_ENV_MAX_VARS);
	ATF_REQUIRE_STREQ(ev.env[63], "X59=1");
	ATF_REQUIRE_STREQ(uevent_get(&ev, "X59"), "1");
	parse_nvars(UEVENT_ENV_MAX_VARS + 1, UEVENT_PARSE_MALFORMED);
	ATF_REQUIRE(strstr(err, "more than 64 variables") != NULL);
}

ATF_TC_WITHOUT_HEAD(unterminated);
ATF_TC_BODY(unterminated, tc)
{
	PARSE(BASE);
	ATF_REQUIRE_EQ(uevent_parse(&ev, msg, msglen - 1, err, sizeof(err)),
		       UEVENT_PARSE_MALFORMED);
	ATF_REQUIRE(strstr(err, "unterminated") != NULL);
	ATF_REQUIRE_EQ(uevent_parse(&ev, "add@/x", 6, err, sizeof(err)),
		       UEVENT_PARSE_MALFORMED);
}

ATF_TC_WITHOUT_HEAD(empty_and_keyless_vars);
ATF_TC_BODY(empty_and_keyless_vars, tc)
{
	REQUIRE_BAD("two NULs", BASE, "", "A=1");
	REQUIRE_BAD("two NULs", BASE, "");
	REQUIRE_BAD("no '='", BASE, "JUSTAKEY");
	REQUIRE_BAD("want 1 to 64", BASE, "=value");
	/* an empty value is fine: the kernel sends e.g. "PARTNAME=" */
	REQUIRE_OK(BASE, "PARTNAME=");
	ATF_REQUIRE_STREQ(uevent_get(&ev, "PARTNAME"), "");
}

ATF_TC_WITHOUT_HEAD(bad_keys);
ATF_TC_BODY(bad_keys, tc)
{
	char key[UEVENT_KEY_MAX + 8];

	REQUIRE_BAD("BAD-KEY", BASE, "BAD-KEY=1");
	REQUIRE_BAD("[A-Za-z0-9_]", BASE, "BAD KEY=1");
	REQUIRE_BAD("0x0a", BASE, "BAD\nKEY=1");
	REQUIRE_BAD("\\xc3\\xa9", BASE, "caf\xc3\xa9=1");
	REQUIRE_OK(BASE, "lower_Case_09=1");

	memset(key, 'K', UEVENT_KEY_MAX);
	strcpy(key + UEVENT_KEY_MAX, "=1");
	REQUIRE_OK(BASE, key);
	memset(key, 'K', UEVENT_KEY_MAX + 1);
	strcpy(key + UEVENT_KEY_MAX + 1, "=1");
	REQUIRE_BAD("65 bytes", BASE, key);
}

ATF_TC_WITHOUT_HEAD(duplicate_keys);
ATF_TC_BODY(duplicate_keys, tc)
{
	REQUIRE_BAD("duplicate key \"ACTION\"", BASE, "ACTION=add");
	REQUIRE_BAD("duplicate key \"FOO\"", BASE, "FOO=1", "FOO=1");
	REQUIRE_BAD("duplicate key \"DEVNAME\"", BASE, "MAJOR=1", "MINOR=1",
		    "DEVNAME=a", "DEVNAME=b");
	/* keys are case-sensitive and a prefix is not a duplicate */
	REQUIRE_OK(BASE, "FOO=1", "foo=1", "FOOD=1", "FO=1");
	ATF_REQUIRE_STREQ(uevent_get(&ev, "FOO"), "1");
}

ATF_TC_WITHOUT_HEAD(udev_framing);
ATF_TC_BODY(udev_framing, tc)
{
	static const char m[] = "libudev\0\xfe\xed\xca\xfe rest of udev's header";

	ATF_REQUIRE_EQ(uevent_parse(&ev, m, sizeof(m), err, sizeof(err)),
		       UEVENT_PARSE_UDEV_FRAMING);
	ATF_REQUIRE_EQ(uevent_parse(&ev, m, 8, err, sizeof(err)),
		       UEVENT_PARSE_UDEV_FRAMING);
	/* not the 8-byte magic: just a broken kernel message */
	ATF_REQUIRE_EQ(uevent_parse(&ev, m, 7, err, sizeof(err)),
		       UEVENT_PARSE_MALFORMED);
	ATF_REQUIRE_EQ(uevent_parse(&ev, "libudev@/x", 11, err, sizeof(err)),
		       UEVENT_PARSE_MALFORMED);
}

ATF_TC_WITHOUT_HEAD(err_contains_key);
ATF_TC_BODY(err_contains_key, tc)
{
	REQUIRE_BAD("MAJOR \"8a\" (offset ", BASE, "MAJOR=8a", "MINOR=0");
	REQUIRE_BAD("MINOR \"1048576\"", BASE, "MAJOR=8", "MINOR=1048576");
	REQUIRE_BAD("exceeds 1048575", BASE, "MAJOR=8", "MINOR=1048576");
	REQUIRE_BAD("leading zero", BASE, "MAJOR=08", "MINOR=0");
	REQUIRE_BAD("not a decimal digit", BASE, "MAJOR=-1", "MINOR=0");
	REQUIRE_BAD("DEVMODE \"0689\"", BASE, "DEVMODE=0689");
	/* the offset is where the variable starts in the payload */
	REQUIRE_BAD("(offset 69)", BASE, "MAJOR=x", "MINOR=0");
}

ATF_TC_WITHOUT_HEAD(err_buffer_handling);
ATF_TC_BODY(err_buffer_handling, tc)
{
	char small[8];

	PARSE(BASE, "MAJOR=8a", "MINOR=0");
	ATF_REQUIRE_EQ(uevent_parse(&ev, msg, msglen, NULL, 0),
		       UEVENT_PARSE_MALFORMED);
	memset(small, 'Z', sizeof(small));
	ATF_REQUIRE_EQ(uevent_parse(&ev, msg, msglen, small, sizeof(small)),
		       UEVENT_PARSE_MALFORMED);
	ATF_REQUIRE_EQ(strlen(small), sizeof(small) - 1);
	memset(small, 'Z', sizeof(small));
	ATF_REQUIRE_EQ(uevent_parse(&ev, msg, msglen, small, 0),
		       UEVENT_PARSE_MALFORMED);
	ATF_REQUIRE_EQ(small[0], 'Z');
	/* success clears a stale message */
	strcpy(err, "stale");
	REQUIRE_OK(BASE);
	ATF_REQUIRE_STREQ(err, "");
}

ATF_TC_WITHOUT_HEAD(failure_resets_event);
ATF_TC_BODY(failure_resets_event, tc)
{
	REQUIRE_OK(BASE, "MAJOR=1", "MINOR=1", "DEVNAME=a");
	REQUIRE_BAD("DEVNAME", BASE, "MAJOR=1", "MINOR=1", "DEVNAME=../a");
	ATF_REQUIRE_EQ(ev.devpath, NULL);
	ATF_REQUIRE_EQ(ev.devname, NULL);
	ATF_REQUIRE(!ev.has_devnum);
	ATF_REQUIRE_EQ(ev.len, 0);
}

ATF_TC_WITHOUT_HEAD(action_names);
ATF_TC_BODY(action_names, tc)
{
	for (int a = 0; a < UEVENT_ACTION_COUNT; a++) {
		const char *name = uevent_action_name((enum uevent_action)a);

		ATF_REQUIRE(name != NULL);
		ATF_REQUIRE_EQ(uevent_action_from_name(name), a);
	}
	ATF_REQUIRE_STREQ(uevent_action_name(UEVENT_UNBIND), "unbind");
	ATF_REQUIRE_EQ(uevent_action_name(UEVENT_ACTION_COUNT), NULL);
	ATF_REQUIRE_EQ(uevent_action_from_name("Add"), -1);
	ATF_REQUIRE_EQ(uevent_action_from_name("ad"), -1);
	ATF_REQUIRE_EQ(uevent_action_from_name("addx"), -1);
	ATF_REQUIRE_EQ(uevent_action_from_name(""), -1);
	ATF_REQUIRE_EQ(uevent_action_from_name(NULL), -1);
}

ATF_TC_WITHOUT_HEAD(get_lookup);
ATF_TC_BODY(get_lookup, tc)
{
	REQUIRE_OK(BASE, "A=B=C", "DEVTYPE=x");
	ATF_REQUIRE_STREQ(uevent_get(&ev, "A"), "B=C");
	ATF_REQUIRE_EQ(uevent_get(&ev, "A=B"), NULL);
	ATF_REQUIRE_EQ(uevent_get(&ev, "DEV"), NULL);
	ATF_REQUIRE_EQ(uevent_get(&ev, "DEVTYPEX"), NULL);
	ATF_REQUIRE_EQ(uevent_get(&ev, ""), NULL);
	ATF_REQUIRE_EQ(uevent_get(&ev, NULL), NULL);
	ATF_REQUIRE_EQ(uevent_get(&ev, "DEVTYPE"), ev.devtype);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, action_add);
	ATF_TP_ADD_TC(tp, action_remove);
	ATF_TP_ADD_TC(tp, action_change);
	ATF_TP_ADD_TC(tp, action_move);
	ATF_TP_ADD_TC(tp, action_online);
	ATF_TP_ADD_TC(tp, action_offline);
	ATF_TP_ADD_TC(tp, action_bind);
	ATF_TP_ADD_TC(tp, action_unbind);
	ATF_TP_ADD_TC(tp, block_add);
	ATF_TP_ADD_TC(tp, partition_add);
	ATF_TP_ADD_TC(tp, synthetic_change);
	ATF_TP_ADD_TC(tp, devnode_owner_mode);
	ATF_TP_ADD_TC(tp, number_limits);
	ATF_TP_ADD_TC(tp, devnum_pairing);
	ATF_TP_ADD_TC(tp, bad_devname);
	ATF_TP_ADD_TC(tp, devname_length);
	ATF_TP_ADD_TC(tp, devname_escaped_in_err);
	ATF_TP_ADD_TC(tp, bad_devpath);
	ATF_TP_ADD_TC(tp, bad_subsystem);
	ATF_TP_ADD_TC(tp, bad_header);
	ATF_TP_ADD_TC(tp, missing_keys);
	ATF_TP_ADD_TC(tp, env_size_limit);
	ATF_TP_ADD_TC(tp, msg_size_limit);
	ATF_TP_ADD_TC(tp, var_count_limit);
	ATF_TP_ADD_TC(tp, unterminated);
	ATF_TP_ADD_TC(tp, empty_and_keyless_vars);
	ATF_TP_ADD_TC(tp, bad_keys);
	ATF_TP_ADD_TC(tp, duplicate_keys);
	ATF_TP_ADD_TC(tp, udev_framing);
	ATF_TP_ADD_TC(tp, err_contains_key);
	ATF_TP_ADD_TC(tp, err_buffer_handling);
	ATF_TP_ADD_TC(tp, failure_resets_event);
	ATF_TP_ADD_TC(tp, action_names);
	ATF_TP_ADD_TC(tp, get_lookup);
	return atf_no_error();
}
