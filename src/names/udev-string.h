/* SPDX-License-Identifier: MIT */
/*
 * The string clean-ups systemd-udevd 252 applies on the way from sysfs bytes
 * to a /dev/disk/by-{id,path} link name. Same input bytes, same output bytes:
 * these are the rules udev's own helpers follow (checked against udev 252 in
 * QEMU), rewritten here, never copied.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* udev's buffer for one value ($attr, $env, ENV{}=): longer values are refused */
#define USTR_VALUE_MAX 512
/* What udev lets through from a $attr{} substitution besides the plain set */
#define USTR_ALLOW_INPUT "/ $%?,"

/*
 * Length of the valid UTF-8 character at s (2..4), or 0 if s does not start
 * with one. Valid means what udev accepts: shortest form, not a surrogate,
 * not U+FDD0..U+FDEF, not U+xxFFFE/U+xxFFFF, at most U+10FFFF.
 */
size_t ustr_utf8_len(const char *s);

/*
 * Copy at most len bytes of str (stopping at NUL) to to, dropping leading and
 * trailing whitespace and turning each inner run of whitespace into one '_'.
 * to needs len + 1 bytes; returns the length written. to may equal str.
 */
size_t ustr_replace_whitespace(const char *str, char *to, size_t len);

/*
 * In place: keep [0-9A-Za-z#+-.:=@_], bytes in allow, "\x", and valid UTF-8;
 * whitespace becomes ' ' if allow contains a space; everything else '_'.
 * allow may be NULL. Returns the number of bytes changed.
 */
size_t ustr_replace_chars(char *str, const char *allow);

/* Drop trailing " \t\n\r" in place. */
void ustr_trim_trailing(char *s);

/*
 * The clean-up of a $attr{} value: raw is an attribute as udev reads it.
 * Trailing whitespace dropped, then ustr_replace_chars(USTR_ALLOW_INPUT).
 * -E2BIG if raw does not fit udev's value buffer (udev then refuses the
 * assignment).
 */
int ustr_attr_subst(const char *raw, char out[USTR_VALUE_MAX]);

/*
 * Append one $env{}/$attr{} substitution of a SYMLINK value to buf (size
 * bytes): udev squeezes whitespace out of each substituted piece. Literal
 * parts of the rule go through ustr_append_literal. -ENAMETOOLONG when full.
 */
int ustr_append_subst(char *buf, size_t size, const char *value);
int ustr_append_literal(char *buf, size_t size, const char *lit);

/*
 * Finish a SYMLINK value built in buf: udev replaces characters outside its
 * set (allowing '/' and, unless replace_mode, ' '). Then check it is usable
 * as one name in /dev/disk/by-*: returns false if it holds a '/' (udev would
 * make a subdirectory), a space (udev would split it), is empty, "." or
 * "..", or longer than 255 bytes (udev's symlink() would fail).
 */
bool ustr_finish_link(char *buf, bool replace_mode);

/*
 * Numbers in sysfs attributes as udev's helpers read them (systemd's
 * safe_atolu and safe_atoi): the whole string, leading whitespace allowed,
 * base 0 takes 0x/0b/0o prefixes (safe_atoi), no negative unsigned value.
 * Not for outside text initdev itself checks: util/number.h is strict.
 */
bool ustr_parse_ulong(const char *s, int base, unsigned long *out);
bool ustr_parse_int(const char *s, int base, long *out);
