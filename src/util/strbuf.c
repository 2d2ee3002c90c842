/* SPDX-License-Identifier: MIT */
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>

void strbuf_init(struct strbuf *b, char *buf, size_t size)
{
	*b = (struct strbuf){ .buf = buf, .size = size };
	if (size > 0)
		buf[0] = '\0';
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	size_t room = b->size > b->len ? b->size - b->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? b->buf + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->needed += (size_t)n;
	if ((size_t)n < room)
		b->len += (size_t)n;
	else if (room)
		b->buf[b->len] = '\0'; /* undo the cut piece */
}

bool strbuf_truncated(const struct strbuf *b)
{
	return b->needed > b->len;
}
