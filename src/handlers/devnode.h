/* SPDX-License-Identifier: MIT */
/*
 * The /dev handler: device nodes (mknod when devtmpfs does not manage them),
 * owner/group/mode (DEVMODE/DEVUID/DEVGID, then the udev rules'), and the
 * /dev/block/MAJ:MIN and /dev/char/MAJ:MIN links. Every path is resolved
 * below the --dev root one component at a time without following symlinks,
 * so no event can make initdev write outside it.
 * Thread-safe: handlers run on worker threads.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "handlers/devnum-links.h"
#include "handlers/handler.h"
#include "util/log.h"
#include "util/map.h"
#include "gate/uevent.h"

struct devnode_stats {
	uint64_t nodes_created;  /* mknod done by us */
	uint64_t nodes_removed;
	uint64_t links;          /* block/char links currently in place */
	uint64_t errors;         /* refused or failed operations */
};

struct devnode {
	int devfd;               /* O_DIRECTORY fd of the --dev root */
	struct devnum_links numlinks; /* block/ and char/ links */
	uid_t euid;              /* who we are: a node born ours needs no chown */
	gid_t egid;
	mode_t umask;            /* what mknod takes away: restored with chmod */
	bool mknod_mode;         /* false: devtmpfs creates and removes nodes */
	const struct logger *log;
	pthread_mutex_t lock;
	struct map devices;   /* devpath -> struct devnode_record * */
	struct devnode_stats stats;
};

struct devnode_record {
	char *devname;           /* relative to the --dev root */
	unsigned int major, minor;
	bool block;
};

/*
 * Open dev_root. mknod_mode: create nodes ourselves. Reads the umask once:
 * it must not change afterwards. Returns 0 or -errno.
 */
int devnode_init(struct devnode *d, const char *dev_root, bool mknod_mode,
		 const struct logger *log);
void devnode_fini(struct devnode *d);

/*
 * Apply one event: add/change create or update the node and links; remove
 * deletes them (only what is ours: a node whose type and device number
 * match); move follows DEVPATH_OLD and renames the node if DEVNAME changed.
 * Events without DEVNAME/MAJOR/MINOR are ignored (0). Returns 0 or -errno
 * (already logged with what, where, why).
 */
int devnode_handle(struct devnode *d, const struct uevent *ev);

/* The handler (ctx: struct devnode); never blocks. */
extern const struct handler_ops devnode_handler;

/*
 * The udev rules decided owner, group and mode for devpath's node: apply
 * them to the node recorded for it (and only if it is still that device's
 * node); (uid_t)-1, (gid_t)-1, (mode_t)-1 keep what is. Later events of
 * the device start from these. 0 or -errno (logged unless -ENOENT).
 */
int devnode_set_perms(struct devnode *d, const char *devpath, uid_t uid, gid_t gid, mode_t mode);

/* Devices that currently have a node. */
size_t devnode_count(struct devnode *d);
/*
 * The device whose node is devname (relative to the root): its devpath into
 * devpath (size bytes) and its number and type into out (out->devname is
 * left NULL). False if no recorded device has that node.
 */
bool devnode_find(struct devnode *d, const char *devname, char *devpath, size_t size,
		  struct devnode_record *out);

/* The counters, read under the lock. */
void devnode_snapshot(struct devnode *d, struct devnode_stats *s);

/*
 * After lost events: drop the nodes and links of every recorded device whose
 * sysfs directory (sysfs + devpath) no longer exists. Returns how many.
 */
int devnode_prune(struct devnode *d, const char *sysfs);

