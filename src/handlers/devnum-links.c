/* SPDX-License-Identifier: MIT */
#include "handlers/devnum-links.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gate/uevent.h"
#include "util/safedir.h"

/* "../" + DEVNAME */
#define TARGET_MAX (UEVENT_DEVNAME_MAX + 4)

void devnum_links_init(struct devnum_links *l, int devfd)
{
	*l = (struct devnum_links){ .devfd = devfd, .dir = { -1, -1 } };
}

/* Someone removed (or replaced) the directory we kept open: look again. */
static void dir_drop(struct devnum_links *l, bool block)
{
	if (l->dir[block] >= 0)
		close(l->dir[block]);
	l->dir[block] = -1;
}

void devnum_links_fini(struct devnum_links *l)
{
	dir_drop(l, false);
	dir_drop(l, true);
}

void devnum_link_path(char out[DEVNUM_PATH_MAX], bool block, unsigned int major,
		      unsigned int minor)
{
	snprintf(out, DEVNUM_PATH_MAX, "%s/%u:%u", block ? "block" : "char", major, minor);
}

/*
 * The "block" or "char" directory, kept open after the first use: every
 * device with a node gets a link there. -errno if it is not a plain
 * directory (or absent and not to be created).
 */
static int dir_open(struct devnum_links *l, bool block, bool create)
{
	if (l->dir[block] < 0) {
		int fd = safedir_enter(l->devfd, block ? "block" : "char", create);

		if (fd < 0)
			return fd;
		l->dir[block] = fd;
	}
	return l->dir[block];
}

int devnum_link_put(struct devnum_links *l, bool block, unsigned int major,
		    unsigned int minor, const char *devname, bool *in_dir)
{
	char path[DEVNUM_PATH_MAX], target[TARGET_MAX];
	const char *leaf;
	int r = -ENOENT;

	devnum_link_path(path, block, major, minor);
	leaf = strchr(path, '/') + 1;
	snprintf(target, sizeof(target), "../%s", devname);
	*in_dir = false;
	/* a second try only if the directory we kept open was deleted */
	for (int attempt = 0; attempt < 2 && r == -ENOENT; attempt++) {
		int dirfd = dir_open(l, block, true);

		if (dirfd < 0) {
			*in_dir = true;
			return dirfd;
		}
		r = safedir_put_link(dirfd, leaf, target, dirfd, ".initdev-tmp");
		if (r == -ENOENT)
			dir_drop(l, block);
	}
	return r;
}

int devnum_link_drop(struct devnum_links *l, bool block, unsigned int major,
		     unsigned int minor, const char *devname)
{
	char path[DEVNUM_PATH_MAX], target[TARGET_MAX];
	const char *leaf;
	int state = SAFEDIR_LINK_ABSENT;

	devnum_link_path(path, block, major, minor);
	leaf = strchr(path, '/') + 1;
	snprintf(target, sizeof(target), "../%s", devname);
	/* absent from the directory we kept open: it may have been replaced */
	for (int attempt = 0; attempt < 2 && state == SAFEDIR_LINK_ABSENT; attempt++) {
		int dirfd = dir_open(l, block, false);

		if (dirfd < 0)
			return 0;
		state = safedir_link_state(dirfd, leaf, target);
		if (state == SAFEDIR_LINK_SAME)
			return unlinkat(dirfd, leaf, 0) < 0 ? -errno : 0;
		if (state == SAFEDIR_LINK_OTHER || state == SAFEDIR_LINK_FOREIGN)
			return 1;
		if (state == SAFEDIR_LINK_ABSENT)
			dir_drop(l, block);
	}
	return 0;
}
