/* SPDX-License-Identifier: MIT */
/*
 * `initdev wait SPEC`: SPEC is /dev/PATH, UUID=, LABEL=, PARTUUID=,
 * PARTLABEL= or MAJ:MIN. Each becomes one name below the /dev root:
 * "disk/by-uuid/<encoded>", ..., "block/MAJ:MIN" or PATH. Values are
 * encoded as udev encodes link names (blkid_encode_string), so a label
 * with '/' or spaces matches its link and can never name another path.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

#define WAIT_NAME_MAX 1100

/* SPEC -> name relative to the /dev root. 0, or -EINVAL with why set. */
/* A name stays below the root: relative, no ".", ".." or empty component. */
bool wait_name_safe(const char *name);

int wait_spec_name(const char *spec, char *name, size_t size, const char **why);

/*
 * True if name exists below dev (following links inside it to a block or
 * character device node) and, for disk/by-* names, the link table agrees.
 * The resolved node (relative to the root) goes to devname.
 */
bool wait_found(struct engine *e, const char *name, char *devname, size_t size);

/* One line per known block device with its probed tags, through emit. */
void wait_describe_devices(struct engine *e, void (*emit)(void *u, const char *line), void *u);
