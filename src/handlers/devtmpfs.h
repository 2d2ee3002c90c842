/* SPDX-License-Identifier: MIT */
/*
 * devtmpfs: whether the kernel makes the device nodes (then initdev only
 * adjusts them), or initdev makes them with mknod.
 */
#pragma once

#include <stdbool.h>

#include "util/log.h"

/* True if dev_root is a devtmpfs mount (per /proc/self/mountinfo). */
bool devtmpfs_is_mounted(const char *dev_root);

/* Mount devtmpfs on dev_root if the kernel offers it. 0 or -errno. */
int devtmpfs_mount(const char *dev_root);

/*
 * devtmpfs if it is there or can be mounted and was not declined
 * (--no-devtmpfs): true. Otherwise nodes are made with mknod: false.
 * Logs the choice.
 */
bool devtmpfs_choose(const char *dev_root, bool declined, const struct logger *log);
