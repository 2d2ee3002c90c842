/* SPDX-License-Identifier: MIT */
#include "rules/db-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/number.h"
#include "util/readfull.h"

/* systemd's safe_atoi for L: (signed: link_priority=-100). */
static bool parse_priority(const char *s, int *out)
{
	bool neg = s[0] == '-';
	int v;

	if (number_parse_int(s + neg, 0, INT_MAX, &v) < 0)
		return false;
	*out = neg ? -v : v;
	return true;
}

/* One "K:value" line; only running out of memory is an error. */
static int db_line(struct rules_record *rec, char key, const char *value)
{
	char link[RULES_PATH_MAX];
	uint64_t usec;
	int r = 0, prio;

	switch (key) {
	case 'E':
		r = props_set_pair(&rec->props, value, true);
		break;
	case 'S':
		if ((size_t)snprintf(link, sizeof(link), "/dev/%s", value) < sizeof(link))
			r = strv_add(&rec->links, link);
		break;
	case 'G':
		r = strv_add(&rec->tags, value);
		break;
	case 'L':
		if (parse_priority(value, &prio))
			rec->link_priority = prio;
		break;
	case 'I':
		if (number_parse_str(value, UINT64_MAX, &usec) == 0)
			rec->usec_initialized = usec;
		break;
	default:
		break;
	}
	return r == -ENOMEM ? r : 0;
}

static bool is_newline(char c)
{
	return c == '\n' || c == '\r';
}

/*
 * sd-device's reader, state for state: a key byte, ':', then the value up
 * to the next line end (but "K:" ending its line is an empty value here,
 * not the start of a value that swallows the next line).
 */
int rules_db_file_parse(const char *text, size_t len, struct rules_record *rec)
{
	enum { PRE_KEY, KEY, PRE_VALUE, VALUE, INVALID } state = PRE_KEY;
	char *buf = malloc(len + 1), key = 0, *value = NULL;
	int r = 0;

	memset(rec, 0, sizeof(*rec));
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (size_t i = 0; i < len && r == 0; i++) {
		char c = buf[i];

		if (state == PRE_KEY && !is_newline(c)) {
			key = c;
			state = KEY;
		} else if (state == KEY) {
			state = c == ':' ? PRE_VALUE : INVALID;
		} else if (state == PRE_VALUE) {
			/* sd-device would start the value at this line end and
			 * read the next line into it; an empty value is skipped */
			value = &buf[i];
			state = is_newline(c) ? PRE_KEY : VALUE;
		} else if ((state == VALUE || state == INVALID) && is_newline(c)) {
			buf[i] = '\0';
			if (state == VALUE)
				r = db_line(rec, key, value);
			state = PRE_KEY;
		}
	}
	free(buf);
	if (r < 0)
		rules_record_free(rec);
	return r;
}

/* KEY's value in a uevent file's text, into out; false if absent or too long. */
static bool uevent_value(const char *text, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	for (const char *l = text; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		size_t n = strcspn(l, "\n");

		if (n > klen && strncmp(l, key, klen) == 0 && l[klen] == '=' && n - klen - 1 < size) {
			memcpy(out, l + klen + 1, n - klen - 1);
			out[n - klen - 1] = '\0';
			return true;
		}
	}
	return false;
}

/* sd-device's device number and ifindex: the uevent file's MAJOR, MINOR, IFINDEX. */
int rules_db_file_id(const struct sysdev_root *sys, const char *devpath, char *id, size_t size)
{
	char subsys[SYSDEV_NAME_MAX], uevent[SYSDEV_ATTR_MAX], a[32], b[32];
	const char *sysname = strrchr(devpath, '/');
	uint64_t maj, min, ifindex;
	int n;

	if (!sysname || sysdev_subsystem(sys, devpath, subsys) < 0)
		return -ENOENT;
	sysname++;
	if (sysdev_attr(sys, devpath, "uevent", uevent, sizeof(uevent)) < 0)
		uevent[0] = '\0';
	if (uevent_value(uevent, "MAJOR", a, sizeof(a)) &&
	    uevent_value(uevent, "MINOR", b, sizeof(b)) &&
	    number_parse_str(a, UINT32_MAX, &maj) == 0 && number_parse_str(b, UINT32_MAX, &min) == 0)
		n = snprintf(id, size, "%c%u:%u", strcmp(subsys, "block") == 0 ? 'b' : 'c',
			     (unsigned int)maj, (unsigned int)min);
	else if (uevent_value(uevent, "IFINDEX", a, sizeof(a)) &&
		 number_parse_str(a, INT32_MAX, &ifindex) == 0 && ifindex > 0)
		n = snprintf(id, size, "n%u", (unsigned int)ifindex);
	else
		n = snprintf(id, size, "+%s:%s", subsys, sysname);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int rules_db_file_read(int dirfd, const char *id, struct rules_record *rec)
{
	char *buf;
	ssize_t n;
	int fd, r;

	if (!id[0] || strchr(id, '/') || !strcmp(id, ".") || !strcmp(id, ".."))
		return -EINVAL;
	fd = openat(dirfd, id, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	buf = malloc(RULES_DB_FILE_MAX + 1);
	n = buf ? read_full(fd, buf, RULES_DB_FILE_MAX + 1) : -ENOMEM;
	close(fd);
	if (n < 0)
		r = (int)n;
	else if (n > RULES_DB_FILE_MAX)
		r = -EFBIG;
	else
		r = rules_db_file_parse(buf, (size_t)n, rec);
	free(buf);
	return r;
}

bool rules_db_dir_get(void *u, const char *devpath, struct rules_record *out)
{
	const struct rules_db_dir *d = u;
	char id[RULES_DB_ID_MAX];

	return rules_db_file_id(d->sys, devpath, id, sizeof(id)) == 0 &&
	       rules_db_file_read(d->dirfd, id, out) == 0;
}
