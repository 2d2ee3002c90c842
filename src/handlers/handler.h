/* SPDX-License-Identifier: MIT */
/*
 * The contract every event handler keeps (devnode, disk, modload, ...).
 *
 * The engine runs each handler's handle() on every accepted event, in the
 * order of the handler set, on the main thread or on a worker thread: an
 * event goes to a worker if any handler's may_block() says so (module
 * loading, reading a disk). A handler never fails the event: it logs what
 * went wrong (what, where, why), counts it, and the next handler runs.
 * handle() must be thread-safe; events of one device (and of a parent and
 * its child) reach it one at a time, in SEQNUM order.
 */
#pragma once

#include <stdbool.h>

#include "gate/uevent.h"

struct handler_call {
	const struct uevent *ev;
	void *worker;  /* this handler's per-worker state; NULL on the main thread */
};

struct handler_ops {
	const char *name;
	/* May handling ev block (I/O on a device, module loading)? NULL: never. */
	bool (*may_block)(void *ctx, const struct uevent *ev);
	void (*handle)(void *ctx, const struct handler_call *call);
	/* Optional per-worker state (libkmod contexts are per thread). */
	void *(*worker_new)(void *ctx);
	void (*worker_free)(void *worker);
	/* Optional: read configuration again (udevadm control --reload). 0 or -errno. */
	int (*reload)(void *ctx);
	/* Optional: a global property (udevadm control --property=KEY=VALUE; NULL removes). */
	int (*set_property)(void *ctx, const char *key, const char *value);
};

struct handler {
	const struct handler_ops *ops;
	void *ctx;
};
