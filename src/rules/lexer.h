/* SPDX-License-Identifier: MIT */
/*
 * The text layer of a rules file, as udev 252 reads it: physical lines
 * (ending in \n, \r\n, \r or NUL), comments, backslash continuations (a
 * comment line inside a continuation is skipped), the line length bound,
 * and the KEY{ATTR}OP"VALUE" pairs of one logical line.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct lexer {
	const char *text, *end;
	const char *pos;
	unsigned int lineno; /* physical lines read */
	char *buf;           /* the current logical line (RULES_LINE_MAX) */
};

/* 0 or -ENOMEM. */
int lexer_init(struct lexer *lx, const char *text, size_t len);
void lexer_fini(struct lexer *lx);

enum lexer_result {
	LEXER_END,
	LEXER_LINE,              /* *line holds a logical line (writable, lexer-owned) */
	LEXER_TOO_LONG,          /* a logical line past RULES_LINE_MAX: skipped */
	LEXER_PHYSICAL_TOO_LONG, /* one physical line past the bound: udev stops reading the file */
};

/* The next non-empty, non-comment logical line; *lineno is its last physical line. */
enum lexer_result lexer_next(struct lexer *lx, char **line, unsigned int *lineno);

/*
 * Take the next pair from *p (in place: key, attr and value point into the
 * line, NUL-terminated; value ends in two NULs). Separators are blanks and
 * commas. Returns 1 for a pair, 0 at the end, -EINVAL (bad pair: *why set).
 */
int lexer_pair(char **p, char **key, char **attr, int *op, char **value, const char **why);

/*
 * C-style unescape of an e"..." value (\a \b \f \n \r \t \v \\ \" \' \s
 * \xNN \NNN \uNNNN \UNNNNNNNN) into out (at most inlen + 1 bytes).
 * -EINVAL for a bad or NUL-producing escape.
 */
int lexer_cunescape(const char *in, size_t inlen, char *out, size_t *outlen);
