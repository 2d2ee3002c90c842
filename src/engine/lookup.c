/* SPDX-License-Identifier: MIT */
#include "engine/lookup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"

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

/* sysfs + devpath + attr into path; false if it does not fit */
static bool attr_path(const char *sysfs, const char *devpath, const char *attr,
		      char path[PATH_MAX])
{
	char dir[PATH_MAX];

	return join(dir, sizeof(dir), sysfs, devpath) && join(path, PATH_MAX, dir, attr);
}

/* SUBSYSTEM from the subsystem link; DEVTYPE of a block device as udev has it. */
static void sysfs_facts(const char *sysfs, struct engine_device *d)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	if (attr_path(sysfs, d->devpath, "/subsystem", path) &&
	    (n = readlink(path, link, sizeof(link) - 1)) > 0) {
		const char *name = link;

		link[n] = '\0';
		if (strrchr(link, '/'))
			name = strrchr(link, '/') + 1;
		if (strlen(name) < sizeof(d->subsystem)) /* else: not a subsystem's name */
			memcpy(d->subsystem, name, strlen(name) + 1);
	}
	if (attr_path(sysfs, d->devpath, "/partition", path) && access(path, F_OK) == 0)
		snprintf(d->devtype, sizeof(d->devtype), "partition");
	else if (attr_path(sysfs, d->devpath, "/removable", path) && access(path, F_OK) == 0)
		snprintf(d->devtype, sizeof(d->devtype), "disk");
}

struct find_block {
	const char *devpath;
	struct engine_device *out;
};

static void find_block(void *u, const char *devpath, const struct disk_links_device_info *info)
{
	struct find_block *c = u;

	if (!c->out->has_disk && strcmp(devpath, c->devpath) == 0) {
		c->out->disk = *info;
		c->out->has_disk = true;
	}
}

int engine_lookup(struct engine *e, const char *name, struct engine_device *out)
{
	struct handler_set *hs = &e->handlers;
	struct devnode_record rec;
	struct find_block c = { out->devpath, out };
	int r;

	memset(out, 0, sizeof(*out));
	if (!hs->ready)
		return -ENOENT;
	r = resolve(e->cfg.dev, name, out->devname, sizeof(out->devname));
	if (r < 0)
		return r;
	if (!devnode_find(&hs->devnode, out->devname, out->devpath, sizeof(out->devpath), &rec))
		return -ENOENT;
	out->major = rec.major;
	out->minor = rec.minor;
	out->block = rec.block;
	sysfs_facts(e->cfg.sysfs, out);
	disk_links_foreach_device(&hs->links, find_block, &c);
	return 0;
}

bool engine_found(struct engine *e, const char *name, char *devname, size_t size)
{
	struct handler_set *hs = &e->handlers;
	char target[PATH_MAX];
	struct stat st;

	/* a disk link counts once the table agrees: its node is in place then */
	if (strncmp(name, "disk/", 5) == 0)
		return hs->ready && disk_links_resolve(&hs->links, name + 5, devname, size) &&
		       fstatat(hs->devnode.devfd, devname, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!hs->ready || fstatat(hs->devnode.devfd, name, &st, 0) < 0 ||
	    !(S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)))
		return false;
	/* report the node itself for block/MAJ:MIN, the name otherwise */
	ssize_t n = readlinkat(hs->devnode.devfd, name, target, sizeof(target) - 1);

	if (n > 0 && strncmp(name, "block/", 6) == 0) {
		target[n] = '\0';
		snprintf(devname, size, "%s", strncmp(target, "../", 3) == 0 ? target + 3 : target);
	} else {
		snprintf(devname, size, "%s", name);
	}
	return true;
}

struct describe_ctx {
	void (*emit)(void *u, const char *line);
	void *u;
};

static void describe_one(void *u, const char *devpath, const struct disk_links_device_info *i)
{
	struct describe_ctx *c = u;
	const struct probe_result *p = &i->probe;
	char line[2048], label[600], plabel[600];

	escape_log(label, sizeof(label), p->fs_label, strlen(p->fs_label));
	escape_log(plabel, sizeof(plabel), p->part_name, strlen(p->part_name));
	if (!i->probed)
		snprintf(line, sizeof(line), "/dev/%s (%u:%u): not readable", i->devname,
			 i->major, i->minor);
	else
		snprintf(line, sizeof(line),
			 "/dev/%s (%u:%u): TYPE=\"%s\" UUID=\"%s\" LABEL=\"%s\" PARTUUID=\"%s\" PARTLABEL=\"%s\"",
			 i->devname, i->major, i->minor, p->fs_type, p->fs_uuid, label,
			 p->part_uuid, plabel);
	c->emit(c->u, line);
}

void engine_describe_devices(struct engine *e, void (*emit)(void *u, const char *line),
			     void *u)
{
	struct describe_ctx c = { emit, u };

	if (e->handlers.ready)
		disk_links_foreach_device(&e->handlers.links, describe_one, &c);
}

static void describe_conflict(void *u, const char *name, const struct disk_links_device_info *kept,
			      const struct disk_links_device_info *other)
{
	struct describe_ctx *c = u;
	char x[LINK_NAME_MAX * 4], line[sizeof(x) + 600];

	escape_log(x, sizeof(x), name, strlen(name));
	snprintf(line, sizeof(line), "conflict: %s: /dev/%s%s keeps it; /dev/%s%s claims it "
		 "too", x, kept->devname, kept->removable ? " (removable)" : "", other->devname,
		 other->removable ? " (removable)" : "");
	c->emit(c->u, line);
}

void engine_describe_conflicts(struct engine *e, void (*emit)(void *u, const char *line),
			       void *u)
{
	struct describe_ctx c = { emit, u };

	if (e->handlers.ready)
		disk_links_foreach_conflict(&e->handlers.links, describe_conflict, &c);
}
