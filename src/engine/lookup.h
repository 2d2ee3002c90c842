/* SPDX-License-Identifier: MIT */
/*
 * Questions about the /dev the engine built: which device has this node,
 * is this name there yet (initdev wait), which block devices were seen (the
 * report when a wait fails). Names are relative to the --dev root and never
 * lead out of it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

struct engine_device {
	char devpath[4096];
	char devname[4096];       /* relative to the /dev root */
	unsigned int major, minor;
	bool block;
	char subsystem[64];       /* from sysfs; "" if unknown */
	char devtype[16];         /* "disk" or "partition" for block devices; else "" */
	bool has_disk;            /* a block device the disk handler knows */
	struct disk_links_device_info disk;
};

/*
 * The device whose node name resolves to ("/dev/sda1", "sda1",
 * "/dev/disk/by-uuid/..."), following links inside the /dev root. 0,
 * -ENOENT if no such device is known, -EINVAL if name leaves the root.
 */
int engine_lookup(struct engine *e, const char *name, struct engine_device *out);

/*
 * True if name exists below the root (following links inside it to a block
 * or character device node) and, for disk/by-* names, the link table
 * agrees. The resolved node (relative to the root) goes to devname.
 */
bool engine_found(struct engine *e, const char *name, char *devname, size_t size);

/* One line per known block device with its probed tags, through emit. */
void engine_describe_devices(struct engine *e, void (*emit)(void *u, const char *line),
			     void *u);

/*
 * One line per device claiming a /dev/disk name another device keeps (a
 * cloned UUID or label), naming both, through emit.
 */
void engine_describe_conflicts(struct engine *e, void (*emit)(void *u, const char *line),
			       void *u);
