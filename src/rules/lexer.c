/* SPDX-License-Identifier: MIT */
#include "rules/lexer.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"

#define BLANKS " \t\n\r"

int lexer_init(struct lexer *lx, const char *text, size_t len)
{
	*lx = (struct lexer){ .text = text, .end = text + len, .pos = text };
	lx->buf = malloc(RULES_LINE_MAX);
	return lx->buf ? 0 : -ENOMEM;
}

void lexer_fini(struct lexer *lx)
{
	free(lx->buf);
	lx->buf = NULL;
}

/* One physical line: [*start, *len); false at the end of the text. */
static bool physical(struct lexer *lx, const char **start, size_t *len)
{
	const char *p = lx->pos;

	if (p >= lx->end)
		return false;
	*start = p;
	while (p < lx->end && *p != '\n' && *p != '\r' && *p != '\0')
		p++;
	*len = (size_t)(p - *start);
	if (p < lx->end && *p == '\r' && p + 1 < lx->end && p[1] == '\n')
		p++;
	lx->pos = p < lx->end ? p + 1 : p;
	lx->lineno++;
	return true;
}

static size_t skip_blanks(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(BLANKS, s[i]) && s[i])
		i++;
	return i;
}

enum lexer_result lexer_next(struct lexer *lx, char **line, unsigned int *lineno)
{
	size_t used = 0;
	bool cont = false, too_long = false;
	const char *s;
	size_t len;
	char last;

	while (physical(lx, &s, &len)) {
		size_t skip;

		if (len >= RULES_LINE_MAX)
			return LEXER_PHYSICAL_TOO_LONG;
		skip = skip_blanks(s, len);
		s += skip;
		len -= skip;
		if (len > 0 && s[0] == '#')
			continue;
		if (cont && !too_long && used + len >= RULES_LINE_MAX)
			too_long = true;
		if (!too_long) {
			memcpy(lx->buf + used, s, len);
			used += len;
			last = used > 0 ? lx->buf[used - 1] : '\0';
		} else {
			last = len > 0 ? s[len - 1] : '\0';
		}
		if (last == '\\') {
			if (!too_long)
				used--;
			cont = true;
			continue;
		}
		*lineno = lx->lineno;
		if (too_long)
			return LEXER_TOO_LONG;
		if (used == 0) {
			cont = false;
			continue;
		}
		lx->buf[used] = '\0';
		*line = lx->buf;
		return LEXER_LINE;
	}
	/* a continuation at the end of the file is dropped, as udev drops it */
	return LEXER_END;
}

static int parse_op(const char *s, int *op)
{
	static const struct {
		const char *t;
		int op;
	} ops[] = {
		{ "==", ROP_MATCH },  { "!=", ROP_NOMATCH }, { "+=", ROP_ADD },
		{ "-=", ROP_REMOVE }, { "=", ROP_ASSIGN },   { ":=", ROP_ASSIGN_FINAL },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].t);

		if (strncmp(s, ops[i].t, n) == 0) {
			*op = ops[i].op;
			return (int)n;
		}
	}
	return -EINVAL;
}

/* The quoted value at s; *next after its closing quote. */
static int parse_value(char *s, char **value, char **next, const char **why)
{
	bool esc = s[0] == 'e';
	char *i, *j;

	s += esc;
	if (s[0] != '"') {
		*why = "value is not double-quoted";
		return -EINVAL;
	}
	if (!esc) {
		for (j = s, i = s + 1; *i != '"'; i++, j++) {
			if (*i == '\0') {
				*why = "missing closing quote";
				return -EINVAL;
			}
			if (i[0] == '\\' && i[1] == '"')
				i++;
			*j = *i;
		}
		j[0] = '\0';
		j[1] = '\0';
		*value = s;
		*next = i + 1;
		return 0;
	}
	for (i = s + 1; *i != '"'; i++) {
		if (i[0] == '\\')
			i++;
		if (*i == '\0') {
			*why = "missing closing quote";
			return -EINVAL;
		}
	}
	{
		size_t n;

		*i = '\0';
		if (lexer_cunescape(s + 1, (size_t)(i - (s + 1)), s, &n) < 0) {
			*why = "bad escape in e\"\" value";
			return -EINVAL;
		}
		s[n + 1] = '\0';
	}
	*value = s;
	*next = i + 1;
	return 0;
}

int lexer_pair(char **p, char **key, char **attr, int *op, char **value, const char **why)
{
	char *k = *p + strspn(*p, BLANKS ","), *e, *t;
	int n;

	if (*k == '\0')
		return 0;
	for (e = k;; e++) {
		if (*e == '\0') {
			*why = "key without operator";
			return -EINVAL;
		}
		if (strchr(BLANKS "={", *e) || (strchr("+-!:", *e) && e[1] == '='))
			break;
	}
	*attr = NULL;
	t = e;
	if (*e == '{') {
		*attr = e + 1;
		t = strchr(*attr, '}');
		if (!t) {
			*why = "missing '}'";
			return -EINVAL;
		}
		*t++ = '\0';
	}
	t += strspn(t, BLANKS);
	n = parse_op(t, op);
	if (n < 0) {
		*why = "unknown operator";
		return -EINVAL;
	}
	*e = '\0';
	t += n;
	t += strspn(t, BLANKS);
	if (parse_value(t, value, p, why) < 0)
		return -EINVAL;
	*key = k;
	return 1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t utf8_put(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* \x, \u, \U: n hex digits at s into *c. */
static int hex_digits(const char *s, size_t avail, int n, uint32_t *c)
{
	*c = 0;
	if ((size_t)n > avail)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		int v = hexval(s[i]);

		if (v < 0)
			return -EINVAL;
		*c = (*c << 4) | (uint32_t)v;
	}
	return 0;
}

/* One escape after the backslash; returns bytes consumed or -EINVAL. */
static int unescape_one(const char *s, size_t avail, char *out, size_t *w)
{
	static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\\"\"''s ";
	uint32_t c;
	const char *m;

	if (avail == 0)
		return -EINVAL;
	m = strchr(simple, s[0]);
	if (m && s[0] && ((m - simple) % 2) == 0) {
		out[(*w)++] = m[1];
		return 1;
	}
	switch (s[0]) {
	case 'x':
		if (hex_digits(s + 1, avail - 1, 2, &c) < 0 || c == 0)
			return -EINVAL;
		out[(*w)++] = (char)c;
		return 3;
	case 'u':
	case 'U': {
		int n = s[0] == 'u' ? 4 : 8;

		if (hex_digits(s + 1, avail - 1, n, &c) < 0 || c == 0 || c > 0x10ffff ||
		    (c >= 0xd800 && c <= 0xdfff))
			return -EINVAL;
		*w += utf8_put(out + *w, c);
		return n + 1;
	}
	default:
		if (s[0] >= '0' && s[0] <= '7' && avail >= 3) {
			c = 0;
			for (int i = 0; i < 3; i++) {
				if (s[i] < '0' || s[i] > '7')
					return -EINVAL;
				c = c * 8 + (uint32_t)(s[i] - '0');
			}
			if (c == 0 || c > 0xff)
				return -EINVAL;
			out[(*w)++] = (char)c;
			return 3;
		}
		return -EINVAL;
	}
}

int lexer_cunescape(const char *in, size_t inlen, char *out, size_t *outlen)
{
	size_t w = 0;

	for (size_t i = 0; i < inlen;) {
		int n;

		if (in[i] != '\\') {
			out[w++] = in[i++];
			continue;
		}
		n = unescape_one(in + i + 1, inlen - i - 1, out, &w);
		if (n < 0)
			return -EINVAL;
		i += 1 + (size_t)n;
	}
	out[w] = '\0';
	*outlen = w;
	return 0;
}
