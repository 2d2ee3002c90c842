/* SPDX-License-Identifier: MIT */
/*
 * The block-device handler: probe each disk and partition with libblkid and
 * keep its /dev/disk/by-* links as 60-persistent-storage.rules names them
 * (handlers/disk-names.h).
 *
 * A btrfs member's filesystem names (by-uuid, by-label) are held back when
 * hold_btrfs is set (the rules handler runs after this one): udev makes a
 * device's links after its rules, and 64-btrfs.rules' `btrfs ready`
 * builtin is what registers the member with the kernel. A link made
 * before it would let dracut mount a multi-device filesystem whose other
 * members the kernel does not know yet (and fail). The rules handler links
 * them after the rules (disk_held_names).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <pthread.h>

#include "handlers/disk-links.h"
#include "handlers/disk-names.h"
#include "handlers/handler.h"
#include "util/map.h"
#include "gate/uevent.h"

struct disk_ctx {
	const char *sysfs;
	int devfd;              /* the --dev root */
	struct disk_links *links;
	const struct logger *log;
	pthread_mutex_t lock;   /* guards unreadable */
	struct map unreadable; /* devpaths whose probe failure was logged */
	bool hold_btrfs;       /* leave a btrfs member's filesystem names to the rules handler */
};

void disk_init(struct disk_ctx *c, const char *sysfs, int devfd, struct disk_links *links,
	       const struct logger *log);
void disk_fini(struct disk_ctx *c);

/* The handler (ctx: struct disk_ctx). */
extern const struct handler_ops disk_handler;

/* True if p is a filesystem whose names wait for its rules (btrfs). */
bool disk_holds_names(const struct probe_result *p);
/* True for a name ("by-uuid/X") that disk_holds_names holds back. */
bool disk_held_name(const char *name);

/* Handle one block event (add, change, remove, move). Never fails the caller. */
void disk_handle(struct disk_ctx *c, const struct uevent *ev);

/*
 * Removable media, or a disk on a bus anyone can plug into: the sysfs
 * "removable" flag of the whole disk, or a USB, MMC, FireWire or memory
 * stick bus above it. Such a disk never takes a persistent name from one
 * that is not (disk-links.h). Unknown counts as not removable.
 */
bool disk_removable(const char *sysfs, const char *devpath, bool partition);
