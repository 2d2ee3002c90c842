/* SPDX-License-Identifier: MIT */
/*
 * What the rules read from sysfs, the way sd-device reads it, bounded and
 * symlink-safe: attributes (a name may hold plain subdirectories like
 * "md/array_state"; a symlink attribute reads as its target's last
 * component; nothing is read through a symlink), driver, subsystem,
 * parents, the uevent file, and udev's "[subsystem/kernel]attribute" form.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "rules/props.h"
#include "util/sysdev.h"

/* The value of attribute name of devpath: length, -ENOENT, -EINVAL. */
int rsys_attr(const struct sysdev_root *root, const char *devpath, const char *name, char *out,
	      size_t size);
/* The driver's name (last component of the "driver" link); -ENOENT if none. */
int rsys_driver(const struct sysdev_root *root, const char *devpath, char out[SYSDEV_NAME_MAX]);
/* The device's properties as a parent shows them: DEVPATH, SUBSYSTEM, the uevent file. */
int rsys_uevent_props(const struct sysdev_root *root, const char *devpath, struct props *out);

/*
 * "[subsystem/kernel]attribute": read_value: the attribute's value into
 * out; else "sysfs/devices/.../attribute" (the path, with the sysfs prefix).
 * -EINVAL if str is not of that form, -ENOENT/-ENODEV if no such device.
 */
int rsys_subsys_kernel(const struct sysdev_root *root, const char *sysfs, const char *str,
		       char *out, size_t size, bool read_value);
