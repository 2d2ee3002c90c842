/* SPDX-License-Identifier: MIT */
/*
 * /dev/disk/by-path names exactly as systemd-udevd 252 (Debian 12) makes
 * them: its path_id builtin plus the by-path lines of
 * 60-persistent-storage.rules, computed from sysfs alone.
 *
 * Partitions: udev names a partition's links "<disk link>-part<N>", N being
 * the trailing digits of the partition's kernel name (sda1 -> 1, nvme0n1p2 ->
 * 2); the caller appends that (and drops the result if it passes 255 bytes).
 * Partitions with a "whole_disk" attribute get no links at all.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/sysdev.h"

#define PATH_ID_MAX 1024        /* ID_PATH bound (udev's UDEV_PATH_SIZE) */
#define PATH_ID_NAME_MAX 256    /* one link name plus NUL */
#define PATH_ID_LINKS_MAX 8     /* more than the rules ever make for one disk */

/*
 * udev's ID_PATH for the device at sysfs + devpath (devpath as in DEVPATH,
 * "/devices/..."), e.g. "pci-0000:00:04.0", "pci-0000:00:05.0-scsi-0:0:0:0",
 * "pci-0000:00:06.0-nvme-1", "pci-0000:00:1f.2-ata-1.0",
 * "pci-0000:00:1d.0-usb-0:1:1.0-scsi-0:0:0:0". Returns 0; -ENOENT if udev
 * would give none; -ENAMETOOLONG if it does not fit size; other -errno.
 */
int path_id(const char *sysfs, const char *devpath, char *out, size_t size);

/*
 * The same walk, also returning udev's ID_PATH_ATA_COMPAT (the "-ata-N" name
 * next to "-ata-N.M"; "" when there is none) into compat (PATH_ID_MAX bytes).
 */
int path_id_full(const char *sysfs, const char *devpath, char *out, size_t size,
		 char compat[PATH_ID_MAX]);

/*
 * The by-path link names (without "disk/by-path/") udev 252 makes for the
 * whole disk at sysfs + devpath: ID_PATH, the ATA compatibility name, the
 * legacy "virtio-pci-..." name for vd* disks, "...-bootN" for eMMC boot
 * partitions. Only for block devices udev's rules name (sd*, vd*, nvme*,
 * sr*, mmcblk*, ...) that have a device number and DEVTYPE=disk. Each name
 * is escaped as udev escapes a SYMLINK value; names udev would turn into a
 * subdirectory (a '/' from sysfs) or could not create (over 255 bytes) are
 * left out. Returns the count (at most max; PATH_ID_LINKS_MAX holds them
 * all), or -errno.
 */
int path_id_links(const char *sysfs, const char *devpath,
		  char names[][PATH_ID_NAME_MAX], size_t max);

/*
 * udev 257's directory for a partition's nested by-path links
 * ("by-path/<ID_PATH>-part/by-partnum/N"): "<ID_PATH>-part" of the whole
 * disk at sysfs + devpath, escaped as path_id_links escapes ID_PATH, one
 * path component (a '/' from sysfs, or over 255 bytes: none). 0, or
 * -ENOENT where udev has no ID_PATH for the disk (no nested links), or
 * -errno.
 */
int path_id_part_dir(const char *sysfs, const char *devpath, char name[PATH_ID_NAME_MAX]);

/* ---- shared with disk-id.c ---- */

/*
 * 0 if 60-persistent-storage.rules names links for this device: a block
 * device with a kernel name from the rules' list, a device number, no
 * "whole_disk" attribute and DEVTYPE=disk. Fills sysname. -ENOENT/-ENODEV
 * otherwise.
 */
int path_id_storage_disk(const struct sysdev_root *root, const char *devpath,
			 char sysname[SYSDEV_NAME_MAX]);
/* A kernel name from the rules' KERNEL list (loop*, sd*, vd*, nvme*, ...). */
bool path_id_storage_kernel(const char *sysname);
/*
 * A block device udev's rules probe with blkid: the storage kernel names
 * (60-persistent-storage), dm-* (13-dm-disk) and md* (63-md-raid-arrays).
 * Not fd*, ram*, mtdblock* (nor zram* before udev 257): udev gives them no filesystem links,
 * and probing a floppy drive costs I/O errors and seconds.
 */
bool path_id_probed_kernel(const char *sysname);
/* A udev rule match: name against "a|b|c" glob alternatives. */
bool path_id_match(const char *name, const char *patterns);
/*
 * Append prefix + value + suffix as udev forms a SYMLINK from a literal, one
 * substitution and a literal (replace_mode: OPTIONS="string_escape=replace"),
 * unless it is not a usable name or already listed, and while *n < max.
 */
void path_id_add_link(char names[][PATH_ID_NAME_MAX], size_t *n, size_t max,
		      const char *prefix, const char *value, const char *suffix,
		      bool replace_mode);
