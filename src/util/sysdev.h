/* SPDX-License-Identifier: MIT */
/*
 * Bounded, symlink-safe reads of one sysfs device and its ancestors, the way
 * udev's sd-device sees them: a device is a directory under /devices with a
 * "uevent" file; its parent is the nearest such ancestor directory. Devices
 * are named by devpath ("/devices/..."); all paths are walked component by
 * component from the sysfs root with O_NOFOLLOW, so nothing in the tree can
 * redirect a read outside it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define SYSDEV_PATH_MAX 1024  /* devpath bound (udev's UDEV_PATH_SIZE) */
#define SYSDEV_ATTR_MAX 4096  /* text attribute bound (one sysfs page) */
#define SYSDEV_NAME_MAX 256   /* subsystem, devtype, sysname */

struct sysdev_root {
	int fd;               /* the sysfs root directory */
	bool walk_only;       /* no openat2: the pre-5.6 way (tests set it) */
};

int sysdev_root_open(struct sysdev_root *root, const char *sysfs);
void sysdev_root_close(struct sysdev_root *root);

/* Open the directory of devpath (O_PATH); -errno. */
int sysdev_open_dir(const struct sysdev_root *root, const char *devpath);
bool sysdev_is_device(const struct sysdev_root *root, const char *devpath);

/* Nearest ancestor device of devpath into out; -ENOENT at the top. */
int sysdev_parent(const struct sysdev_root *root, const char *devpath,
		  char *out, size_t size);

/*
 * Read attribute name of devpath as udev does: a regular file, cut at the
 * first NUL, trailing newlines dropped. Returns the length, -ENOENT if absent,
 * -EFBIG if longer than size - 1 (out then holds the first size - 1 bytes).
 */
int sysdev_attr(const struct sysdev_root *root, const char *devpath,
		const char *name, char *out, size_t size);
/* Raw bytes of a binary attribute (VPD pages): up to size, returns count. */
int sysdev_attr_raw(const struct sysdev_root *root, const char *devpath,
		    const char *name, unsigned char *out, size_t size);

/* Last component of the "subsystem" link; -ENOENT if none. */
int sysdev_subsystem(const struct sysdev_root *root, const char *devpath,
		     char out[SYSDEV_NAME_MAX]);
bool sysdev_subsystem_is(const struct sysdev_root *root, const char *devpath,
			 const char *subsystem);
/* DEVTYPE= from the uevent file; -ENOENT if none. */
int sysdev_devtype(const struct sysdev_root *root, const char *devpath,
		   char out[SYSDEV_NAME_MAX]);

/* udev's sysname: last devpath component with '!' read as '/'. */
void sysdev_sysname(const char *devpath, char out[SYSDEV_NAME_MAX]);
/* Trailing digits of the sysname (NULL if none or if it is all digits). */
const char *sysdev_sysnum(const char *sysname);

/*
 * The first ancestor of devpath (not devpath itself) in subsystem with
 * devtype (NULL: any), like sd_device_get_parent_with_subsystem_devtype().
 */
int sysdev_find_parent(const struct sysdev_root *root, const char *devpath,
		       const char *subsystem, const char *devtype,
		       char *out, size_t size);

/*
 * The device called sysname in subsystem, found the way udev looks it up
 * (bus/SUBSYS/devices/NAME, then class/SUBSYS/NAME), as a devpath.
 */
int sysdev_lookup(const struct sysdev_root *root, const char *subsystem,
		  const char *sysname, char *out, size_t size);
