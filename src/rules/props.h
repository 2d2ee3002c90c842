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
/* Set from "KEY=VALUE" (db false: from the event). */
int props_set_pair(struct props *p, const char *pair, bool db);
const char *props_get(const struct props *p, const char *key);
void props_clear(struct props *p);
/* Copy every property of src into dst (as set, keeping db marks). */
int props_copy(struct props *dst, const struct props *src);

struct strv {
	char **v;
	size_t n, cap;
};

#define STRV_INIT \
	{         \
		0 \
	}
#define STRV_MAX 1024

/* Add s unless present: 1 added, 0 present, -E2BIG, -ENOMEM. */
int strv_add(struct strv *s, const char *str);
bool strv_contains(const struct strv *s, const char *str);
void strv_remove(struct strv *s, const char *str);
void strv_clear(struct strv *s);
int strv_copy(struct strv *dst, const struct strv *src);
