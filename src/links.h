/* SPDX-License-Identifier: MIT */
/*
 * The /dev/disk link table: which device claims which persistent name
 * ("by-uuid/XXXX"), which claimant owns the symlink, and the symlinks
 * themselves below <dev>/disk. Conflicts resolve deterministically: the
 * highest priority wins, then the lowest devpath (strcmp); when the owner
 * goes away or stops claiming, the link moves to the best remaining
 * claimant or is removed. No link ever points to a removed device.
 * Thread-safe (handlers run on worker threads).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "probe.h"
#include "strset.h"

#define LINK_NAME_MAX 1024 /* "by-label/" + an encoded label fits */

struct links_stats {
	uint64_t links;      /* symlinks in place now */
	uint64_t conflicts;  /* names claimed by more than one device now */
	uint64_t errors;     /* refused names, failed symlink operations */
};

struct links {
	int devfd;                /* the --dev root (not owned) */
	const struct logger *log;
	pthread_mutex_t lock;
	struct strset names;      /* link name -> claimants */
	struct strset devices;    /* devpath -> device record (names it claims, info) */
	struct links_stats stats;
};

/* What we know of a block device, for `initdev wait` and `udevadm info`. */
struct links_device_info {
	char devname[256];        /* relative to /dev */
	unsigned int major, minor;
	bool partition;
	struct probe_result probe;
	bool probed;              /* false: unreadable or not probed yet */
};

int links_init(struct links *l, int devfd, const struct logger *log);
void links_fini(struct links *l);

/*
 * Make devpath claim exactly names[0..n) (each "by-xxx/NAME": one directory
 * among by-uuid, by-label, by-partuuid, by-partlabel, by-id, by-path,
 * by-diskseq, and one safe component), pointing at info->devname, with
 * priority. Names it claimed before and no longer does are released. A name
 * that is not safe is refused and logged. Returns 0 or -errno.
 */
int links_update(struct links *l, const char *devpath, const struct links_device_info *info,
		 int priority, const char *const *names, size_t n);

/* The device went away: release all its names, forget it. */
int links_remove(struct links *l, const char *devpath);

/* Resolve a link name ("by-uuid/XXXX") to its owner's devname. */
bool links_resolve(struct links *l, const char *name, char *devname, size_t size);

/* Call fn for every known block device (under the lock; fn must not call back). */
void links_foreach_device(struct links *l,
			  void (*fn)(void *u, const char *devpath, const struct links_device_info *info),
			  void *u);

void links_snapshot(struct links *l, struct links_stats *s);

/* True if name is "by-xxx/NAME" with a known directory and one safe component. */
bool links_name_valid(const char *name);
