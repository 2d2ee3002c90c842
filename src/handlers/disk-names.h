/* SPDX-License-Identifier: MIT */
/*
 * The /dev/disk names udev's 60-persistent-storage.rules give a block
 * device, from its uevent, its probe result and sysfs (pure functions, no
 * state): by-uuid and by-label (usage filesystem, other or crypto),
 * by-partuuid, by-partlabel (GPT), by-diskseq (disks), by-id, by-path
 * (partitions: the disk's name plus "-partN"); with udev 257's results
 * (UDEV_COMPAT) also by-diskseq/N-partM, by-loop-inode, by-loop-ref and a
 * partition's names below "by-path/<ID_PATH>-part/". Labels and UUIDs are
 * hostile: they arrive encoded (blkid-probe.h: '/' is \x2f), each name is
 * bounded by LINK_NAME_MAX, and the link table checks every name's shape
 * again (disk_links_name_valid).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "gate/uevent.h"
#include "handlers/blkid-probe.h"
#include "handlers/disk-links.h"

#define DISK_NAMES_MAX 32

/*
 * The link names (each "by-xxx/NAME") udev gives the device of ev with probe
 * result p; names[DISK_NAMES_MAX][LINK_NAME_MAX]. Returns the count.
 */
size_t disk_link_names(const char *sysfs, const struct uevent *ev,
		       const struct probe_result *p, char names[][LINK_NAME_MAX]);
/*
 * The same for the results of udev udev_compat (252 or 257) rather than the
 * build's UDEV_COMPAT: 257 adds by-diskseq/N-partM, the loop links and a
 * partition's names below "by-path/<ID_PATH>-part/" (by-partnum, by-partuuid,
 * by-partlabel, by-uuid, by-label). Lets one build test both.
 */
size_t disk_link_names_compat(const char *sysfs, const struct uevent *ev,
			      const struct probe_result *p, int udev_compat,
			      char names[][LINK_NAME_MAX]);

/* True for the kernel names 60-persistent-storage.rules handles. */
bool disk_is_storage(const char *sysname);
