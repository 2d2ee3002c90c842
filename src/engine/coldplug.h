/* SPDX-License-Identifier: MIT */
/*
 * Coldplug, the triggers: ask the kernel to announce every device again,
 * each with a synthetic UUID so its reply can be recognised (settle.h), and
 * paced so that the socket and the queue stay small however many devices
 * there are.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/coldplug-scan.h"
#include "engine/settle.h"
#include "util/log.h"

#define COLDPLUG_UUID_LEN 36

/*
 * Write "ACTION UUID" (or just "ACTION" when uuid is NULL) to
 * sysfs/devpath/uevent. Returns 0 or -errno from open/write (-ENOENT: the
 * device went away; -EINVAL with a uuid: the kernel predates synthetic
 * uevents, retry without).
 */
int coldplug_trigger(const char *sysfs, const char *devpath, const char *action,
		     const char *uuid);

/* Random bytes for UUIDs, fetched a batch at a time (one syscall, not one
 * a device). Zero-initialise. */
struct coldplug_uuids {
	unsigned char pool[32 * 16];
	size_t left;             /* unused bytes at the end of pool */
};

/* A fresh random UUID (8-4-4-4-12 lowercase hex, version 4). 0 or -errno. */
int coldplug_new_uuid(struct coldplug_uuids *u, char out[COLDPLUG_UUID_LEN + 1]);

/* One coldplug pass: what is left to trigger, and how fast to go. */
struct coldplug_run {
	const char *sysfs;
	const struct logger *log;
	struct coldplug_list list; /* the walk's result; freed when done */
	size_t next;               /* index of the next trigger to write */
	unsigned int batch;        /* triggers per step; halved by each slow_down */
	bool active;
	bool unpaced;              /* test seam: write everything in one step */
	bool root_first;           /* rank the root path first (rank.h); set before begin */
	size_t nroot;              /* root-path devices at the head of the list */
	struct coldplug_uuids uuids;
	bool synth_ok;             /* the kernel takes "add UUID" (4.13+) */
	bool synth_proven;         /* at least one UUID write succeeded */
	uint64_t triggers, errors;
};

void coldplug_run_init(struct coldplug_run *r, const char *sysfs, bool unpaced,
		       const struct logger *log);
void coldplug_run_fini(struct coldplug_run *r);

/*
 * Walk each subtree ("/devices/..."; none: all of /devices) and start a pass
 * over what was found. A pass already running continues instead (it covers
 * the request). 0, or -errno (logged).
 */
int coldplug_run_begin(struct coldplug_run *r, const char *const *subtrees, unsigned int n);

/*
 * Pacing: true if a step would write triggers now, i.e. at most two batches
 * of replies are outstanding in s.
 */
bool coldplug_run_ready(const struct coldplug_run *r, const struct settle *s);

/*
 * Write the next batch, each trigger registered in s under its UUID.
 * Returns true when this step wrote the last one (the pass is over).
 */
bool coldplug_run_step(struct coldplug_run *r, struct settle *s);

/* Events were lost: the next pass goes slower (batch halved, paced). */
void coldplug_run_slow_down(struct coldplug_run *r);

/* Triggers not yet written in the current pass: all, or on the root path. */
size_t coldplug_run_left(const struct coldplug_run *r);
size_t coldplug_run_root_left(const struct coldplug_run *r);
