/* SPDX-License-Identifier: MIT */
#include "util/escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char hexdigits[] = "0123456789abcdef";

char *escape_log(char *out, size_t outlen, const char *in, size_t inlen)
{
	size_t o = 0;

	if (outlen == 0)
		return out;
	for (size_t i = 0; i < inlen; i++) {
		unsigned char c = (unsigned char)in[i];
		bool plain = c >= 0x20 && c < 0x7f && c != '\\' && c != '"';
		size_t need = plain ? 1 : 4;

		if (o + need + 1 > outlen) {
			/* keep room for the ellipsis that says we cut */
			while (o > 0 && o + 4 > outlen)
				o--;
			if (o + 4 <= outlen) {
				memcpy(out + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (plain) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hexdigits[c >> 4];
			out[o++] = hexdigits[c & 15];
		}
	}
	out[o] = '\0';
	return out;
}

/* Length of the valid UTF-8 sequence at s (max n bytes), or 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are invalid */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

struct sink {
	char *out;
	size_t outlen;
	size_t n;
};

static void put(struct sink *s, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++, s->n++)
		if (s->n + 1 < s->outlen)
			s->out[s->n] = p[i];
}

size_t escape_json(char *out, size_t outlen, const char *in, size_t inlen)
{
	struct sink s = { out, outlen, 0 };
	const unsigned char *u = (const unsigned char *)in;
	char esc[8];

	put(&s, "\"", 1);
	for (size_t i = 0; i < inlen;) {
		unsigned char c = u[i];
		size_t len = utf8_seq_len(u + i, inlen - i);

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(&s, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f || len == 0) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			put(&s, esc, 6);
			i++;
		} else {
			put(&s, in + i, len);
			i += len;
		}
	}
	put(&s, "\"", 1);
	if (outlen > 0)
		out[s.n < outlen ? s.n : outlen - 1] = '\0';
	return s.n;
}
