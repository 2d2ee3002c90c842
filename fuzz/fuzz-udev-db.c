/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the udev database entries written for the real root
 * (src/handlers/udev-db.c). The input is NUL-separated fields, all hostile
 * (rules and devices name them): "L..." a link below /dev, "E..." a
 * property KEY=VALUE, "T..." a tag, "P..." a devpath and "U..." a
 * subsystem (the device's id). Checked: every line of the data text,
 * split at '\n' and '\r' as systemd's reader splits it, starts with a known
 * tag and the text ends with "V:1" (no value forges a line); an escaped
 * link name is one file name, at most 244 bytes, and unescapes to the
 * link; an id made of a devpath and a subsystem is one file name
 * ("+SUBSYSTEM:..."); written into a scratch directory (under that id
 * too) and removed again, nothing is left but empty directories, and
 * nothing appears outside it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handlers/udev-db.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

#define FIELDS_MAX 16

static char top[PATH_MAX]; /* scratch: top/udev is the database, top holds nothing else */

/*
 * Every line, split as systemd's reader splits it (at '\n' and at '\r'),
 * starts with one of udev's tags and ends at a '\n'; the last is "V:1".
 */
static void check_text(const char *t)
{
	const char *last = NULL;

	for (const char *l = t; *l;) {
		size_t n = strcspn(l, "\n\r");

		CHECK(n >= 2 && l[1] == ':' && strchr("SLIEGQV", l[0]));
		CHECK(l[n] == '\n');
		last = l;
		l += n + 1;
	}
	CHECK(last && strncmp(last, "V:1\n", 4) == 0);
}

static void check_escape(const char *link)
{
	char out[256], back[256];
	size_t j = 0;

	if (udev_db_escape_link(link, out, sizeof(out)) < 0)
		return;
	CHECK(out[0] && !strchr(out, '/') && strlen(out) <= 244);
	CHECK(strcmp(out, ".") != 0 && strcmp(out, "..") != 0);
	for (const char *c = out; *c; c++) {
		if (strncmp(c, "\\x2f", 4) == 0 || strncmp(c, "\\x5c", 4) == 0) {
			back[j++] = c[3] == 'f' ? '/' : '\\';
			c += 3;
		} else {
			CHECK(*c != '\\');
			back[j++] = *c;
		}
	}
	back[j] = '\0';
	CHECK(strcmp(back, link + 5) == 0);
}

/* The id of a device with neither number nor index: "+..." and one file name, or none. */
static bool check_id(const char *devpath, const char *subsystem, char id[UDEV_DB_ID_MAX])
{
	struct udev_db_device d = { .subsystem = subsystem, .devpath = devpath };

	if (udev_db_device_id(&d, id) < 0)
		return false;
	CHECK(id[0] == '+' && !strchr(id, '/') && strlen(id) <= NAME_MAX);
	return true;
}

static int anything_left(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path, (void)f;
	return flag == FTW_D || flag == FTW_DP ? 0 : !S_ISDIR(st->st_mode);
}

static void setup(void)
{
	char tmpl[] = "/tmp/fuzz-udev-db.XXXXXX";

	if (top[0])
		return;
	CHECK(mkdtemp(tmpl));
	snprintf(top, sizeof(top), "%s", tmpl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct props props = PROPS_INIT;
	struct strv links = STRV_INIT, tags = STRV_INIT;
	char *buf = malloc(size + 1), *text = NULL, dir[PATH_MAX + 8], id[UDEV_DB_ID_MAX];
	const char *devpath = NULL, *subsystem = NULL;
	size_t tlen = 0, nf = 0;
	struct udev_db db;
	FILE *f;

	CHECK(buf);
	memcpy(buf, data, size);
	buf[size] = '\0';
	setup();
	for (char *p = buf; p < buf + size && nf < FIELDS_MAX; p += strlen(p) + 1, nf++) {
		char name[PATH_MAX];

		if (p[0] == 'L' && strlen(p) < sizeof(name) - 8) {
			snprintf(name, sizeof(name), "/dev/%s", p + 1);
			(void)strv_add(&links, name);
			check_escape(name);
		} else if (p[0] == 'E' && strchr(p, '=')) {
			(void)props_set_pair(&props, p + 1, true);
		} else if (p[0] == 'T' && p[1]) {
			(void)strv_add(&tags, p + 1);
		} else if (p[0] == 'P') {
			devpath = p + 1;
		} else if (p[0] == 'U') {
			subsystem = p + 1;
		}
	}
	struct udev_db_entry e = { .block = true, .major = 254, .minor = 0, .devnode = "/dev/dm-0",
				   .links = &links, .link_priority = 7, .usec_initialized = 1,
				   .props = &props, .tags = &tags, .current_tags = &tags,
				   .persist = true };

	f = open_memstream(&text, &tlen);
	CHECK(f);
	CHECK(udev_db_print(&e, f) == 0);
	fclose(f);
	check_text(text);
	free(text);
	/* write, remove: only empty directories stay, all of them below top */
	snprintf(dir, sizeof(dir), "%s/udev", top);
	CHECK(udev_db_open(&db, dir, NULL) == 0);
	(void)udev_db_write(&db, &e, NULL);
	CHECK(udev_db_remove(&db, &e) == 0);
	if (devpath && subsystem && check_id(devpath, subsystem, id)) {
		e.id = id;
		e.major = 0;
		(void)udev_db_write(&db, &e, NULL);
		CHECK(udev_db_remove(&db, &e) == 0);
	}
	udev_db_close(&db);
	CHECK(nftw(top, anything_left, 16, FTW_PHYS) == 0);
	props_clear(&props);
	strv_clear(&links);
	strv_clear(&tags);
	free(buf);
	return 0;
}
