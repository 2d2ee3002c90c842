/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the /dev/disk link table. The input is NUL-separated:
 * a devname, then up to 8 link names, all hostile. Checked: disk_links_name_valid
 * agrees with the rule written out independently here (and so does
 * disk_links_name_valid_compat, for udev 252 and 257 both); valid names (with a
 * valid devname) become exactly <dev>/disk/<name> -> ../../<devname> (one
 * "../" per directory: udev 257's nested by-path names are four deep);
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

/* udev 257's directories below by-path/<ID_PATH>-part/ */
static const char *const part_dirs[] = {
	"by-partnum", "by-partuuid", "by-partlabel", "by-uuid", "by-label",
};

/* A safe component: 1..255 bytes, no '/', control byte or DEL, not "." or "..". */
static bool safe_component(const char *s, size_t len)
{
	if (len == 0 || len > 255 || (len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '/' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static bool in_list(const char *const *list, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(s, list[i], len) == 0)
			return true;
	return false;
}

/*
 * Split name at '/' into at most 5 parts (starts and lengths); the count,
 * or 5 for "more than 4".
 */
static size_t components(const char *name, const char *start[5], size_t len[5])
{
	size_t k = 0;
	const char *p = name;

	for (;;) {
		if (k == 5)
			return 5;
		start[k] = p;
		len[k] = strcspn(p, "/");
		k++;
		if (p[len[k - 1]] == '\0')
			return k;
		p += len[k - 1] + 1;
	}
}

/*
 * The rule, written from the header's words, not from links.c: a known
 * directory and one safe component; with udev 257 also
 * by-path/<safe, ending in "-part", longer than that>/<part dir>/<safe>.
 */
static bool expect_valid(const char *name, int udev_compat)
{
	const char *c[5];
	size_t len[5], k = components(name, c, len);

	if (k == 2)
		return in_list(dirs, sizeof(dirs) / sizeof(dirs[0]), c[0], len[0]) &&
		       safe_component(c[1], len[1]);
	if (k != 4 || udev_compat < 257 || len[0] != 7 || strncmp(c[0], "by-path", 7) != 0)
		return false;
	return safe_component(c[1], len[1]) && len[1] > 5 &&
	       strncmp(c[1] + len[1] - 5, "-part", 5) == 0 &&
	       in_list(part_dirs, sizeof(part_dirs) / sizeof(part_dirs[0]), c[2], len[2]) &&
	       safe_component(c[3], len[3]);
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
	/* one "../" per directory below <dev>: disk/by-path/X-part/by-uuid/Y is 4 deep */
	want[0] = '\0';
	for (const char *p = name; p; p = strchr(p + 1, '/'))
		strcat(want, "../");
	strcat(want, devname);
	CHECK(strcmp(buf, want) == 0);
	CHECK(disk_links_resolve(&c->l, name, got, sizeof(got)));
	CHECK(strcmp(got, devname) == 0);
}

/*
 * True if another valid name of the input is a directory on name's way
 * ("by-path/a-part" and "by-path/a-part/by-uuid/x"): only one of the two
 * can be on disk, whichever came first; neither is checked.
 */
static bool blocked(char *const *parts, size_t n, size_t i)
{
	size_t li = strlen(parts[i]);

	for (size_t j = 1; j < n; j++) {
		size_t lj = strlen(parts[j]);

		if (j == i || !expect_valid(parts[j], UDEV_COMPAT))
			continue;
		if ((lj < li && strncmp(parts[i], parts[j], lj) == 0 && parts[i][lj] == '/') ||
		    (li < lj && strncmp(parts[j], parts[i], li) == 0 && parts[j][li] == '/'))
			return true;
	}
	return false;
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
	for (size_t i = 1; i < n; i++) {
		CHECK(disk_links_name_valid(parts[i]) == expect_valid(parts[i], UDEV_COMPAT));
		/* both rules, whichever this build keeps */
		CHECK(disk_links_name_valid_compat(parts[i], 252) == expect_valid(parts[i], 252));
		CHECK(disk_links_name_valid_compat(parts[i], 257) == expect_valid(parts[i], 257));
	}
	r = disk_links_update(&c->l, "/devices/fuzz", &info, 0, (const char *const *)parts + 1, n - 1);
	CHECK(devname_ok ? r == 0 : r == -EINVAL);
	check_tree(c, false);
	for (size_t i = 1; i < n && devname_ok; i++)
		if (expect_valid(parts[i], UDEV_COMPAT) && !blocked(parts, n, i))
			check_link(c, parts[i], info.devname);
	CHECK(disk_links_remove(&c->l, "/devices/fuzz") == 0);
	disk_links_snapshot(&c->l, &st);
	CHECK(st.links == 0 && st.conflicts == 0);
	check_tree(c, true);
	free(buf);
	return 0;
}
