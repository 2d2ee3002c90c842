/* SPDX-License-Identifier: MIT */
/*
 * Coldplug: find every device in sysfs and ask the kernel to announce it
 * again, each with a synthetic UUID so its reply can be recognised.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define COLDPLUG_UUID_LEN 36

struct coldplug_device {
	char *devpath;   /* "/devices/...", relative to the sysfs root */
	int priority;    /* lower triggers first (see coldplug_scan) */
};

struct coldplug_list {
	struct coldplug_device *dev;
	size_t n, cap;
};

/*
 * Walk sysfs/subtree (subtree is "/devices" or a directory below it) with
 * d_type, never following symlinks and skipping dot entries, and collect
 * every directory holding a regular file "uevent" and a "subsystem" link
 * (the kernel suppresses the uevents of devices without one). Sorted in trigger order
 * (systemd's): devices of the prioritized subsystems module, block, tpmrm,
 * net, tty, input (in that order), each preceded by its ancestors; then the
 * rest in devpath order (parents before children); md and dm block devices
 * last. Returns 0 or -errno (the walk skips unreadable directories).
 */
int coldplug_scan(const char *sysfs, const char *subtree, struct coldplug_list *out);
void coldplug_list_free(struct coldplug_list *l);

/*
 * Write "ACTION UUID" (or just "ACTION" when uuid is NULL) to
 * sysfs/devpath/uevent. Returns 0 or -errno from open/write (-ENOENT: the
 * device went away; -EINVAL with a uuid: the kernel predates synthetic
 * uevents, retry without).
 */
int coldplug_trigger(const char *sysfs, const char *devpath, const char *action,
		     const char *uuid);

/* Random bytes for UUIDs, fetched a batch at a time (one syscall, not one
 * a device). Zero-initialise. */
struct coldplug_uuids {
	unsigned char pool[32 * 16];
	size_t left;             /* unused bytes at the end of pool */
};

/* A fresh random UUID (8-4-4-4-12 lowercase hex, version 4). 0 or -errno. */
int coldplug_new_uuid(struct coldplug_uuids *u, char out[COLDPLUG_UUID_LEN + 1]);
