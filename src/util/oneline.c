/* SPDX-License-Identifier: MIT */
#include "util/oneline.h"

#include <stdio.h>
#include <string.h>

bool oneline_ok(const char *s)
{
	return s && !s[strcspn(s, ONELINE_ENDS)];
}

bool oneline_ok_n(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || strchr(ONELINE_ENDS, s[i]))
			return false;
	return true;
}

size_t oneline_flatten(char *s)
{
	size_t n = 0;

	for (s += strcspn(s, ONELINE_ENDS); *s; s += strcspn(s, ONELINE_ENDS), n++)
		*s = ' ';
	return n;
}

static const char *end_name(char c)
{
	return c == '\n' ? "a newline" : c == '\r' ? "a carriage return" : "a line end";
}

const char *oneline_why(const char *s, char why[ONELINE_WHY_MAX])
{
	size_t at;

	if (!s) {
		snprintf(why, ONELINE_WHY_MAX, "is missing");
		return why;
	}
	at = strcspn(s, ONELINE_ENDS);
	if (!s[at])
		why[0] = '\0';
	else
		snprintf(why, ONELINE_WHY_MAX, "holds %s at byte %zu", end_name(s[at]), at);
	return why;
}
