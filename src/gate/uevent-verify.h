/* SPDX-License-Identifier: MIT */
/*
 * The trust decision: was this datagram sent by the kernel, and is it a
 * well-formed uevent? Pure functions of the received bytes and metadata.
 */
#pragma once

#include "gate/uevent-socket.h"
#include "gate/uevent.h"

/* In the order they are checked; the first failing check names the verdict. */
enum gate_verdict {
	GATE_ACCEPT = 0,
	GATE_TRUNCATED,           /* MSG_TRUNC or MSG_CTRUNC */
	GATE_UNICAST,             /* no sender address, or nl_groups != 1 */
	GATE_FOREIGN_PORT,        /* nl_pid != 0: a user-space socket */
	GATE_NO_CREDENTIALS,      /* no SCM_CREDENTIALS */
	GATE_FOREIGN_CREDENTIALS, /* pid != 0 or uid != 0 */
	GATE_UDEV_FRAMING,        /* "libudev\0" payload */
	GATE_MALFORMED,           /* fails the strict parser */
	GATE_VERDICT_COUNT,
};

const char *gate_verdict_name(enum gate_verdict v);

/* Sender checks only: never looks at the payload. */
enum gate_verdict gate_check_sender(const struct uevent_raw *raw);

/*
 * Full verdict: the sender checks, then (only for a kernel sender) the
 * parser. On GATE_ACCEPT ev holds the parsed event. why receives a one-line
 * explanation for any rejection, safe to log.
 */
enum gate_verdict gate_verify(const struct uevent_raw *raw, struct uevent *ev,
			      char *why, size_t whylen);
