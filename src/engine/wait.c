/* SPDX-License-Identifier: MIT */
#include "engine/wait.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"
#include "handlers/blkid-probe.h"

struct tag {
	const char *prefix;
	const char *dir;
};

static const struct tag tags[] = {
	{ "UUID=", "disk/by-uuid/" },
	{ "LABEL=", "disk/by-label/" },
	{ "PARTUUID=", "disk/by-partuuid/" },
	{ "PARTLABEL=", "disk/by-partlabel/" },
};

static int tag_name(const struct tag *t, const char *value, char *name, size_t size,
		    const char **why)
{
	char enc[PROBE_ENC_MAX];
	int n;

	if (!value[0] || strlen(value) >= PROBE_VALUE_MAX) {
		*why = "empty or longer than 255 bytes";
		return -EINVAL;
	}
	if (probe_encode(value, enc, sizeof(enc)) < 0) {
		*why = "cannot be encoded";
		return -EINVAL;
	}
	/* dots survive encoding; as a name they would mean the directories */
	if (strcmp(enc, ".") == 0 || strcmp(enc, "..") == 0) {
		*why = "'.' and '..' name no device";
		return -EINVAL;
	}
	n = snprintf(name, size, "%s%s", t->dir, enc);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static int devnum_name(const char *spec, char *name, size_t size, const char **why)
{
	unsigned int major, minor;
	char tail;

	if (sscanf(spec, "%u:%u%c", &major, &minor, &tail) != 2 ||
	    spec[0] < '0' || spec[0] > '9') {
		*why = "expected MAJ:MIN";
		return -EINVAL;
	}
	snprintf(name, size, "block/%u:%u", major, minor);
	return 0;
}

bool wait_name_safe(const char *name)
{
	if (!*name)
		return false;
	for (const char *c = name; *c;) {
		size_t len = strcspn(c, "/");

		if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += len + (c[len] == '/');
	}
	return true;
}

/* /dev/PATH: relative, no "." or ".." component, no empty component. */
static int path_name(const char *spec, char *name, size_t size, const char **why)
{
	const char *p = spec + 5;

	if (!*p || strlen(p) >= size) {
		*why = "empty or too long";
		return -EINVAL;
	}
	if (!wait_name_safe(p)) {
		*why = "'.', '..' or empty components would leave /dev";
		return -EINVAL;
	}
	snprintf(name, size, "%s", p);
	return 0;
}

int wait_spec_name(const char *spec, char *name, size_t size, const char **why)
{
	*why = "";
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (strncmp(spec, tags[i].prefix, strlen(tags[i].prefix)) == 0)
			return tag_name(&tags[i], spec + strlen(tags[i].prefix), name, size, why);
	if (strncmp(spec, "/dev/", 5) == 0)
		return path_name(spec, name, size, why);
	return devnum_name(spec, name, size, why);
}

bool wait_found(struct engine *e, const char *name, char *devname, size_t size)
{
	char target[PATH_MAX];
	struct stat st;

	/* a disk link counts once the table agrees: its node is in place then */
	if (strncmp(name, "disk/", 5) == 0)
		return e->links_ready && disk_links_resolve(&e->links, name + 5, devname, size) &&
		       fstatat(e->devnode.devfd, devname, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (fstatat(e->devnode.devfd, name, &st, 0) < 0 ||
	    !(S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)))
		return false;
	/* report the node itself for block/MAJ:MIN, the name otherwise */
	ssize_t n = readlinkat(e->devnode.devfd, name, target, sizeof(target) - 1);

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

void wait_describe_devices(struct engine *e, void (*emit)(void *u, const char *line), void *u)
{
	struct describe_ctx c = { emit, u };

	if (e->links_ready)
		disk_links_foreach_device(&e->links, describe_one, &c);
}
