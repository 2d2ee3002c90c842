/* SPDX-License-Identifier: MIT */
/*
 * The trace as a file (RUN/trace): written by the daemon at a handoff, at
 * exit and on request, read back by `initdev report`. Version 1 is a line
 * format, one record a line, fields separated by one space, names escaped
 * so that no field holds a blank (bytes outside '!'..'~', and the
 * backslash, are written \xNN). Times are microseconds since the daemon's
 * start. docs/populator.md describes every line:
 *
 *   initdev-trace 1
 *   start_monotonic_us US | capacity N | dropped N | marks_dropped N | log_dropped N
 *   phase T NAME
 *   trigger T DEVPATH
 *   event T SEQNUM ACTION SUBSYSTEM DEVPATH
 *   handled T SEQNUM main|worker HANDLER=US...
 *   module T US SEQNUM RESULT NAME
 *   end T
 *
 * The reader treats the file as hostile (it may be cut short or edited by
 * hand): every line, number and name is checked and bounded, and the first
 * error is reported with its line and byte offset. A parsed log keeps names
 * in their escaped form: printable ASCII without blanks, safe to print.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/trace.h"

#define TRACE_FILE_VERSION 1
#define TRACE_FILE_NAME "trace"
#define TRACE_FILE_MAX (16u << 20)         /* bytes a reader accepts */
#define TRACE_LINE_MAX 1024                /* bytes in a line, without the newline */
#define TRACE_LOG_ENTRIES_MAX (1u << 17)   /* records a reader accepts */
#define TRACE_TIME_MAX 1000000000000000ull /* 31 years in microseconds */

/* Write the trace: 0 or -errno. */
int trace_file_write(const struct trace *t, int fd);

/* Write dir/trace (through dir/trace.new and a rename): 0 or -errno. */
int trace_file_save(const struct trace *t, const char *dir);

/* A module's result as the file writes it (loaded, blacklisted, already,
 * no-device, error:ERRNO), from libkmod's insertion result. */
#define TRACE_RESULT_MAX 24
const char *trace_module_result(int result, char buf[TRACE_RESULT_MAX]);

struct trace_entry {
	uint64_t t, dur, seqnum;
	uint8_t kind; /* enum trace_kind */
	bool worker;  /* handled: on a worker thread */
	uint8_t nh;   /* handled: hdur[0..nh) by index into log->handler */
	int result;   /* module: 0 loaded, 1 blacklisted, -EEXIST already,
				  * -ENODEV no device, else -errno */
	uint32_t hdur[TRACE_HANDLERS_MAX];
	const char *action, *subsystem, *name; /* escaped; name: devpath or module */
	uint32_t line;
	size_t offset; /* of the line, in the file */
};

struct trace_log {
	char *buf; /* the file's bytes; fields point into it */
	unsigned int version;
	uint64_t start_monotonic_us, capacity, dropped, marks_dropped, log_dropped, end;
	char handler[TRACE_HANDLERS_MAX][TRACE_HANDLER_NAME_MAX]; /* as first met */
	unsigned int nhandlers;
	struct {
		uint64_t t;
		const char *name;
		uint32_t line;
		size_t offset;
	} phase[TRACE_MARKS_MAX];
	unsigned int nphases;
	struct trace_entry *e;
	size_t n;
};

struct trace_error {
	uint32_t line; /* 1-based; 0: the file as a whole */
	size_t offset; /* of the line's first byte */
	char why[192]; /* safe to print */
};

/* Parse data[0..len). 0, -EINVAL (err says what and where) or -ENOMEM. */
int trace_log_parse(struct trace_log *log, const char *data, size_t len, struct trace_error *err);

/* Read and parse the file at path: as trace_log_parse, or -errno if it
 * cannot be read (-EFBIG above TRACE_FILE_MAX). */
int trace_log_load(struct trace_log *log, const char *path, struct trace_error *err);

void trace_log_free(struct trace_log *log);
