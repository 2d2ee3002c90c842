/* SPDX-License-Identifier: MIT */
/*
 * A string-keyed hash map (open addressing) with an optional value per key.
 * Keys are copied. Not thread-safe: callers that share one hold a lock.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct strset_entry {
	char *key;   /* NULL: empty slot */
	void *value;
	bool tomb;   /* deleted slot, keeps probe chains intact */
};

struct strset {
	struct strset_entry *slots;
	size_t cap;  /* power of two, or 0 */
	size_t n;    /* live keys */
	size_t used; /* live + tombstones */
};

#define STRSET_INIT { 0 }

/* Add key; returns 1 if added, 0 if it was present (value untouched), -ENOMEM. */
int strset_add(struct strset *s, const char *key, void *value);
bool strset_contains(const struct strset *s, const char *key);
/* Value stored for key (NULL if absent or stored as NULL). */
void *strset_get(const struct strset *s, const char *key);
/* Replace or insert the value; -ENOMEM on failure. */
int strset_put(struct strset *s, const char *key, void *value);
/* Remove key; returns its value through *value if not NULL; true if it was there. */
bool strset_remove(struct strset *s, const char *key, void **value);
/* Call fn for every live entry; stops early if fn returns false. */
void strset_foreach(const struct strset *s,
		    bool (*fn)(void *userdata, const char *key, void *value),
		    void *userdata);
/* Free keys (and values with free_value if not NULL), then the table. */
void strset_clear(struct strset *s, void (*free_value)(void *));
