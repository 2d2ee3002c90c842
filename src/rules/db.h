/* SPDX-License-Identifier: MIT */
/*
 * What udev keeps in /run/udev/data, kept in memory: per device, the
 * properties its rules set (IMPORT{db} in a later event reads them), its
 * tags and symlinks. Written after each event, dropped on remove.
 * Thread-safe: events of different devices run on different workers.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include "rules/rules.h"
#include "util/map.h"

struct rules_db {
	pthread_mutex_t lock;
	struct map devices; /* devpath -> struct rules_record * */
};

void rules_db_init(struct rules_db *db);
void rules_db_fini(struct rules_db *db);

/* A copy of devpath's record into out (a rules_record_fn: pass the db as u). */
bool rules_db_get(void *db, const char *devpath, struct rules_record *out);

/* After ev's rules ran: keep its record, or drop it on remove. 0 or -ENOMEM. */
int rules_db_store(struct rules_db *db, const struct rules_event *ev);

/* Keep a copy of rec as devpath's record (read back from elsewhere: a udev database). 0 or -ENOMEM. */
int rules_db_put(struct rules_db *db, const char *devpath, const struct rules_record *rec);

/* Records kept now. */
size_t rules_db_count(struct rules_db *db);
