/* SPDX-License-Identifier: MIT */
/*
 * udev's hardware database (hwdb.bin, written by systemd-hwdb update),
 * read natively: the trie of modalias patterns and the properties each
 * pattern gives, looked up as sd-hwdb looks them up (fnmatch over the
 * patterns' trie, a later or higher-priority entry of a key replacing an
 * earlier one, keys in first-seen order).
 *
 * Why not sd-hwdb through dlopen: sd-hwdb maps the file and follows its
 * offsets unchecked, so a truncated or corrupt hwdb.bin crashes the
 * process; initdev would also need libsystemd in images that have none.
 *
 * Hostile: the whole file. It is read into memory once (at most
 * HWDB_FILE_MAX bytes, so a later change of the file cannot reach a
 * lookup), and every offset, count, size and string is checked against
 * the file before it is used; recursion and the nodes one lookup visits
 * are bounded. A struct hwdb is read-only after hwdb_load: lookups are
 * thread-safe.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define HWDB_FILE_MAX (256u << 20) /* Debian 12's is about 12 MiB */
#define HWDB_PROPS_MAX 1024        /* distinct keys one lookup gives */

struct hwdb {
	unsigned char *data; /* owned unless borrowed */
	size_t size;
	int borrowed;
	uint64_t node_size, child_size, value_size, root;
};

/* udev's places for hwdb.bin, searched in order (NULL-terminated). */
extern const char *const hwdb_default_paths[];

/*
 * Read the first of paths that exists and check its header; why (may be
 * NULL) says what was wrong with it. -ENOENT if none exists, -EBADMSG if
 * it is not a hwdb.bin udev would read, -EFBIG, -errno. hwdb_close after
 * a failure is safe.
 */
int hwdb_open(struct hwdb *h, const char *const *paths, const char **found, const char **why);
/* The same over bytes the caller keeps (fuzzing, tests). */
int hwdb_load(struct hwdb *h, const void *data, size_t size, const char **why);
void hwdb_close(struct hwdb *h);

typedef int (*hwdb_prop_fn)(void *u, const char *key, const char *value);

/*
 * The properties for modalias, in udev's order, through fn. Returns how
 * many; -EBADMSG if the lookup ran into a corrupt part of the file
 * (nothing given then), -E2BIG past HWDB_PROPS_MAX keys, or what fn
 * returned.
 */
int hwdb_lookup(const struct hwdb *h, const char *modalias, hwdb_prop_fn fn, void *u);
