/* SPDX-License-Identifier: MIT */
/*
 * A string-keyed hash map (open addressing) with an optional value per key.
 * Keys are copied. Not thread-safe: callers that share one hold a lock.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct map_entry {
	char *key;   /* NULL: empty slot */
	void *value;
	bool tomb;   /* deleted slot, keeps probe chains intact */
};

struct map {
	struct map_entry *slots;
	size_t cap;  /* power of two, or 0 */
	size_t n;    /* live keys */
	size_t used; /* live + tombstones */
};

#define MAP_INIT { 0 }

/* Add key; returns 1 if added, 0 if it was present (value untouched), -ENOMEM. */
int map_add(struct map *s, const char *key, void *value);
bool map_contains(const struct map *s, const char *key);
/* Value stored for key (NULL if absent or stored as NULL). */
void *map_get(const struct map *s, const char *key);
/* Replace or insert the value; -ENOMEM on failure. */
int map_put(struct map *s, const char *key, void *value);
/* Remove key; returns its value through *value if not NULL; true if it was there. */
bool map_remove(struct map *s, const char *key, void **value);
/* Call fn for every live entry; stops early if fn returns false. */
void map_foreach(const struct map *s,
		    bool (*fn)(void *userdata, const char *key, void *value),
		    void *userdata);
/* Free keys (and values with free_value if not NULL), then the table. */
void map_clear(struct map *s, void (*free_value)(void *));
