/* SPDX-License-Identifier: MIT */
/*
 * A device's properties as udev keeps them: an ordered KEY=VALUE list (the
 * order `udevadm test` prints), each marked whether it goes to the device's
 * database (set by a rule or a builtin) or came with the event. And an
 * ordered set of strings, for tags and symlinks.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define PROPS_MAX 1024 /* properties of one device */
#define PROPS_KEY_MAX 256
#define PROPS_VALUE_MAX 16384 /* udev's UDEV_LINE_SIZE: the longest IMPORTed value */

struct prop {
	char *key;
	char *value;
	bool db; /* set by rules: persisted with the device */
};

struct props {
	struct prop *v;
	size_t n, cap;
};

#define PROPS_INIT \
	{          \
		0  \
	}

/*
 * Set key to value (replacing in place, or appending); value NULL removes
 * the key. db marks it for the database. -EINVAL for an empty key or one
 * with '=', -E2BIG past the bounds, -ENOMEM.
 */
int props_set(struct props *p, const char *key, const char *value, bool db);
/*
 * props_set with a longer bound than PROPS_VALUE_MAX, for the lists udev
 * builds itself (DEVLINKS, TAGS from a strv): max bytes with the NUL.
 */
int props_set_long(struct props *p, const char *key, const char *value, bool db, size_t max);
/*
 * What a rule's ENV{KEY}= or an IMPORT sets: props_set, for the database
 * unless KEY starts with '.'. Built for udev 257 (UDEV_COMPAT), "" unsets
 * KEY, as 257 does (ENV{X}="$env{UNSET}", dmsetup splitname's
 * DM_LV_LAYER=''); 252 kept "KEY=" in the event and the database.
 */
int props_set_rule(struct props *p, const char *key, const char *value);
/* Set from "KEY=VALUE" (db false: from the event). */
int props_set_pair(struct props *p, const char *pair, bool db);
const char *props_get(const struct props *p, const char *key);
void props_clear(struct props *p);
/* Copy every property of src into dst (as set, keeping db marks). */
int props_copy(struct props *dst, const struct props *src);

struct strv {
	char **v;
	size_t n, cap;
	size_t bytes; /* of the strings, with their NULs */
};

#define STRV_INIT \
	{         \
		0 \
	}
/*
 * udev keeps no bound on a device's tags or links; initdev bounds each list
 * by its memory (STRV_BYTES_MAX bytes of strings) and, because a lookup is
 * a linear scan, by STRV_MAX entries: only a rules file with that many
 * TAG+= or SYMLINK+= words reaches either (udev's own suite gives a device
 * 10,000 tags).
 */
#define STRV_MAX 65536
#define STRV_BYTES_MAX (1024 * 1024)

/* Add s unless present: 1 added, 0 present, -E2BIG, -ENOMEM. */
int strv_add(struct strv *s, const char *str);
bool strv_contains(const struct strv *s, const char *str);
void strv_remove(struct strv *s, const char *str);
void strv_clear(struct strv *s);
int strv_copy(struct strv *dst, const struct strv *src);
