/* SPDX-License-Identifier: MIT */
/*
 * The udev rules handler: the rules files (udev's directories, or the ones
 * configured) parsed once, applied to every event after the native
 * handlers of that event, with their results carried out the way initdev
 * does its own: SYMLINK through the link table (under --dev only,
 * link_priority honoured), OWNER/GROUP/MODE through devnode, properties
 * kept per device (IMPORT{db}), RUN programs after everything else on the
 * event's worker, bounded by rd.initdev.event_timeout= (udev's 180 s).
 * The event counts as handled (settle waits for it) when its RUN programs
 * are done. Reload swaps in a new parse; events in flight keep the old one.
 * Devices whose rules set OPTIONS+="db_persist" get udev's database entry
 * for the real root (udev-db.h), written after each of their events. A
 * device-mapper event's cookie (DM_COOKIE) is released after the event,
 * by the rules' `dmsetup udevcomplete` (run after the event's other RUN
 * entries) or, when that did not run or failed, by the handler itself, or
 * by a handoff that gave the event up (dm-cookie.h's book, `cookies`): a
 * tool waits on it forever.
 * Last, when configured, the device as udevd has it after the event is
 * broadcast to udev's listeners (udev-broadcast.h), also when no rules are
 * loaded, as udevd does for every event.
 * Thread-safe.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "handlers/devnode.h"
#include "handlers/dm-cookie.h"
#include "handlers/disk-links.h"
#include "handlers/handler.h"
#include "handlers/modload.h"
#include "handlers/udev-broadcast.h"
#include "handlers/udev-db.h"
#include "rules/db.h"
#include "rules/rules.h"
#include "util/log.h"
#include "util/sysdev.h"

#define RULES_EVENT_TIMEOUT_DEFAULT 180

struct rules_handler_config {
	const char *sysfs;
	const char *dev;          /* where device nodes are (blkid opens them there) */
	const char *const *dirs;  /* NULL: udev's directories */
	const char *cmdline;      /* the kernel command line text (IMPORT{cmdline}) */
	unsigned int timeout_sec; /* per event; 0: RULES_EVENT_TIMEOUT_DEFAULT */
	const char *udev_run;     /* udev's runtime directory for db_persist entries; NULL: none */
	bool broadcast;           /* send each handled event to netlink group 2 (udev's listeners) */
};

struct rules_handler_stats {
	uint64_t events;       /* events the rules were applied to */
	uint64_t runs;         /* RUN entries carried out */
	uint64_t run_failures; /* of those, failed (logged) */
	uint64_t reloads;
	uint64_t db_entries;      /* udev database entries written (db_persist) */
	uint64_t cookies_rescued; /* dm cookies the rules left and the handler released */
	uint64_t broadcasts;      /* events sent to udev's listeners (group 2) */
	uint64_t broadcast_failures; /* of those, not sent (logged) */
};

struct rules_loaded; /* one parse of the rules, shared by the events using it */

struct rules_handler {
	const struct logger *log;
	char *sysfs;
	char *dev;
	const char *const *dirs;
	char *cmdline;
	const char *libexec;
	uint64_t timeout_usec;
	struct sysdev_root sys;
	struct devnode *devnode;
	struct disk_links *links;
	struct modload *modload;
	struct rules_db db;
	struct udev_db udevdb; /* dirfd -1: no udev database written */
	struct udev_broadcast bcast; /* fd -1: no broadcast */
	pthread_mutex_t lock; /* guards current and stats */
	struct rules_loaded *current;
	struct props global; /* udevadm control --property */
	struct rules_handler_stats stats;
	unsigned int builtin_warned;
	struct dm_cookie_book cookies; /* the engine notes, a handoff closes (dm-cookie.h) */
};

/*
 * Load the rules. 0, or -errno (logged). A missing directory is no rules.
 * An unusable udev_run is logged and no database is written.
 */
int rules_handler_init(struct rules_handler *h, const struct rules_handler_config *cfg,
		       struct devnode *devnode, struct disk_links *links, struct modload *modload,
		       const struct logger *log);
void rules_handler_fini(struct rules_handler *h);

/* Parse the rules files again (udevadm control --reload). 0 or -errno (logged). */
int rules_handler_reload(struct rules_handler *h);

/* A global property (udevadm control --property); value NULL removes it. 0 or -errno. */
int rules_handler_set_property(struct rules_handler *h, const char *key, const char *value);

/* How many rules lines are loaded now. */
size_t rules_handler_lines(struct rules_handler *h);

void rules_handler_snapshot(struct rules_handler *h, struct rules_handler_stats *s);

extern const struct handler_ops rules_handler;
