/* SPDX-License-Identifier: MIT */
/*
 * Builtin outputs against udev's: NAME.udev (tests/fixtures/sysfs) holds
 * what the real `udevadm test-builtin` (udev 252) printed for each device
 * of the tree NAME.sh builds ("== DEVPATH", then KEY=VALUE lines in the
 * order udev set them; none where the builtin failed). A builtin here is a
 * function of the sysfs root and a devpath that sets properties through a
 * callback. Known differences are listed as gaps, with initdev's value.
 */
#pragma once

#include <atf-c.h>
#include <stdbool.h>

#include "util/sysdev.h"

/*
 * Each "== HEAD" block of the file at path (a '#' header before the first
 * is skipped): fn gets HEAD and the block's lines as one text. Returns the
 * number of blocks.
 */
typedef void (*bx_block_fn)(const char *head, const char *expected, void *u);
int bx_blocks(const char *path, bx_block_fn fn, void *u);

typedef int (*bx_set_fn)(void *u, const char *key, const char *value);
typedef int (*bx_builtin_fn)(const struct sysdev_root *root, const char *devpath, bx_set_fn set,
			     void *u);

struct bx_gap {
	const char *devpath, *key;
	const char *ours; /* initdev's value; NULL: initdev does not set it either */
};

/*
 * Build NAME.sh under root, run fn on every device NAME.udev lists and
 * compare, line by line and in order (gaps aside). Returns the number of
 * devices compared.
 */
int bx_compare(const atf_tc_t *tc, const char *name, const char *root, bx_builtin_fn fn,
	       const struct bx_gap *gaps);
