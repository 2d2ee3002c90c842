/* SPDX-License-Identifier: MIT */
/*
 * Walking below a root directory without following anything: every
 * component is opened with O_NOFOLLOW, so no name an event or a label
 * supplies can lead initdev outside the root (/dev, /dev/disk).
 */
#pragma once

#include <stdbool.h>

/* Enter (creating 0755 if asked) one directory; a symlink gives -ELOOP,
 * anything else that is not a directory -ENOTDIR. Returns an fd or -errno. */
int safedir_enter(int dirfd, const char *name, bool create);

/*
 * Open the directory holding the last component of path (relative to
 * rootfd), one component at a time, creating missing ones if create.
 * *leaf points at the last component. Returns an fd or -errno.
 */
int safedir_open_parent(int rootfd, const char *path, bool create, const char **leaf);

enum safedir_link {
	SAFEDIR_LINK_ABSENT,
	SAFEDIR_LINK_SAME,    /* a symlink saying exactly target */
	SAFEDIR_LINK_OTHER,   /* a symlink saying something else */
	SAFEDIR_LINK_FOREIGN, /* not a symlink */
};

/* What is at name in dirfd compared with a symlink to target, or -errno. */
int safedir_link_state(int dirfd, const char *name, const char *target);

/*
 * Make name in dirfd a symlink to target: created if absent, kept if it
 * already says target, replaced atomically (built as tmp in tmpfd, then
 * renamed) if it says something else; tmp is tmp_prefix.PID.TID, so callers
 * must serialise their calls within a thread. Anything that is not a
 * symlink is left alone: -EEXIST. 0 or -errno.
 */
int safedir_put_link(int dirfd, const char *name, const char *target, int tmpfd,
		     const char *tmp_prefix);

/*
 * After the last entry of a directory went: remove the directories holding
 * path (relative to rootfd), deepest first, while they are empty, as udev
 * removes a link's or node's empty parents (rmdir_parents). The root itself
 * stays; a symlink or anything not an empty directory stops it. Returns how
 * many were removed.
 */
int safedir_remove_empty_parents(int rootfd, const char *path);
