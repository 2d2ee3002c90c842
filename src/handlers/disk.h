/* SPDX-License-Identifier: MIT */
/*
 * The block-device handler: probe each disk and partition with libblkid and
 * keep its /dev/disk/by-* links as 60-persistent-storage.rules names them
 * (handlers/disk-names.h).
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
};

void disk_init(struct disk_ctx *c, const char *sysfs, int devfd, struct disk_links *links,
	       const struct logger *log);
void disk_fini(struct disk_ctx *c);

/* The handler (ctx: struct disk_ctx). */
extern const struct handler_ops disk_handler;

/* Handle one block event (add, change, remove, move). Never fails the caller. */
void disk_handle(struct disk_ctx *c, const struct uevent *ev);

/*
 * Removable media, or a disk on a bus anyone can plug into: the sysfs
 * "removable" flag of the whole disk, or a USB, MMC, FireWire or memory
 * stick bus above it. Such a disk never takes a persistent name from one
 * that is not (disk-links.h). Unknown counts as not removable.
 */
bool disk_removable(const char *sysfs, const char *devpath, bool partition);
