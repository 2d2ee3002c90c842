/* SPDX-License-Identifier: MIT */
/*
 * The one check for a value written into a line-based file someone else
 * parses: udev's database (/run/udev/data, read by the real root's udevd,
 * libudev, lvm), `initdev status` text, the trace file, JSON lines. A value
 * holding a line end would end its line early and forge the next one.
 *
 * What ends a line is what the strictest reader takes as one: systemd 252's
 * sd-device reads the database splitting on NEWLINE, "\n\r" (a carriage
 * return alone ends a line there), and so do its other line readers. So
 * both are refused everywhere, whatever the reader at hand. NUL cannot be
 * in a C string; a writer of counted bytes checks with oneline_ok_n.
 *
 * Every writer of such a file checks each outside value with these (or
 * escapes it, as escape_json and escape_log do, so no line end is written
 * raw): scripts/check-line-writers shows no other writer. Pure functions,
 * thread-safe.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The characters a line reader may end a line at (systemd's NEWLINE). */
#define ONELINE_ENDS "\n\r"

/* Room for oneline_why's text. */
#define ONELINE_WHY_MAX 64

/* True if s is not NULL and holds no line end: it can be written in one line. */
bool oneline_ok(const char *s);

/* The same for n counted bytes: a NUL is refused too (a C reader stops there). */
bool oneline_ok_n(const char *s, size_t n);

/*
 * Make s one line in place: each line end becomes a space. For text made
 * for people (a log line) where refusing would lose the whole message.
 * Returns how many were replaced.
 */
size_t oneline_flatten(char *s);

/*
 * Why s is not one line, safe to log: "holds a carriage return at byte 0"
 * (or "is missing" for NULL), written into why; returns why. "" if s is fine.
 */
const char *oneline_why(const char *s, char why[ONELINE_WHY_MAX]);
