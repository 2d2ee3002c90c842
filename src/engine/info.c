/* SPDX-License-Identifier: MIT */
#include "engine/info.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct out {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < o->size - o->len)
		o->len += (size_t)n;
}

static void prop(struct out *o, const char *key, const char *value)
{
	if (value && value[0])
		put(o, "%s=%s\n", key, value);
}

/* a + b into out; false if it does not fit */
static bool join(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s%s", a, b);

	return n >= 0 && (size_t)n < size;
}

/* name -> devname relative to the /dev root, following links inside it. */
static int resolve(const char *dev, const char *name, char *devname, size_t size)
{
	char path[PATH_MAX], real[PATH_MAX], root[PATH_MAX], rootslash[PATH_MAX];
	bool ok;
	size_t n;

	if (!realpath(dev, root) || !join(rootslash, sizeof(rootslash), root, "/"))
		return -ENOENT;
	/* "/dev/x" names the node in the real /dev; map it onto our root */
	if (strncmp(name, "/dev/", 5) == 0)
		ok = join(path, sizeof(path), rootslash, name + 5);
	else if (name[0] == '/')
		ok = join(path, sizeof(path), "", name);
	else
		ok = join(path, sizeof(path), rootslash, name);
	if (!ok)
		return -ENAMETOOLONG;
	if (!realpath(path, real))
		return -errno;
	n = strlen(root);
	if (strncmp(real, root, n) != 0 || real[n] != '/')
		return -EINVAL;
	return join(devname, size, real + n + 1, "") ? 0 : -ENAMETOOLONG;
}

/* sysfs + devpath + "/" + attr exists; into path */
static bool attr_path(struct engine *e, const char *devpath, const char *attr,
		      char path[PATH_MAX])
{
	char dir[PATH_MAX];

	return join(dir, sizeof(dir), e->cfg.sysfs, devpath) && join(path, PATH_MAX, dir, attr);
}

static void sysfs_props(struct engine *e, const char *devpath, struct out *o)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	if (attr_path(e, devpath, "/subsystem", path) &&
	    (n = readlink(path, link, sizeof(link) - 1)) > 0) {
		link[n] = '\0';
		prop(o, "SUBSYSTEM", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	}
	if (attr_path(e, devpath, "/partition", path) && access(path, F_OK) == 0)
		prop(o, "DEVTYPE", "partition");
	else if (attr_path(e, devpath, "/removable", path) && access(path, F_OK) == 0)
		prop(o, "DEVTYPE", "disk");
}

int info_properties(struct engine *e, const char *name, char *buf, size_t size)
{
	char devname[PATH_MAX], devpath[PATH_MAX], num[16];
	struct devnode_record rec;
	struct out o = { buf, size, 0 };
	int r = resolve(e->cfg.dev, name, devname, sizeof(devname));

	if (size)
		buf[0] = '\0';
	if (r < 0)
		return r;
	if (!devnode_find(&e->devnode, devname, devpath, sizeof(devpath), &rec))
		return -ENOENT;
	prop(&o, "DEVPATH", devpath);
	put(&o, "DEVNAME=/dev/%s\n", devname);
	snprintf(num, sizeof(num), "%u", rec.major);
	prop(&o, "MAJOR", num);
	snprintf(num, sizeof(num), "%u", rec.minor);
	prop(&o, "MINOR", num);
	sysfs_props(e, devpath, &o);
	engine_block_properties(e, devpath, o.buf, o.size, &o.len);
	return (int)o.len;
}
