/* SPDX-License-Identifier: MIT */
/*
 * udev's control socket path, /run/udev/control, as the tools of a
 * stacked root read it (docs/stacked-roots.md §2, docs/populator.md "dm
 * and md"): libdevmapper (cryptsetup, lvm, dmsetup) believes udev runs
 * exactly when that path exists, and then waits for udev's rules to make
 * /dev/mapper and to release its cookies, which initdev's rules engine
 * does. So while `initdev daemon` runs, it makes the path exist, as a
 * plain file: nothing listens, so initdev's own test for a real udevd
 * (udev_control_answers: connecting) is not fooled by it, and a real
 * udevd binding the path later replaces it. It is removed when the
 * daemon stops or hands off (the real root's lvm must not wait on udev
 * before the real root's udevd runs). A path a real udevd answers on is
 * never touched.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/log.h"

struct udev_presence {
	char path[PATH_MAX]; /* "" if nothing was made */
	dev_t dev;           /* the file made, to remove only that one */
	ino_t ino;
};

/* The default udev runtime directory: "udev" beside run_dir (/run/initdev -> /run/udev). */
int udev_run_default(const char *run_dir, char *out, size_t size);

/* A udevd (or anything) accepts connections on DIR/control. */
bool udev_control_answers(const char *udev_run);

/*
 * Make DIR/control exist (DIR created 0755 if missing): replaces a stale
 * file or socket nobody answers on; leaves one that answers alone (1,
 * logged). 0 made, 1 left alone, -errno (logged).
 */
int udev_presence_start(struct udev_presence *p, const char *udev_run, const struct logger *log);

/* Remove what start made, if it is still the same file. */
void udev_presence_stop(struct udev_presence *p);
