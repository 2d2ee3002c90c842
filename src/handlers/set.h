/* SPDX-License-Identifier: MIT */
/*
 * The handler set: every event handler initdev runs, set up once, in the
 * order they act on an event (the node first, then what reads it). The
 * engine knows handlers only through this table (handler.h); a new handler
 * is added here, not in the engine.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "handlers/devnode.h"
#include "handlers/disk-links.h"
#include "handlers/disk.h"
#include "handlers/handler.h"
#include "handlers/modload.h"
#include "handlers/rules.h"
#include "util/log.h"
#include "util/trace.h"

#define HANDLERS_MAX 8

struct handler_set_config {
	const char *sysfs;
	const char *dev;
	bool mknod;                    /* no devtmpfs: make the nodes */
	const char *modules_dir;       /* NULL: the running kernel's */
	const char *const *modprobe_d; /* NULL: libkmod's defaults */
	char *const *blacklist;        /* from the kernel command line */
	size_t nblacklist;
	const char *const *rules_dirs; /* udev rules directories; NULL: udev's */
	const char *cmdline;           /* the kernel command line text (IMPORT{cmdline}) */
	unsigned int event_timeout;    /* seconds for an event's rules programs; 0: 180 */
	const char *udev_run;          /* udev's database for db_persist devices; NULL: none */
	bool broadcast;                /* handled events to udev's listeners (netlink group 2) */
	struct trace *trace;           /* time each handler, each module; NULL: not */
};

struct handler_set {
	const struct logger *log;
	struct trace *trace;
	struct devnode devnode;
	struct disk_links links;
	struct disk_ctx disk;
	struct modload modload;
	struct rules_handler rules;
	struct handler table[HANDLERS_MAX];
	unsigned int n;
	unsigned int up; /* how many of the parts above are set up (for fini) */
	bool ready;      /* all of them */
};

/* Set up every handler. 0, or -errno (logged); fini undoes a partial set. */
int handler_set_init(struct handler_set *hs, const struct handler_set_config *cfg,
		     const struct logger *log);
void handler_set_fini(struct handler_set *hs);

/* Append one more handler (after the standard ones). 0 or -ENOSPC. */
int handler_set_add(struct handler_set *hs, const struct handler_ops *ops, void *ctx);

/* Every handler that has configuration reads it again. 0, or the first -errno. */
int handler_set_reload(struct handler_set *hs);

/* "KEY=VALUE" (an empty value removes KEY) for the handlers that keep global properties. */
int handler_set_property(struct handler_set *hs, const char *assignment);

/* True if any handler may block on ev: it then runs on a worker. */
bool handler_set_may_block(const struct handler_set *hs, const struct uevent *ev);

/* Run every handler on ev. workers[i] is handler i's per-worker state
 * (NULL, or workers NULL, on the main thread). */
void handler_set_run(const struct handler_set *hs, void *const *workers,
		     const struct uevent *ev);

/* Per-worker state for each handler that keeps some: workers[HANDLERS_MAX]. */
void handler_set_workers_new(const struct handler_set *hs, void **workers);
void handler_set_workers_free(const struct handler_set *hs, void **workers);
/* On a worker thread as it starts: each handler readies its state. */
void handler_set_workers_warm(const struct handler_set *hs, void *const *workers);
