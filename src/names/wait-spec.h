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

#define WAIT_NAME_MAX 1100

/* A name stays below the root: relative, no ".", ".." or empty component. */
bool wait_name_safe(const char *name);

/* SPEC -> name relative to the /dev root. 0, or -EINVAL with why set. */
int wait_spec_name(const char *spec, char *name, size_t size, const char **why);
