/* SPDX-License-Identifier: MIT */
/* The verdict as a pure function: every check, and the order of checks. */
#include <atf-c.h>
#include <string.h>

#include "gate/uevent-verify.h"

static const char kernel_payload[] =
	"change@/devices/virtual/mem/null\0ACTION=change\0"
	"DEVPATH=/devices/virtual/mem/null\0SUBSYSTEM=mem\0MAJOR=1\0MINOR=3\0"
	"DEVNAME=null\0DEVMODE=0666\0SEQNUM=1234\0";

/* Metadata exactly as the kernel's own broadcasts carry it. */
static void kernel_raw(struct uevent_raw *raw, const void *p, size_t len)
{
	memset(raw, 0, sizeof(*raw));
	memcpy(raw->data, p, len);
	raw->len = len;
	raw->has_sender = true;
	raw->sender.nl_family = AF_NETLINK;
	raw->sender.nl_groups = 1;
	raw->has_creds = true;
}

static struct uevent ev;

ATF_TC_WITHOUT_HEAD(kernel_message_accepted);
ATF_TC_BODY(kernel_message_accepted, tc)
{
	struct uevent_raw raw;
	char why[256];

	kernel_raw(&raw, kernel_payload, sizeof(kernel_payload) - 1);
	ATF_REQUIRE_EQ(gate_verify(&raw, &ev, why, sizeof(why)), GATE_ACCEPT);
	ATF_CHECK_EQ(ev.seqnum, 1234);
	ATF_CHECK_STREQ(ev.devname, "null");
}

static enum gate_verdict verdict_after(void (*mutate)(struct uevent_raw *))
{
	struct uevent_raw raw;
	char why[256];

	kernel_raw(&raw, kernel_payload, sizeof(kernel_payload) - 1);
	mutate(&raw);
	return gate_verify(&raw, &ev, why, sizeof(why));
}

static void cut(struct uevent_raw *r) { r->flags |= MSG_TRUNC; }
static void ctrunc(struct uevent_raw *r) { r->flags |= MSG_CTRUNC; }
static void unicast(struct uevent_raw *r) { r->sender.nl_groups = 0; }
static void group2(struct uevent_raw *r) { r->sender.nl_groups = 2; }
static void nosender(struct uevent_raw *r) { r->has_sender = false; }
static void port(struct uevent_raw *r) { r->sender.nl_pid = 4242; }
static void nocreds(struct uevent_raw *r) { r->has_creds = false; }
static void credpid(struct uevent_raw *r) { r->creds.pid = 1; }
static void creduid(struct uevent_raw *r) { r->creds.uid = 65534; }
static void udev(struct uevent_raw *r)
{
	memcpy(r->data, "libudev\0\xfe\xed\xca\xfe", 12);
}
static void garbage(struct uevent_raw *r) { r->data[0] = 'X'; }
/* a forgery that fails everything: the first check in the order names it */
static void everything(struct uevent_raw *r)
{
	cut(r); unicast(r); port(r); nocreds(r); udev(r);
}
static void addr_and_creds(struct uevent_raw *r)
{
	port(r); credpid(r);
}

ATF_TC_WITHOUT_HEAD(each_check);
ATF_TC_BODY(each_check, tc)
{
	ATF_CHECK_EQ(verdict_after(cut), GATE_TRUNCATED);
	ATF_CHECK_EQ(verdict_after(ctrunc), GATE_TRUNCATED);
	ATF_CHECK_EQ(verdict_after(unicast), GATE_UNICAST);
	ATF_CHECK_EQ(verdict_after(group2), GATE_UNICAST);
	ATF_CHECK_EQ(verdict_after(nosender), GATE_UNICAST);
	ATF_CHECK_EQ(verdict_after(port), GATE_FOREIGN_PORT);
	ATF_CHECK_EQ(verdict_after(nocreds), GATE_NO_CREDENTIALS);
	ATF_CHECK_EQ(verdict_after(credpid), GATE_FOREIGN_CREDENTIALS);
	ATF_CHECK_EQ(verdict_after(creduid), GATE_FOREIGN_CREDENTIALS);
	ATF_CHECK_EQ(verdict_after(udev), GATE_UDEV_FRAMING);
	ATF_CHECK_EQ(verdict_after(garbage), GATE_MALFORMED);
}

ATF_TC_WITHOUT_HEAD(order_of_checks);
ATF_TC_BODY(order_of_checks, tc)
{
	ATF_CHECK_EQ(verdict_after(everything), GATE_TRUNCATED);
	ATF_CHECK_EQ(verdict_after(addr_and_creds), GATE_FOREIGN_PORT);
}

/* The parser never sees a payload whose sender failed: a forged udev frame
 * from user space is a foreign-port rejection, not a parse result. */
ATF_TC_WITHOUT_HEAD(payload_not_parsed_before_sender_check);
ATF_TC_BODY(payload_not_parsed_before_sender_check, tc)
{
	struct uevent_raw raw;
	char why[256];

	kernel_raw(&raw, kernel_payload, sizeof(kernel_payload) - 1);
	udev(&raw);
	port(&raw);
	memset(&ev, 0x5a, sizeof(ev));
	ATF_CHECK_EQ(gate_verify(&raw, &ev, why, sizeof(why)), GATE_FOREIGN_PORT);
	ATF_CHECK_EQ((unsigned char)ev.buf[0], 0x5a);
	ATF_CHECK(strstr(why, "4242") != NULL);
}

ATF_TC_WITHOUT_HEAD(verdict_names);
ATF_TC_BODY(verdict_names, tc)
{
	ATF_CHECK_STREQ(gate_verdict_name(GATE_UNICAST), "unicast");
	ATF_CHECK_STREQ(gate_verdict_name(GATE_FOREIGN_PORT), "foreign-port");
	ATF_CHECK_STREQ(gate_verdict_name(GATE_NO_CREDENTIALS), "no-credentials");
	ATF_CHECK_STREQ(gate_verdict_name(GATE_FOREIGN_CREDENTIALS), "foreign-credentials");
	ATF_CHECK_STREQ(gate_verdict_name(GATE_TRUNCATED), "truncated");
	ATF_CHECK_STREQ(gate_verdict_name(GATE_MALFORMED), "malformed");
	ATF_CHECK_STREQ(gate_verdict_name(GATE_UDEV_FRAMING), "udev-framing");
	ATF_CHECK_STREQ(gate_verdict_name(GATE_VERDICT_COUNT), "unknown");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, kernel_message_accepted);
	ATF_TP_ADD_TC(tp, each_check);
	ATF_TP_ADD_TC(tp, order_of_checks);
	ATF_TP_ADD_TC(tp, payload_not_parsed_before_sender_check);
	ATF_TP_ADD_TC(tp, verdict_names);
	return atf_no_error();
}
