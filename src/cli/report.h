/* SPDX-License-Identifier: MIT */
/*
 * initdev report, internal to src/cli: a parsed trace (util/trace-file.h)
 * turned into devices and modules with their times, then printed as text,
 * JSON or an SVG timeline.
 *   report.c        the command: options, getting the trace, the text summary
 *   report-model.c  records -> devices (each event with its trigger and its
 *                   handling), modules, pending work, the rows of the picture
 *   report-json.c   --json
 *   report-svg.c    --svg FILE
 * Names stay in the trace's escaped form (printable ASCII, no blank).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/trace-file.h"

/* The picture: devices handled faster than this, or beyond the slowest
 * REPORT_DEVICE_ROWS, share one row per subsystem (a tick each). */
#define REPORT_FAST_US 1000
#define REPORT_DEVICE_ROWS 100
#define REPORT_MODULE_ROWS 100
#define REPORT_TOP 10 /* slowest devices and modules in the summary */

/* One event of a device, with the trigger that asked for it. */
struct report_event {
	const struct trace_entry *trigger; /* NULL: not ours, or lost */
	const struct trace_entry *ev;
	const struct trace_entry *handled; /* NULL: not handled by the end */
	bool pending;                      /* not handled, and not lost with the middle */
};

struct report_device {
	const char *devpath, *subsystem; /* subsystem "-" if no event was kept */
	struct report_event *ev;         /* nev, oldest first */
	size_t nev;
	const struct trace_entry *no_reply; /* a trigger after its last event */
	bool no_reply_pending;              /* ... and not lost with the middle */
	uint64_t first, last; /* first trigger or event .. last handled (or the end) */
	uint64_t handling;    /* time in handlers, all events */
	bool pending;         /* a trigger without reply, or an event not handled */
	bool row;             /* its own row in the picture (else folded) */
};

struct report_module {
	const struct trace_entry *e;
	const struct report_device *dev; /* whose event loaded it; NULL: preload or lost */
	bool row;
};

struct report {
	const struct trace_log *log;
	struct report_device *dev;
	size_t ndev;
	struct report_event *events;
	size_t nevents;
	struct report_module *mod;
	size_t nmod;
	const struct report_device **owner; /* by entry index: the device of an event */
	size_t triggers;
	size_t orphans; /* handled records whose event record was lost */
	bool coldplug;
	uint64_t coldplug_at; /* the first "coldplug" phase */
	bool settled;
	uint64_t settled_at;    /* the first "settled" after it (or at all, without one) */
	const char *last_phase; /* NULL if none */
	/* with records dropped: the gap between the kept first records and the ring */
	uint64_t gap_from, gap_to;
	size_t pending_triggers, pending_events;
	/* indexes into dev and mod, slowest first (at most REPORT_TOP) */
	size_t slow_dev[REPORT_TOP], nslow_dev;
	size_t slow_mod[REPORT_TOP], nslow_mod;
};

/* 0 or -ENOMEM. The log must outlive the report. */
int report_build(struct report *r, const struct trace_log *log);
void report_free(struct report *r);

/* The device's label in the picture: its devpath's last component. */
const char *report_device_label(const struct report_device *d);

void report_print_json(const struct report *r, FILE *f);
/* 0, or -errno writing it. */
int report_write_svg(const struct report *r, const char *path);
