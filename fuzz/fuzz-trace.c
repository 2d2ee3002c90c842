/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the trace file reader and everything `initdev report`
 * does with what it accepts: a rejected file says where; an accepted one
 * keeps its bounds (times inside the trace, names printable and blank-free,
 * counts bounded), and the model, the JSON and the SVG are made from it
 * without a fault.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "util/trace-file.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static void check_name(const char *s)
{
	CHECK(s != NULL && s[0] != '\0');
	CHECK(strlen(s) <= TRACE_LINE_MAX);
	for (const char *p = s; *p; p++)
		CHECK(*p > 0x20 && *p < 0x7f);
}

static void check_log(const struct trace_log *log, size_t size)
{
	CHECK(log->version == TRACE_FILE_VERSION);
	CHECK(log->n <= TRACE_LOG_ENTRIES_MAX && log->n <= size / 8);
	CHECK(log->nphases <= TRACE_MARKS_MAX && log->nhandlers <= TRACE_HANDLERS_MAX);
	CHECK(log->end <= TRACE_TIME_MAX);
	for (unsigned int i = 0; i < log->nphases; i++) {
		CHECK(log->phase[i].t <= log->end);
		check_name(log->phase[i].name);
	}
	for (unsigned int i = 0; i < log->nhandlers; i++)
		check_name(log->handler[i]);
	for (size_t i = 0; i < log->n; i++) {
		const struct trace_entry *e = &log->e[i];

		CHECK(e->kind >= TRACE_TRIGGER && e->kind <= TRACE_MODULE);
		CHECK(e->t <= log->end && e->dur <= log->end - e->t);
		CHECK(e->nh <= log->nhandlers);
		CHECK(e->line > 0 && e->offset < size);
		if (e->kind != TRACE_HANDLED)
			check_name(e->name);
		if (e->kind == TRACE_EVENT) {
			check_name(e->action);
			check_name(e->subsystem);
		}
	}
}

static void check_report(const struct report *r, const struct trace_log *log)
{
	CHECK(r->nevents <= log->n && r->nmod <= log->n && r->ndev <= log->n);
	CHECK(r->nslow_dev <= REPORT_TOP && r->nslow_mod <= REPORT_TOP);
	for (size_t i = 0; i < r->ndev; i++) {
		CHECK(r->dev[i].first <= r->dev[i].last || r->dev[i].nev == 0);
		CHECK(r->dev[i].last <= log->end);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct trace_log log;
	struct trace_error err;
	struct report r;
	int e = trace_log_parse(&log, (const char *)data, size, &err);

	if (e < 0) {
		CHECK(e == -EINVAL || e == -ENOMEM);
		CHECK(log.e == NULL && log.buf == NULL);
		CHECK(e == -ENOMEM || (err.why[0] && err.line <= size + 1 && err.offset <= size));
		return 0;
	}
	check_log(&log, size);
	if (!null)
		null = fopen("/dev/null", "we");
	if (report_build(&r, &log) == 0) {
		check_report(&r, &log);
		report_print_json(&r, null);
		CHECK(report_write_svg(&r, "/dev/null") == 0);
		report_free(&r);
	}
	trace_log_free(&log);
	return 0;
}
