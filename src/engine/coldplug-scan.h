/* SPDX-License-Identifier: MIT */
/*
 * Coldplug, the walk: every device below /sys/devices that can announce
 * itself, in the order the triggers are to be written.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

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
 * (systemd's): with root_first, the root path (rank.h: storage and input)
 * first; then devices of the prioritized subsystems module, block, tpmrm,
 * net, tty, input (in that order); each preceded by its ancestors; then the
 * rest in devpath order (parents before children); md and dm block devices
 * last. Returns 0 or -errno (the walk skips unreadable directories).
 */
int coldplug_scan(const char *sysfs, const char *subtree, bool root_first,
		  struct coldplug_list *out);

/* Priority of the devices root_first puts first (coldplug_device.priority). */
#define COLDPLUG_PRIO_ROOT 0
void coldplug_list_free(struct coldplug_list *l);
