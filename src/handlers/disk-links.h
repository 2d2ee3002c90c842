/* SPDX-License-Identifier: MIT */
/*
 * The /dev/disk link table: which device claims which persistent name
 * ("by-uuid/XXXX"), which claimant owns the symlink, and the symlinks
 * themselves below <dev>/disk. Conflicts resolve deterministically: the
 * highest priority wins; on a tie a device that is not removable keeps the
 * name over one that is (docs/trust-model.md: a USB stick carrying a copy
 * of the root's UUID must not take the root's name), then the device that
 * claimed it first keeps it. A tie is logged as a warning naming both.
 * When the owner goes away or stops claiming, the link moves to the best
 * remaining claimant or is removed. No link ever points to a removed device.
 * Thread-safe (handlers run on worker threads).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/log.h"
#include "handlers/blkid-probe.h"
#include "util/map.h"

#define LINK_NAME_MAX 1024 /* "by-label/" + an encoded label fits */
#define DISK_LINKS_NAMES_MAX 64 /* names one device claims (ties warned about for these) */

struct disk_links_stats {
	uint64_t links;      /* symlinks in place now */
	uint64_t conflicts;  /* names claimed by more than one device now */
	uint64_t errors;     /* refused names, failed symlink operations */
};

struct disk_links {
	int devfd;                /* the --dev root (not owned) */
	const struct logger *log;
	pthread_mutex_t lock;
	struct map names;      /* link name -> claimants */
	struct map devices;    /* devpath -> device record (names it claims, info) */
	struct disk_links_stats stats;
};

/* What we know of a block device, for `initdev wait` and `udevadm info`. */
struct disk_links_device_info {
	char devname[256];        /* relative to /dev */
	unsigned int major, minor;
	bool partition;
	bool removable;           /* removable media, or on USB, MMC, FireWire */
	struct probe_result probe;
	bool probed;              /* false: unreadable or not probed yet */
};

int disk_links_init(struct disk_links *l, int devfd, const struct logger *log);
void disk_links_fini(struct disk_links *l);

/*
 * Make devpath claim exactly names[0..n) (each "by-xxx/NAME": one directory
 * among by-uuid, by-label, by-partuuid, by-partlabel, by-id, by-path,
 * by-diskseq, by-loop-inode, by-loop-ref, and one safe component; or a
 * nested by-path name, disk_links_name_valid), pointing at info->devname, with
 * priority (unless the device's rules gave it one: that one stays, see
 * disk_links_update_rules). Names it claimed before and no longer does are released. A name
 * that is not safe is refused and logged. Returns 0 or -errno.
 */
int disk_links_update(struct disk_links *l, const char *devpath, const struct disk_links_device_info *info,
		 int priority, const char *const *names, size_t n);

/*
 * The links a device's udev rules name (SYMLINK): names relative to the
 * --dev root ("mapper/x", "disk/by-id/dm-name-x"), checked with
 * disk_links_path_valid, made relative as udev makes them. They are
 * claimed apart from the native names (each source replaces only its own
 * set); priority becomes the device's, for its native names too (udev
 * weighs all of a device's links with its link_priority).
 */
int disk_links_update_rules(struct disk_links *l, const char *devpath,
			    const struct disk_links_device_info *info, int priority,
			    const char *const *names, size_t n);

/* The device went away: release all its names (native and rules), forget it. */
int disk_links_remove(struct disk_links *l, const char *devpath);

/* What the table knows of devpath (its native record); false if nothing. */
bool disk_links_device(struct disk_links *l, const char *devpath, struct disk_links_device_info *out);

/*
 * The native names devpath claims now, relative to --dev ("disk/by-uuid/X"),
 * into names (at most max). Returns the count.
 */
size_t disk_links_device_names(struct disk_links *l, const char *devpath,
			       char (*names)[LINK_NAME_MAX], size_t max);

/* Resolve a link name ("by-uuid/XXXX") to its owner's devname. */
bool disk_links_resolve(struct disk_links *l, const char *name, char *devname, size_t size);

/* Call fn for every known block device (under the lock; fn must not call back). */
void disk_links_foreach_device(struct disk_links *l,
			  void (*fn)(void *u, const char *devpath, const struct disk_links_device_info *info),
			  void *u);

/*
 * Call fn for every name more than one device claims, once per device that
 * does not keep it (under the lock; fn must not call back). name is
 * relative to the --dev root ("disk/by-uuid/X", or a rules link "mapper/x").
 */
void disk_links_foreach_conflict(struct disk_links *l,
				 void (*fn)(void *u, const char *name,
					    const struct disk_links_device_info *kept,
					    const struct disk_links_device_info *other),
				 void *u);

void disk_links_snapshot(struct disk_links *l, struct disk_links_stats *s);

/*
 * True if name is "by-xxx/NAME" with a known directory and one safe
 * component; with udev 257 compatibility (UDEV_COMPAT) also udev 257's
 * partition names below a disk's by-path name,
 * "by-path/<ID_PATH>-part/by-{partnum,partuuid,partlabel,uuid,label}/NAME"
 * (the first component a safe one ending in "-part" with at least one byte
 * before it, NAME one safe component), and nothing deeper or different.
 * A safe component: 1..255 bytes, no '/', no control byte or DEL, not "."
 * or "..".
 */
bool disk_links_name_valid(const char *name);
/* The same rule for udev udev_compat (252: the flat names only), for tests. */
bool disk_links_name_valid_compat(const char *name, int udev_compat);
/* True if name is 1 to 9 safe components ("a/b/c"): a rules link below --dev. */
bool disk_links_path_valid(const char *name);
