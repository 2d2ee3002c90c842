/* SPDX-License-Identifier: MIT */
/*
 * Read a file descriptor to its end or to a bound, whichever comes first:
 * sysfs attributes, rules files and /proc files come in more than one read
 * only sometimes, so every bounded reader goes through one loop.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Bytes read (< size only at end of file), or -errno; EINTR is retried. */
ssize_t read_full(int fd, void *buf, size_t size);
