/* SPDX-License-Identifier: MIT */
/*
 * `udevadm info --query=property --name=DEV` for the devices initdev knows:
 * the udev property names dracut and friends read (DEVNAME, MAJOR, MINOR,
 * SUBSYSTEM, DEVTYPE, DEVPATH, ID_FS_*, ID_PART_ENTRY_*, ID_PART_TABLE_*),
 * then what the udev rules set for it (MD_LEVEL, DM_NAME, ...).
 */
#pragma once

#include <stddef.h>

#include "engine/engine.h"

/*
 * Resolve name ("/dev/sda1", "sda1", "/dev/disk/by-uuid/...") below the
 * engine's /dev root and format KEY=VALUE lines into buf. Returns the length,
 * -ENOENT if no such device is known, -EINVAL if name leaves the /dev root.
 */
int info_properties(struct engine *e, const char *name, char *buf, size_t size);
