/* SPDX-License-Identifier: MIT */
#include "names/udev-string.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#define LINK_NAME_MAX 255

/* C-locale isspace(): udev's helpers run without setlocale() */
static bool is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_plain(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	       (c >= 'a' && c <= 'z') || (c != '\0' && strchr("#+-.:=@_", c));
}

/* Sequence length announced by a lead byte (udev also knows 5 and 6). */
static size_t utf8_lead_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	if ((c & 0xfc) == 0xf8)
		return 5;
	if ((c & 0xfe) == 0xfc)
		return 6;
	return 0;
}

static size_t utf8_shortest_len(uint32_t cp)
{
	if (cp < 0x80)
		return 1;
	if (cp < 0x800)
		return 2;
	if (cp < 0x10000)
		return 3;
	if (cp < 0x200000)
		return 4;
	if (cp < 0x4000000)
		return 5;
	return 6;
}

static bool codepoint_ok(uint32_t cp)
{
	return cp < 0x110000 && (cp & 0xfffff800) != 0xd800 &&
	       !(cp >= 0xfdd0 && cp <= 0xfdef) && (cp & 0xfffe) != 0xfffe;
}

size_t ustr_utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = utf8_lead_len(u[0]);
	uint32_t cp;

	if (len < 2)
		return 0;
	/* a NUL (high bit clear) ends the check before running off the string */
	for (size_t i = 1; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	cp = u[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (u[i] & 0x3f);
	if (utf8_shortest_len(cp) != len || !codepoint_ok(cp))
		return 0;
	return len;
}

size_t ustr_replace_whitespace(const char *str, char *to, size_t len)
{
	size_t i = 0, j = 0;
	bool pending = false;

	/* leading: only " \t\n\r" are skipped; \v and \f count as inner space */
	while (i < len && str[i] && strchr(" \t\n\r", str[i]))
		i++;
	for (; j < len && i < len && str[i]; i++) {
		if (is_space((unsigned char)str[i])) {
			pending = true;
			continue;
		}
		if (pending) {
			if (j + 1 >= len)
				break;
			to[j++] = '_';
			pending = false;
		}
		to[j++] = str[i];
	}
	to[j] = '\0';
	return j;
}

size_t ustr_replace_chars(char *str, const char *allow)
{
	size_t i = 0, changed = 0;
	bool space_ok = allow && strchr(allow, ' ');

	while (str[i]) {
		unsigned char c = (unsigned char)str[i];
		size_t n;

		if (is_plain(c) || (allow && strchr(allow, c))) {
			i++;
		} else if (c == '\\' && str[i + 1] == 'x') {
			i += 2;
		} else if ((n = ustr_utf8_len(str + i)) > 1) {
			i += n;
		} else {
			str[i++] = is_space(c) && space_ok ? ' ' : '_';
			changed++;
		}
	}
	return changed;
}

void ustr_trim_trailing(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && strchr(" \t\n\r", s[n - 1]))
		s[--n] = '\0';
}

int ustr_attr_subst(const char *raw, char out[USTR_VALUE_MAX])
{
	size_t n = strlen(raw);

	if (n >= USTR_VALUE_MAX)
		return -E2BIG;
	memcpy(out, raw, n + 1);
	ustr_trim_trailing(out);
	ustr_replace_chars(out, USTR_ALLOW_INPUT);
	return 0;
}

int ustr_append_literal(char *buf, size_t size, const char *lit)
{
	size_t have = strlen(buf), n = strlen(lit);

	if (have + n >= size)
		return -ENAMETOOLONG;
	memcpy(buf + have, lit, n + 1);
	return 0;
}

int ustr_append_subst(char *buf, size_t size, const char *value)
{
	size_t have = strlen(buf), n = strlen(value);

	if (have + n >= size)
		return -ENAMETOOLONG;
	ustr_replace_whitespace(value, buf + have, n);
	return 0;
}

bool ustr_finish_link(char *buf, bool replace_mode)
{
	size_t n;

	ustr_replace_chars(buf, replace_mode ? "/" : "/ ");
	n = strlen(buf);
	if (n == 0 || n > LINK_NAME_MAX || strcmp(buf, ".") == 0 ||
	    strcmp(buf, "..") == 0)
		return false;
	return strpbrk(buf, "/ ") == NULL;
}

/* ---- numbers, as udev reads them from sysfs ---- */

bool ustr_parse_ulong(const char *s, int base, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, base);
	if (errno || end == s || *end)
		return false;
	s += strspn(s, " \t\n\r");
	return !(s[0] == '-' && *out != 0);
}

bool ustr_parse_int(const char *s, int base, long *out)
{
	char *end;

	s += strspn(s, " \t\n\r");
	if (base == 0 && (!strncasecmp(s, "0b", 2) || !strncasecmp(s, "0o", 2))) {
		base = s[1] == 'b' || s[1] == 'B' ? 2 : 8;
		s += 2;
	}
	errno = 0;
	*out = strtol(s, &end, base);
	return !errno && end != s && !*end && *out >= -2147483647L - 1 && *out <= 2147483647L;
}
