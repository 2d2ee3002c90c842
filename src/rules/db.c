/* SPDX-License-Identifier: MIT */
#include "rules/db.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void rules_db_init(struct rules_db *db)
{
	pthread_mutex_init(&db->lock, NULL);
	db->devices = (struct map)MAP_INIT;
}

static void free_record(void *p)
{
	if (p) {
		rules_record_free(p);
		free(p);
	}
}

void rules_db_fini(struct rules_db *db)
{
	map_clear(&db->devices, free_record);
	pthread_mutex_destroy(&db->lock);
}

static int copy_record(struct rules_record *dst, const struct rules_record *src)
{
	int r;

	memset(dst, 0, sizeof(*dst));
	r = props_copy(&dst->props, &src->props);
	if (r == 0)
		r = strv_copy(&dst->tags, &src->tags);
	if (r == 0)
		r = strv_copy(&dst->links, &src->links);
	dst->link_priority = src->link_priority;
	dst->persist = src->persist;
	dst->usec_initialized = src->usec_initialized;
	if (r < 0)
		rules_record_free(dst);
	return r;
}

bool rules_db_get(void *u, const char *devpath, struct rules_record *out)
{
	struct rules_db *db = u;
	const struct rules_record *rec;
	bool ok = false;

	pthread_mutex_lock(&db->lock);
	rec = map_get(&db->devices, devpath);
	if (rec)
		ok = copy_record(out, rec) == 0;
	pthread_mutex_unlock(&db->lock);
	return ok;
}

/* devpath's record becomes rec (owned; NULL: none). */
static int replace(struct rules_db *db, const char *devpath, struct rules_record *rec)
{
	void *old = NULL;
	int r = 0;

	pthread_mutex_lock(&db->lock);
	map_remove(&db->devices, devpath, &old);
	if (rec)
		r = map_put(&db->devices, devpath, rec);
	pthread_mutex_unlock(&db->lock);
	free_record(old);
	if (r < 0)
		free_record(rec);
	return r;
}

int rules_db_store(struct rules_db *db, const struct rules_event *ev)
{
	struct rules_record *rec = NULL;
	int r;

	if (!ev->remove) {
		rec = malloc(sizeof(*rec));
		if (!rec)
			return -ENOMEM;
		r = rules_record_from_event(rec, ev);
		if (r < 0) {
			free(rec);
			return r;
		}
	}
	return replace(db, ev->devpath, rec);
}

int rules_db_put(struct rules_db *db, const char *devpath, const struct rules_record *rec)
{
	struct rules_record *copy = malloc(sizeof(*copy));
	int r;

	if (!copy)
		return -ENOMEM;
	r = copy_record(copy, rec);
	if (r < 0) {
		free(copy);
		return r;
	}
	return replace(db, devpath, copy);
}

size_t rules_db_count(struct rules_db *db)
{
	size_t n;

	pthread_mutex_lock(&db->lock);
	n = db->devices.n;
	pthread_mutex_unlock(&db->lock);
	return n;
}
