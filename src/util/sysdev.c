/* SPDX-License-Identifier: MIT */
#include "util/sysdev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/readfull.h"

int sysdev_root_open(struct sysdev_root *root, const char *sysfs)
{
	root->walk_only = false;
	root->fd = open(sysfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return root->fd < 0 ? -errno : 0;
}

void sysdev_root_close(struct sysdev_root *root)
{
	if (root->fd >= 0)
		close(root->fd);
	root->fd = -1;
}

/* rel is a plain relative path: no empty, "." or ".." component. */
static bool plain_relative(const char *rel)
{
	while (*rel) {
		size_t n = strcspn(rel, "/");

		if (n == 0 || n >= SYSDEV_NAME_MAX ||
		    (n == 1 && rel[0] == '.') || (n == 2 && !strncmp(rel, "..", 2)))
			return false;
		rel += n;
		if (*rel == '/')
			rel++;
	}
	return true;
}

/*
 * rel (relative to the root) in one openat2 that refuses every symlink and
 * any escape from the root: the component walk below in one syscall.
 * -ENOSYS where there is none (before 5.6, or a seccomp filter's EPERM).
 */
static int open_beneath(const struct sysdev_root *root, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)flags | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = root->walk_only ? (errno = ENOSYS, -1) :
		  syscall(SYS_openat2, root->fd, rel, &how, sizeof(how));

	if (fd >= 0)
		return (int)fd;
	if (errno == ENOSYS || errno == EPERM)
		return -ENOSYS;
	/* a symlink or a non-directory on the way: not a device or attribute */
	return errno == ELOOP || errno == ENOTDIR || errno == EXDEV ? -ENOENT : -errno;
}

/* Open every component of rel as a directory, one at a time (old kernels). */
static int walk_dirs_slow(const struct sysdev_root *root, const char *rel)
{
	char comp[SYSDEV_NAME_MAX];
	int fd = fcntl(root->fd, F_DUPFD_CLOEXEC, 3);

	while (fd >= 0 && *rel) {
		size_t n = strcspn(rel, "/");
		int next;

		memcpy(comp, rel, n);
		comp[n] = '\0';
		next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return errno == ELOOP || errno == ENOTDIR ? -ENOENT : -errno;
		fd = next;
		rel += n;
		if (*rel == '/')
			rel++;
	}
	return fd < 0 ? -errno : fd;
}

/* The directory rel below the root, never through a symlink. */
static int walk_dirs(const struct sysdev_root *root, const char *rel)
{
	int fd;

	if (!plain_relative(rel))
		return -EINVAL;
	if (*rel == '\0')
		return walk_dirs_slow(root, rel);
	fd = open_beneath(root, rel, O_PATH | O_DIRECTORY);
	return fd == -ENOSYS ? walk_dirs_slow(root, rel) : fd;
}

/* A devpath's form: absolute and bounded. */
static bool devpath_ok(const char *devpath)
{
	return devpath[0] == '/' && strlen(devpath) < SYSDEV_PATH_MAX;
}

int sysdev_open_dir(const struct sysdev_root *root, const char *devpath)
{
	return devpath_ok(devpath) ? walk_dirs(root, devpath + 1) : -EINVAL;
}

bool sysdev_is_device(const struct sysdev_root *root, const char *devpath)
{
	int fd;
	bool ok;

	if (strncmp(devpath, "/devices/", 9) != 0)
		return false;
	fd = sysdev_open_dir(root, devpath);
	if (fd < 0)
		return false;
	ok = faccessat(fd, "uevent", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	close(fd);
	return ok;
}

int sysdev_parent(const struct sysdev_root *root, const char *devpath,
		  char *out, size_t size)
{
	size_t n = strlen(devpath);

	if (n >= size)
		return -ENAMETOOLONG;
	memmove(out, devpath, n + 1);
	for (;;) {
		char *slash = strrchr(out, '/');

		if (!slash || slash == out)
			return -ENOENT;
		*slash = '\0';
		if (strcmp(out, "/devices") == 0)
			return -ENOENT;
		if (sysdev_is_device(root, out))
			return 0;
	}
}

/* Open a regular-file attribute; symlinks and directories do not count. */
static int open_attr(const struct sysdev_root *root, const char *devpath,
		     const char *name)
{
	char rel[SYSDEV_PATH_MAX + SYSDEV_NAME_MAX];
	struct stat st;
	int fd;

	if (strchr(name, '/') || !devpath_ok(devpath))
		return -EINVAL;
	if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", devpath + 1, name) >= sizeof(rel) ||
	    !plain_relative(rel))
		return -EINVAL;
	fd = open_beneath(root, rel, O_RDONLY | O_NONBLOCK);
	if (fd == -ENOSYS) { /* before 5.6: the directory, then the file */
		int dir = walk_dirs_slow(root, devpath + 1);

		if (dir < 0)
			return dir;
		fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		close(dir);
		if (fd < 0)
			return errno == ELOOP ? -ENOENT : -errno;
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

int sysdev_attr_raw(const struct sysdev_root *root, const char *devpath,
		    const char *name, unsigned char *out, size_t size)
{
	int fd = open_attr(root, devpath, name);
	ssize_t r;

	if (fd < 0)
		return fd;
	r = read_full(fd, out, size);
	close(fd);
	return (int)r;
}

int sysdev_attr(const struct sysdev_root *root, const char *devpath,
		const char *name, char *out, size_t size)
{
	int n;

	if (size < 2)
		return -EINVAL;
	/* one byte more than fits, to notice an over-long value */
	n = sysdev_attr_raw(root, devpath, name, (unsigned char *)out, size);
	if (n < 0)
		return n;
	if ((size_t)n == size) {
		out[size - 1] = '\0';
		return -EFBIG;
	}
	/* like sd-device: strip trailing '\n', '\r' and NUL from the raw end */
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == '\0'))
		n--;
	out[n] = '\0';
	return (int)strlen(out);
}

static const char *last_component(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

int sysdev_subsystem(const struct sysdev_root *root, const char *devpath,
		     char out[SYSDEV_NAME_MAX])
{
	char target[SYSDEV_PATH_MAX];
	int dir = sysdev_open_dir(root, devpath);
	ssize_t n;

	if (dir < 0)
		return dir;
	n = readlinkat(dir, "subsystem", target, sizeof(target));
	close(dir);
	if (n < 0)
		return errno == EINVAL ? -ENOENT : -errno;
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	target[n] = '\0';
	if (strlen(last_component(target)) >= SYSDEV_NAME_MAX ||
	    !*last_component(target))
		return -EINVAL;
	strcpy(out, last_component(target));
	return 0;
}

bool sysdev_subsystem_is(const struct sysdev_root *root, const char *devpath,
			 const char *subsystem)
{
	char s[SYSDEV_NAME_MAX];

	return sysdev_subsystem(root, devpath, s) == 0 && strcmp(s, subsystem) == 0;
}

int sysdev_devtype(const struct sysdev_root *root, const char *devpath,
		   char out[SYSDEV_NAME_MAX])
{
	char buf[SYSDEV_ATTR_MAX + 1];
	int r = sysdev_attr(root, devpath, "uevent", buf, sizeof(buf));

	if (r < 0)
		return r;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (strncmp(line, "DEVTYPE=", 8) == 0 && strlen(line + 8) < SYSDEV_NAME_MAX) {
			strcpy(out, line + 8);
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

void sysdev_sysname(const char *devpath, char out[SYSDEV_NAME_MAX])
{
	snprintf(out, SYSDEV_NAME_MAX, "%s", last_component(devpath));
	for (char *p = out; *p; p++)
		if (*p == '!')
			*p = '/';
}

const char *sysdev_sysnum(const char *sysname)
{
	size_t n = strlen(sysname), i = n;

	while (i > 0 && sysname[i - 1] >= '0' && sysname[i - 1] <= '9')
		i--;
	return i == n || i == 0 ? NULL : sysname + i;
}

int sysdev_find_parent(const struct sysdev_root *root, const char *devpath,
		       const char *subsystem, const char *devtype,
		       char *out, size_t size)
{
	char cur[SYSDEV_PATH_MAX], t[SYSDEV_NAME_MAX];
	int r = sysdev_parent(root, devpath, cur, sizeof(cur));

	for (; r == 0; r = sysdev_parent(root, cur, cur, sizeof(cur))) {
		if (!sysdev_subsystem_is(root, cur, subsystem))
			continue;
		if (devtype && (sysdev_devtype(root, cur, t) < 0 || strcmp(t, devtype) != 0))
			continue;
		if (strlen(cur) >= size)
			return -ENAMETOOLONG;
		strcpy(out, cur);
		return 0;
	}
	return r;
}

/* Resolve a relative link target found in directory dir (a "/..." path). */
static int resolve_link(const char *dir, const char *target, char *out, size_t size)
{
	char buf[SYSDEV_PATH_MAX * 2];
	size_t len = strlen(dir);

	if (target[0] == '/' || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, dir, len + 1);
	for (const char *p = target; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && !strncmp(p, "..", 2)) {
			char *slash = strrchr(buf, '/');

			/* "" is the sysfs root; nothing above it */
			if (!slash)
				return -EINVAL;
			*slash = '\0';
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (len = strlen(buf), len + 1 + n >= sizeof(buf))
				return -ENAMETOOLONG;
			buf[len] = '/';
			memcpy(buf + len + 1, p, n);
			buf[len + 1 + n] = '\0';
		}
		p += n;
		if (*p == '/')
			p++;
	}
	if (strlen(buf) >= size)
		return -ENAMETOOLONG;
	strcpy(out, buf);
	return 0;
}

static int lookup_in(const struct sysdev_root *root, const char *dir,
		     const char *name, char *out, size_t size)
{
	char target[SYSDEV_PATH_MAX];
	int fd = sysdev_open_dir(root, dir);
	ssize_t n;
	int r;

	if (fd < 0)
		return fd;
	n = readlinkat(fd, name, target, sizeof(target));
	close(fd);
	if (n < 0)
		return -ENOENT;
	if ((size_t)n >= sizeof(target))
		return -ENAMETOOLONG;
	target[n] = '\0';
	r = resolve_link(dir, target, out, size);
	if (r < 0)
		return r;
	return sysdev_is_device(root, out) ? 0 : -ENODEV;
}

int sysdev_lookup(const struct sysdev_root *root, const char *subsystem,
		  const char *sysname, char *out, size_t size)
{
	char name[SYSDEV_NAME_MAX], dir[SYSDEV_PATH_MAX];

	if (!*subsystem || strchr(subsystem, '/') || !strcmp(subsystem, ".") ||
	    !strcmp(subsystem, "..") || strlen(sysname) >= sizeof(name) ||
	    !*sysname || !strcmp(sysname, ".") || !strcmp(sysname, ".."))
		return -EINVAL;
	/* sysfs spells a '/' in a device name as '!' */
	strcpy(name, sysname);
	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '!';
	snprintf(dir, sizeof(dir), "/bus/%s/devices", subsystem);
	if (lookup_in(root, dir, name, out, size) == 0)
		return 0;
	snprintf(dir, sizeof(dir), "/class/%s", subsystem);
	return lookup_in(root, dir, name, out, size);
}
