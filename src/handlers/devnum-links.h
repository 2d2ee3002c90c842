/* SPDX-License-Identifier: MIT */
/*
 * /dev/block/MAJ:MIN and /dev/char/MAJ:MIN: a link to each node, by its
 * device number, as udev makes them. Only links that say "../DEVNAME" are
 * ours: anything else found in a slot is left alone. Not thread-safe: the
 * devnode handler calls it under its lock.
 */
#pragma once

#include <stdbool.h>

#define DEVNUM_PATH_MAX 32 /* "block/4095:1048575" */

struct devnum_links {
	int devfd;  /* the --dev root (not owned) */
	int dir[2]; /* "char" and "block" below it, opened on first use; -1 */
};

void devnum_links_init(struct devnum_links *l, int devfd);
void devnum_links_fini(struct devnum_links *l);

/* "block/MAJ:MIN" or "char/MAJ:MIN", for messages. */
void devnum_link_path(char out[DEVNUM_PATH_MAX], bool block, unsigned int major,
		      unsigned int minor);

/*
 * Point the slot at ../devname: created, kept, or (a stale link of ours)
 * replaced. Returns 0 or -errno; *in_dir tells whether the failure was
 * reaching the directory (a symlink or non-directory there is refused).
 */
int devnum_link_put(struct devnum_links *l, bool block, unsigned int major,
		    unsigned int minor, const char *devname, bool *in_dir);

/*
 * Remove the slot if it still says ../devname. Returns 0 (removed, or
 * nothing there), 1 (something else is there: left alone) or -errno.
 */
int devnum_link_drop(struct devnum_links *l, bool block, unsigned int major,
		     unsigned int minor, const char *devname);
