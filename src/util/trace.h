/* SPDX-License-Identifier: MIT */
/*
 * The daemon's trace, for `initdev report`: when each device's trigger was
 * written, its event received, how long each handler took on it, and each
 * module insertion's start, end and result. Times are microseconds since
 * the daemon's start (CLOCK_MONOTONIC).
 *
 * Bounded: a fixed array of slots, allocated once, nothing per record.
 * The first quarter keeps the first records of the run (start-up, preload,
 * the first drivers); the other three quarters are a ring of the newest.
 * When the slots are full, the oldest record of the ring is overwritten: a
 * long run loses its middle, and the count of records lost is kept.
 *
 * Thread-safe without a lock: a writer (any thread) reserves its slot with
 * one atomic add and stamps it once the record is complete; a reader takes
 * a record only if its stamp is the same before and after the copy. Writers
 * never wait. The names of handlers and the phase marks are written by the
 * main thread alone. Every function takes a NULL trace and then does nothing.
 *
 * Names are stored as given, cut to fit: a devpath keeps its tail, behind
 * "..." (the same devpath is always cut the same way).
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_SLOTS_DEFAULT 8192 /* 1.25 MiB; pages are touched as records come */
#define TRACE_HANDLERS_MAX 8
#define TRACE_HANDLER_NAME_MAX 16
#define TRACE_DEVPATH_MAX 96 /* bytes with the NUL */
#define TRACE_SUBSYSTEM_MAX 16
#define TRACE_ACTION_MAX 8
#define TRACE_MODULE_MAX 64 /* the kernel's MODULE_NAME_LEN is 56 */
#define TRACE_MARKS_MAX 64

enum trace_kind {
	TRACE_TRIGGER = 1, /* t: written; devpath */
	TRACE_EVENT,       /* t: received from the socket; seqnum, action, subsystem, devpath */
	TRACE_HANDLED,     /* t: first handler began; dur: all of them; hdur[i]: handler i */
	TRACE_MODULE, /* t: insertion began; dur; result; module; seqnum of its event (0: rd.driver.pre) */
};

enum {
	TRACE_WORKER = 1, /* handled on a worker thread (else on the main thread) */
	TRACE_CUT = 2,    /* a name was cut to fit */
};

struct trace_rec {
	uint64_t t;
	uint64_t seqnum;
	uint32_t dur;
	int32_t result; /* TRACE_MODULE: libkmod's insertion result (0, >0 blacklisted, -errno) */
	uint8_t kind;
	uint8_t flags;
	uint8_t nhandlers; /* TRACE_HANDLED */
	uint8_t unused[5];
	union {
		struct {
			char action[TRACE_ACTION_MAX];
			char subsystem[TRACE_SUBSYSTEM_MAX];
			char devpath[TRACE_DEVPATH_MAX];
		} dev; /* TRACE_TRIGGER (devpath only), TRACE_EVENT */
		uint32_t hdur[TRACE_HANDLERS_MAX];
		char module[TRACE_MODULE_MAX];
	} u;
};

struct trace_mark {
	uint64_t t;
	const char *name; /* static */
};

struct trace_slot;

struct trace {
	struct trace_slot *slots; /* NULL: records nothing */
	size_t cap;
	size_t keep;           /* records 0..keep-1 are never overwritten */
	_Atomic uint64_t next; /* records ever reserved */
	uint64_t start;        /* CLOCK_MONOTONIC usec of time 0 */
	char handler[TRACE_HANDLERS_MAX][TRACE_HANDLER_NAME_MAX];
	unsigned int nhandlers;
	struct trace_mark marks[TRACE_MARKS_MAX];
	unsigned int nmarks;
	uint64_t marks_dropped;
	uint64_t log_dropped; /* the daemon's log lines kept out of /dev/kmsg (set
			       * by whoever writes the file, util/log.h) */
};

/* slots >= 4. 0, or -ENOMEM (the trace then records nothing). */
int trace_init(struct trace *t, size_t slots, uint64_t start_usec);
void trace_fini(struct trace *t);

/* Microseconds since start; 0 for a NULL trace. */
uint64_t trace_now(const struct trace *t);

void trace_trigger(struct trace *t, const char *devpath);
void trace_event(struct trace *t, uint64_t seqnum, const char *action, const char *subsystem,
		 const char *devpath);
/* Main thread: phase changes and the like (name must be static). */
void trace_mark(struct trace *t, const char *name);
/* Main thread, before any worker runs: handler i's name. */
void trace_name_handler(struct trace *t, unsigned int i, const char *name);

/* One event through the handlers: begin, a step after handler i, end. */
struct trace_span {
	uint64_t start, last;
	uint32_t dur[TRACE_HANDLERS_MAX];
	unsigned int n;
};
void trace_span_begin(const struct trace *t, struct trace_span *s);
void trace_span_step(const struct trace *t, struct trace_span *s, unsigned int i);
void trace_span_end(struct trace *t, const struct trace_span *s, uint64_t seqnum, bool worker);

/* A module insertion that began at start (trace_now) ended now with result. */
void trace_module(struct trace *t, uint64_t start, const char *name, uint64_t seqnum, int result);

struct trace_totals {
	uint64_t written; /* records ever made */
	uint64_t kept;    /* passed to fn */
	uint64_t dropped; /* overwritten, or still being written */
};

/*
 * fn(u, rec) for every complete record, in the order they were reserved:
 * the kept first records, then the ring, oldest first. Safe while writers
 * run (a record being written is left out, counted as dropped).
 */
void trace_foreach(const struct trace *t, void (*fn)(void *u, const struct trace_rec *r), void *u,
		   struct trace_totals *tot);
