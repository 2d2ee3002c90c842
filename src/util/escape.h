/* SPDX-License-Identifier: MIT */
/* Render outside bytes safely: for log lines and for JSON strings. */
#pragma once

#include <stddef.h>

/*
 * Copy at most inlen bytes of in to out as printable ASCII: bytes outside
 * 0x20..0x7e, and backslash and double quote, become \xNN. Always
 * NUL-terminates (if outlen > 0); an output that does not fit ends in "...".
 * Returns out, so it can be used inside a printf argument list.
 */
char *escape_log(char *out, size_t outlen, const char *in, size_t inlen);

/*
 * Append a JSON string literal (with quotes) for in[0..inlen) to out.
 * Control characters, quote and backslash are escaped; bytes >= 0x80 that do
 * not form valid UTF-8 become \u00XX of the byte (so the output is always
 * valid UTF-8 JSON). Returns the length needed (excluding NUL), like
 * snprintf; out is NUL-terminated when outlen > 0.
 */
size_t escape_json(char *out, size_t outlen, const char *in, size_t inlen);
