/* SPDX-License-Identifier: MIT */
/*
 * Strict decimal numbers from outside text (options, the kernel command
 * line, sysfs and /proc files, environment variables, datagrams): digits
 * only, at least one, no sign, space or base prefix, bounded by max.
 * Every parse returns 0, -EINVAL (not a number) or -ERANGE (above max).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* s[0..n), which need not be NUL-terminated. */
int number_parse(const char *s, size_t n, uint64_t max, uint64_t *out);

/* A NUL-terminated string. */
int number_parse_str(const char *s, uint64_t max, uint64_t *out);

/* The same in octal (file modes): digits 0-7 only, at least one. */
int number_parse_octal(const char *s, uint64_t max, uint64_t *out);

/* An int in [min, max] (0 <= min <= max), NUL-terminated. */
int number_parse_int(const char *s, int min, int max, int *out);

/* "MAJ:MIN" (sysfs' dev attribute, already without its '\n'): two strict
 * numbers up to UINT32_MAX. 0 or -EINVAL/-ERANGE. */
int number_parse_devnum(const char *s, unsigned int *maj, unsigned int *min);

/* A file's contents as the kernel writes one number: digits, then at most
 * one '\n'. */
int number_parse_line(const char *s, uint64_t max, uint64_t *out);

/* Read the small file at path (uevent_seqnum, a pid file): number_parse_line
 * of its first 31 bytes. -errno if unreadable. */
int number_read_file(const char *path, uint64_t max, uint64_t *out);

/* The same from an open fd, read from offset 0 (pread: it can be re-read). */
int number_pread(int fd, uint64_t max, uint64_t *out);
