/* SPDX-License-Identifier: MIT */
/*
 * The block-device handler: probe each disk and partition with libblkid and
 * keep its /dev/disk/by-* links as udev 252's 60-persistent-storage.rules
 * names them: by-uuid and by-label (usage filesystem, other or crypto),
 * by-partuuid, by-partlabel (GPT), by-diskseq (disks), by-id, by-path
 * (partitions: the disk's name plus "-partN").
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <pthread.h>

#include "handlers/disk-links.h"
#include "handlers/handler.h"
#include "util/map.h"
#include "gate/uevent.h"

#define DISK_NAMES_MAX 32

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
 * The link names (each "by-xxx/NAME") udev gives the device of ev with probe
 * result p; names[DISK_NAMES_MAX][LINK_NAME_MAX]. Returns the count.
 */
size_t disk_link_names(const char *sysfs, const struct uevent *ev,
		       const struct probe_result *p, char names[][LINK_NAME_MAX]);

/*
 * Removable media, or a disk on a bus anyone can plug into: the sysfs
 * "removable" flag of the whole disk, or a USB, MMC, FireWire or memory
 * stick bus above it. Such a disk never takes a persistent name from one
 * that is not (disk-links.h). Unknown counts as not removable.
 */
bool disk_removable(const char *sysfs, const char *devpath, bool partition);

/* True for the kernel names 60-persistent-storage.rules handles. */
bool disk_is_storage(const char *sysname);
