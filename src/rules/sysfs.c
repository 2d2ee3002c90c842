/* SPDX-License-Identifier: MIT */
#include "rules/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/rules.h"
#include "util/readfull.h"

/* name: plain relative components, none ".", ".." or empty. */
static bool plain_name(const char *name)
{
	const char *p = name;

	if (!*name || strlen(name) >= SYSDEV_PATH_MAX)
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)) ||
		    n >= SYSDEV_NAME_MAX)
			return false;
		p += n;
		if (*p == '/')
			p++;
	}
	return p[-1] != '/';
}

/* The directory holding name's last component (no symlink on the way). */
static int open_holder(const struct sysdev_root *root, const char *devpath, const char *name,
		       const char **leaf)
{
	char dir[SYSDEV_PATH_MAX * 2];
	const char *slash = strrchr(name, '/');

	if (!plain_name(name))
		return -EINVAL;
	if (!slash) {
		*leaf = name;
		return sysdev_open_dir(root, devpath);
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%.*s", devpath, (int)(slash - name), name) >=
	    SYSDEV_PATH_MAX)
		return -ENAMETOOLONG;
	*leaf = slash + 1;
	return sysdev_open_dir(root, dir);
}

static const char *basename_of(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

static int read_link_name(int dir, const char *leaf, char *out, size_t size)
{
	char target[SYSDEV_PATH_MAX];
	ssize_t n = readlinkat(dir, leaf, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (strlen(basename_of(target)) >= size)
		return -ENAMETOOLONG;
	strcpy(out, basename_of(target));
	return (int)strlen(out);
}

static int read_file(int dir, const char *leaf, char *out, size_t size)
{
	int fd = openat(dir, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	size_t got;
	ssize_t r;
	struct stat st;

	if (fd < 0)
		return errno == ELOOP ? -ENOENT : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	/* a read error (EIO from some attributes) reads as an empty value */
	r = read_full(fd, out, size - 1);
	close(fd);
	out[r < 0 ? 0 : r] = '\0';
	/* as sd-device: cut at a NUL, drop trailing newlines */
	got = strlen(out);
	while (got > 0 && (out[got - 1] == '\n' || out[got - 1] == '\r'))
		out[--got] = '\0';
	return (int)got;
}

int rsys_attr(const struct sysdev_root *root, const char *devpath, const char *name, char *out,
	      size_t size)
{
	const char *leaf;
	struct stat st;
	int dir, r;

	if (size < 2)
		return -EINVAL;
	dir = open_holder(root, devpath, name, &leaf);
	if (dir < 0)
		return dir == -ENOTDIR || dir == -ELOOP ? -ENOENT : dir;
	if (fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
	else if (S_ISLNK(st.st_mode))
		r = read_link_name(dir, leaf, out, size);
	else
		r = read_file(dir, leaf, out, size);
	close(dir);
	return r;
}

int rsys_driver(const struct sysdev_root *root, const char *devpath, char out[SYSDEV_NAME_MAX])
{
	int dir = sysdev_open_dir(root, devpath), r;

	if (dir < 0)
		return dir;
	r = read_link_name(dir, "driver", out, SYSDEV_NAME_MAX);
	close(dir);
	return r < 0 ? (r == -EINVAL ? -ENOENT : r) : 0;
}

int rsys_uevent_props(const struct sysdev_root *root, const char *devpath, struct props *out)
{
	char buf[SYSDEV_ATTR_MAX + 1], subsys[SYSDEV_NAME_MAX];
	char *line, *save = NULL;
	int r;

	r = props_set(out, "DEVPATH", devpath, false);
	if (r == 0 && sysdev_subsystem(root, devpath, subsys) == 0)
		r = props_set(out, "SUBSYSTEM", subsys, false);
	if (r < 0)
		return r;
	if (rsys_attr(root, devpath, "uevent", buf, sizeof(buf)) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "DEVNAME=", 8) == 0) {
			char devname[SYSDEV_PATH_MAX];

			/* kept only as "/dev/NAME" inside /dev */
			if ((size_t)snprintf(devname, sizeof(devname), "%s%s",
					     line[8] == '/' ? "" : "/dev/", line + 8) >= sizeof(devname) ||
			    !rules_devname_rel(devname))
				continue;
			r = props_set(out, "DEVNAME", devname, false);
		} else {
			r = props_set_pair(out, line, false);
		}
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

int rsys_subsys_kernel(const struct sysdev_root *root, const char *sysfs, const char *str,
		       char *out, size_t size, bool read_value)
{
	char subsys[SYSDEV_NAME_MAX], name[SYSDEV_NAME_MAX], devpath[SYSDEV_PATH_MAX];
	const char *slash, *close_br, *attr;
	int r;

	if (str[0] != '[' || !(slash = strchr(str + 1, '/')) ||
	    !(close_br = strchr(slash + 1, ']')))
		return -EINVAL;
	if ((size_t)(slash - str - 1) >= sizeof(subsys) ||
	    (size_t)(close_br - slash - 1) >= sizeof(name))
		return -EINVAL;
	memcpy(subsys, str + 1, (size_t)(slash - str - 1));
	subsys[slash - str - 1] = '\0';
	memcpy(name, slash + 1, (size_t)(close_br - slash - 1));
	name[close_br - slash - 1] = '\0';
	attr = close_br + 1;
	if (*attr == '/')
		attr++;
	if (read_value && !*attr)
		return -EINVAL;
	r = sysdev_lookup(root, subsys, name, devpath, sizeof(devpath));
	if (r < 0)
		return r;
	if (read_value) {
		r = rsys_attr(root, devpath, attr, out, size);
		if (r < 0)
			out[0] = '\0';
		return 0;
	}
	if ((size_t)snprintf(out, size, "%s%s%s%s", sysfs, devpath, *attr ? "/" : "", attr) >= size)
		return -ENAMETOOLONG;
	return 0;
}
