/* SPDX-License-Identifier: MIT */
/*
 * Module loading through libkmod: MODALIAS -> modules -> probe-insert with
 * the blacklist applied. One struct modload is shared by all workers; each
 * worker thread owns one struct modload_worker (its own kmod context, as
 * libkmod contexts are not thread-safe).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handlers/handler.h"
#include "util/log.h"
#include "util/map.h"
#include "util/trace.h"

struct modload_stats {
	uint64_t loaded;        /* inserted by us */
	uint64_t failed;        /* insertion failed (logged with the error) */
	uint64_t blacklisted;   /* refused by cmdline or modprobe.d blacklist */
	uint64_t already;       /* built in, or live before we got to it */
	uint64_t aliases;       /* distinct aliases looked up */
	uint64_t unresolved;    /* aliases no module claims (normal) */
};

struct modload {
	char *modules_dir;          /* NULL: libkmod's default for uname -r */
	const char *const *config_paths; /* NULL: libkmod's modprobe.d defaults */
	const struct logger *log;
	pthread_mutex_t lock;       /* guards everything below */
	struct map blacklist;    /* normalised names, from the command line */
	struct map aliases_seen;
	struct map modules;      /* claimed by a worker: loading or done */
	unsigned int inflight;      /* modules being inserted right now */
	struct modload_stats stats;
	struct trace *trace;        /* each insertion's time and result; NULL: not */
};

struct modload_worker {
	struct kmod_ctx *ctx;       /* created on first use */
	struct modload *m;
	uint64_t seqnum;            /* of the event being handled (the trace); 0 none */
};

/*
 * modules_dir: e.g. /lib/modules/6.1.0-amd64 (NULL for the running kernel's).
 * config_paths: NULL-terminated list of modprobe.d directories (NULL: default).
 * blacklist: n module names (from the command line). Returns 0 or -errno.
 */
int modload_init(struct modload *m, const char *modules_dir,
		 const char *const *config_paths, char *const *blacklist, size_t n,
		 const struct logger *log);
void modload_fini(struct modload *m);

void modload_worker_init(struct modload_worker *w, struct modload *m);
void modload_worker_fini(struct modload_worker *w);

/*
 * Load every module modalias resolves to (with dependencies). An alias seen
 * before, and modules claimed by another worker, are skipped. Returns 0, or
 * -errno if something failed (logged and counted; the caller goes on).
 */
int modload_alias(struct modload_worker *w, const char *modalias);

/* Load a module by name (rd.driver.pre). Same return as modload_alias. */
int modload_name(struct modload_worker *w, const char *name);

/* True if there is a module tree to load from (its modules.dep.bin). */
bool modload_has_modules(const struct modload *m);

/* rd.driver.pre: load names[0..n) by name, in order, on the calling thread. */
void modload_preload(struct modload *m, char *const *names, size_t n);

/* The handler (ctx: struct modload): MODALIAS of add events, on workers. */
extern const struct handler_ops modload_handler;

/* A snapshot of the counters (and inflight), taken under the lock. */
void modload_snapshot(struct modload *m, struct modload_stats *s, unsigned int *inflight);

/* '-' -> '_' into out (size bytes); false if it does not fit or is empty. */
bool modload_normalize(char *out, size_t size, const char *name);
