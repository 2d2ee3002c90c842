/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the /dev/disk link table. The input is NUL-separated:
 * a devname, then up to 8 link names, all hostile. Checked: disk_links_name_valid
 * agrees with the rule written out independently here; valid names (with a
 * valid devname) become exactly <dev>/disk/<name> -> ../../<devname>;
 * nothing ever appears outside <dev>/disk/by-*; after removal no link is left.
 * The dev root is a private scratch directory made once per process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handlers/disk-links.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

#define MAX_NAMES 8

static const char *const dirs[] = {
	"by-uuid", "by-label", "by-partuuid", "by-partlabel", "by-id", "by-path", "by-diskseq",
	"by-loop-inode", "by-loop-ref", /* udev 257's loop links */
};

/* The rule, written from the header's words, not from links.c. */
static bool expect_valid(const char *name)
{
	const char *slash = strchr(name, '/');
	const char *leaf;
	size_t len;
	bool dir_ok = false;

	if (slash == NULL)
		return false;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		dir_ok |= strlen(dirs[i]) == (size_t)(slash - name) &&
			  strncmp(name, dirs[i], strlen(dirs[i])) == 0;
	leaf = slash + 1;
	len = strlen(leaf);
	if (!dir_ok || len == 0 || len > 255 || strcmp(leaf, ".") == 0 || strcmp(leaf, "..") == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (leaf[i] == '/' || (unsigned char)leaf[i] < 0x20 || leaf[i] == 0x7f)
			return false;
	return true;
}

static bool expect_devname(const char *s)
{
	size_t len = strlen(s);
	const char *p = s;

	if (len == 0 || len >= 256)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	/* components: non-empty, not "." or ".." */
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.') ||
		    n > 255)
			return false;
		if (p[n] == '\0')
			return true;
		p += n + 1;
	}
}

struct ctx {
	struct disk_links l;
	struct logger log;
	int devfd;
	char root[64];
};

static char scratch[64];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

static void remove_scratch(void)
{
	if (scratch[0] != '\0')
		(void)nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static struct ctx *ctx_get(void)
{
	static struct ctx c;
	static bool ready;
	char dev[80];

	if (ready)
		return &c;
	snprintf(c.root, sizeof(c.root), "%s", "/tmp/fuzz-links.XXXXXX");
	CHECK(mkdtemp(c.root) != NULL);
	memcpy(scratch, c.root, sizeof(scratch));
	atexit(remove_scratch);
	snprintf(dev, sizeof(dev), "%s/dev", c.root);
	CHECK(mkdir(dev, 0755) == 0);
	c.devfd = open(dev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(c.devfd >= 0);
	log_init(&c.log, LOG_TARGET_STDERR, LOG_ERR);
	c.log.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	CHECK(c.log.fd >= 0);
	CHECK(disk_links_init(&c.l, c.devfd, &c.log) == 0);
	ready = true;
	return &c;
}

/* Split data at NULs into out[0..n); the copy in buf is NUL-terminated. */
static size_t split(const uint8_t *data, size_t size, char *buf, char **out, size_t max)
{
	size_t n = 0;

	memcpy(buf, data, size);
	buf[size] = '\0';
	for (char *p = buf; n < max && p <= buf + size; p += strlen(p) + 1)
		out[n++] = p;
	return n;
}

/* Only "disk" in the root, only by-* dirs in it, and (if empty) nothing in them. */
static void check_tree(const struct ctx *c, bool empty)
{
	int fd = openat(c->devfd, "disk", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	d = fdopendir(dup(c->devfd));
	CHECK(d != NULL);
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		CHECK(strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		      strcmp(de->d_name, "disk") == 0);
	closedir(d);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	CHECK(d != NULL);
	while ((de = readdir(d)) != NULL) {
		bool known = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;

		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
			known |= strcmp(de->d_name, dirs[i]) == 0;
		CHECK(known);
		if (empty && de->d_name[0] != '.') {
			int sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			DIR *s = fdopendir(sub);
			struct dirent *e;

			CHECK(s != NULL);
			while ((e = readdir(s)) != NULL)
				CHECK(strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0);
			closedir(s);
		}
	}
	closedir(d);
}

static void check_link(struct ctx *c, const char *name, const char *devname)
{
	char buf[PATH_MAX], want[300], got[256];
	int diskfd = openat(c->devfd, "disk", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	ssize_t n;

	CHECK(diskfd >= 0);
	n = readlinkat(diskfd, name, buf, sizeof(buf) - 1);
	close(diskfd);
	CHECK(n > 0);
	buf[n] = '\0';
	snprintf(want, sizeof(want), "../../%s", devname);
	CHECK(strcmp(buf, want) == 0);
	CHECK(disk_links_resolve(&c->l, name, got, sizeof(got)));
	CHECK(strcmp(got, devname) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx *c = ctx_get();
	struct disk_links_device_info info;
	char *parts[MAX_NAMES + 1], *buf;
	struct disk_links_stats st;
	size_t n;
	bool devname_ok;
	int r;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	CHECK(buf != NULL);
	n = split(data, size, buf, parts, MAX_NAMES + 1);
	memset(&info, 0, sizeof(info));
	snprintf(info.devname, sizeof(info.devname), "%s", parts[0]);
	devname_ok = expect_devname(info.devname); /* as cut to the field */
	for (size_t i = 1; i < n; i++)
		CHECK(disk_links_name_valid(parts[i]) == expect_valid(parts[i]));
	r = disk_links_update(&c->l, "/devices/fuzz", &info, 0, (const char *const *)parts + 1, n - 1);
	CHECK(devname_ok ? r == 0 : r == -EINVAL);
	check_tree(c, false);
	for (size_t i = 1; i < n && devname_ok; i++)
		if (expect_valid(parts[i]))
			check_link(c, parts[i], info.devname);
	CHECK(disk_links_remove(&c->l, "/devices/fuzz") == 0);
	disk_links_snapshot(&c->l, &st);
	CHECK(st.links == 0 && st.conflicts == 0);
	check_tree(c, true);
	free(buf);
	return 0;
}
