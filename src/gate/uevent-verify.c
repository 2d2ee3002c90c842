/* SPDX-License-Identifier: MIT */
#include "gate/uevent-verify.h"

#include <stdio.h>

static const char *const verdict_names[GATE_VERDICT_COUNT] = {
	[GATE_ACCEPT] = "accepted",
	[GATE_TRUNCATED] = "truncated",
	[GATE_UNICAST] = "unicast",
	[GATE_FOREIGN_PORT] = "foreign-port",
	[GATE_NO_CREDENTIALS] = "no-credentials",
	[GATE_FOREIGN_CREDENTIALS] = "foreign-credentials",
	[GATE_UDEV_FRAMING] = "udev-framing",
	[GATE_MALFORMED] = "malformed",
};

const char *gate_verdict_name(enum gate_verdict v)
{
	return (unsigned int)v < GATE_VERDICT_COUNT ? verdict_names[v] : "unknown";
}

enum gate_verdict gate_check_sender(const struct uevent_raw *raw)
{
	/* a cut datagram or cut credentials cannot be judged at all */
	if (raw->flags & (MSG_TRUNC | MSG_CTRUNC))
		return GATE_TRUNCATED;
	/* the kernel only multicasts uevents, to group 1 */
	if (!raw->has_sender || raw->sender.nl_groups != 1)
		return GATE_UNICAST;
	/* the kernel's port id is 0; every user-space socket has another */
	if (raw->sender.nl_pid != 0)
		return GATE_FOREIGN_PORT;
	if (!raw->has_creds)
		return GATE_NO_CREDENTIALS;
	/* kernel messages carry pid 0, uid 0; user space cannot claim pid 0 */
	if (raw->creds.pid != 0 || raw->creds.uid != 0)
		return GATE_FOREIGN_CREDENTIALS;
	return GATE_ACCEPT;
}

static void explain_sender(const struct uevent_raw *raw, enum gate_verdict v,
			   char *why, size_t whylen)
{
	if (v == GATE_TRUNCATED)
		snprintf(why, whylen, "datagram or its credentials were cut "
			 "(msg_flags 0x%x, %zu bytes kept)", (unsigned int)raw->flags,
			 raw->len);
	else if (v == GATE_UNICAST)
		snprintf(why, whylen, "sent to groups 0x%x, not multicast to group 1",
			 raw->has_sender ? raw->sender.nl_groups : 0);
	else if (v == GATE_FOREIGN_PORT)
		snprintf(why, whylen, "sender port %u is a user-space socket",
			 (unsigned int)raw->sender.nl_pid);
	else if (v == GATE_NO_CREDENTIALS)
		snprintf(why, whylen, "no SCM_CREDENTIALS (is SO_PASSCRED set?)");
	else
		snprintf(why, whylen, "credentials pid %d uid %u are not the kernel's",
			 (int)raw->creds.pid, (unsigned int)raw->creds.uid);
}

enum gate_verdict gate_verify(const struct uevent_raw *raw, struct uevent *ev,
			      char *why, size_t whylen)
{
	enum gate_verdict v = gate_check_sender(raw);

	if (why && whylen)
		why[0] = '\0';
	if (v != GATE_ACCEPT) {
		if (why && whylen)
			explain_sender(raw, v, why, whylen);
		return v;
	}
	/* only now, with the kernel proven as sender, is the payload parsed */
	switch (uevent_parse(ev, raw->data, raw->len, why, whylen)) {
	case UEVENT_PARSE_OK:
		return GATE_ACCEPT;
	case UEVENT_PARSE_UDEV_FRAMING:
		return GATE_UDEV_FRAMING;
	default:
		return GATE_MALFORMED;
	}
}
