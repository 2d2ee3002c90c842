/* SPDX-License-Identifier: MIT */
/*
 * Match values as udev 252 compares them: "a|b*|c" alternatives of plain
 * strings or fnmatch(3) globs (no flags), "" and "?*" for empty and
 * non-empty, an empty alternative ("|foo") matching the empty string.
 */
#pragma once

#include <stdbool.h>

#include "rules/rules.h"

/*
 * Compile value (in place: '|' becomes NUL, two NULs at the end; value must
 * have room for one more byte past its NUL) for a token of type with *op;
 * "?*" flips *op and matches empty. Sets tok->match and tok->value.
 */
void match_compile(struct rules_token *tok, char *value, enum rules_tk type);

/* Does str (NULL is "") satisfy the token, operator included? */
bool match_string(const struct rules_token *tok, const char *str);
