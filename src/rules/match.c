/* SPDX-License-Identifier: MIT */
#include "rules/match.h"

#include <fnmatch.h>
#include <string.h>

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* "a||b|" -> "a\0b\0\0": returns true if an alternative was empty. */
static bool split_alternatives(char *value)
{
	bool bar = true, empty = false;
	char *a, *b;

	for (a = b = value; *a; a++) {
		if (*a != '|') {
			*b++ = *a;
			bar = false;
			continue;
		}
		if (bar)
			empty = true;
		else
			*b++ = '\0';
		bar = true;
	}
	*b = '\0';
	if (b < a)
		b[1] = '\0';
	return empty || bar;
}

void match_compile(struct rules_token *tok, char *value, enum rules_tk type)
{
	bool split = type < RTK_M_TEST || type == RTK_M_RESULT;

	if (type == RTK_M_SUBSYSTEM &&
	    (!strcmp(value, "subsystem") || !strcmp(value, "bus") || !strcmp(value, "class")))
		tok->match = RMT_SUBSYSTEM;
	else if (value[0] == '\0')
		tok->match = RMT_EMPTY;
	else if (strcmp(value, "?*") == 0) {
		tok->match = RMT_EMPTY;
		tok->op = tok->op == ROP_MATCH ? ROP_NOMATCH : ROP_MATCH;
	} else
		tok->match = is_glob(value) ? RMT_GLOB : RMT_PLAIN;
	if (split && split_alternatives(value)) {
		if (tok->match == RMT_GLOB)
			tok->match = RMT_GLOB_EMPTY;
		else if (tok->match == RMT_PLAIN)
			tok->match = RMT_PLAIN_EMPTY;
	}
	tok->value = value;
}

static bool any(const char *alts, const char *str, bool glob)
{
	for (const char *i = alts; *i; i += strlen(i) + 1)
		if (glob ? fnmatch(i, str, 0) == 0 : strcmp(i, str) == 0)
			return true;
	return false;
}

bool match_string(const struct rules_token *tok, const char *str)
{
	bool m;

	if (!str)
		str = "";
	switch (tok->match) {
	case RMT_EMPTY: m = str[0] == '\0'; break;
	case RMT_SUBSYSTEM:
		m = !strcmp(str, "subsystem") || !strcmp(str, "class") || !strcmp(str, "bus");
		break;
	case RMT_PLAIN_EMPTY:
	case RMT_GLOB_EMPTY:
		if (str[0] == '\0') {
			m = true;
			break;
		}
		m = any(tok->value, str, tok->match == RMT_GLOB_EMPTY);
		break;
	default: m = any(tok->value, str, tok->match == RMT_GLOB); break;
	}
	return tok->op == (m ? ROP_MATCH : ROP_NOMATCH);
}
