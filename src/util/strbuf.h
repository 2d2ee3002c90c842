/* SPDX-License-Identifier: MIT */
/*
 * Appending formatted text to a fixed buffer (replies, status, property
 * lists). A piece that does not fit is left out whole, so what is in the
 * buffer is always a run of complete pieces (lines, JSON members); needed
 * says how much all of them would have taken.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *buf;      /* NUL-terminated whenever size > 0 */
	size_t size;
	size_t len;     /* bytes in buf */
	size_t needed;  /* bytes every piece would take (> len if any was left out) */
};

void strbuf_init(struct strbuf *b, char *buf, size_t size);

__attribute__((format(printf, 2, 3)))
void strbuf_printf(struct strbuf *b, const char *fmt, ...);

/* True if a piece was left out. */
bool strbuf_truncated(const struct strbuf *b);
