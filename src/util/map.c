/* SPDX-License-Identifier: MIT */
#include "util/map.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a: short keys, no adversary can choose enough of them to matter
 * (every key set is bounded by the number of devices or modules) */
static uint64_t hash(const char *k)
{
	uint64_t h = 1469598103934665603ull;

	for (; *k; k++)
		h = (h ^ (unsigned char)*k) * 1099511628211ull;
	return h;
}

/* Slot holding key, or the first free slot for it; NULL if the table is empty. */
static struct map_entry *find(const struct map *s, const char *key, bool for_insert)
{
	struct map_entry *first_tomb = NULL;

	if (s->cap == 0)
		return NULL;
	for (size_t i = hash(key) & (s->cap - 1), probes = 0; probes < s->cap;
	     i = (i + 1) & (s->cap - 1), probes++) {
		struct map_entry *e = &s->slots[i];

		if (!e->key && !e->tomb)
			return for_insert && first_tomb ? first_tomb : (for_insert ? e : NULL);
		if (e->tomb) {
			if (!first_tomb)
				first_tomb = e;
		} else if (strcmp(e->key, key) == 0) {
			return e;
		}
	}
	return for_insert ? first_tomb : NULL;
}

static int grow(struct map *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 16;
	struct map old = *s;

	s->slots = calloc(ncap, sizeof(*s->slots));
	if (!s->slots) {
		*s = old;
		return -ENOMEM;
	}
	s->cap = ncap;
	s->n = s->used = 0;
	for (size_t i = 0; i < old.cap; i++) {
		struct map_entry *e = &old.slots[i];

		if (e->key) {
			*find(s, e->key, true) = (struct map_entry){ e->key, e->value, false };
			s->n++;
			s->used++;
		}
	}
	free(old.slots);
	return 0;
}

static int insert(struct map *s, const char *key, void *value, bool replace)
{
	struct map_entry *e = find(s, key, false);

	if (e) {
		if (replace)
			e->value = value;
		return 0;
	}
	if ((s->used + 1) * 4 > s->cap * 3 && grow(s) < 0)
		return -ENOMEM;
	e = find(s, key, true);
	char *copy = strdup(key);

	if (!copy)
		return -ENOMEM;
	if (!e->tomb)
		s->used++;
	*e = (struct map_entry){ copy, value, false };
	s->n++;
	return 1;
}

int map_add(struct map *s, const char *key, void *value)
{
	return insert(s, key, value, false);
}

int map_put(struct map *s, const char *key, void *value)
{
	int r = insert(s, key, value, true);

	return r < 0 ? r : 0;
}

bool map_contains(const struct map *s, const char *key)
{
	return find(s, key, false) != NULL;
}

void *map_get(const struct map *s, const char *key)
{
	struct map_entry *e = find(s, key, false);

	return e ? e->value : NULL;
}

bool map_remove(struct map *s, const char *key, void **value)
{
	struct map_entry *e = find(s, key, false);

	if (!e)
		return false;
	if (value)
		*value = e->value;
	free(e->key);
	*e = (struct map_entry){ NULL, NULL, true };
	s->n--;
	return true;
}

void map_foreach(const struct map *s,
		    bool (*fn)(void *userdata, const char *key, void *value),
		    void *userdata)
{
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].key && !fn(userdata, s->slots[i].key, s->slots[i].value))
			return;
}

void map_clear(struct map *s, void (*free_value)(void *))
{
	for (size_t i = 0; i < s->cap; i++) {
		if (s->slots[i].key) {
			free(s->slots[i].key);
			if (free_value)
				free_value(s->slots[i].value);
		}
	}
	free(s->slots);
	*s = (struct map)MAP_INIT;
}
