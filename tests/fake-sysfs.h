/* SPDX-License-Identifier: MIT */
/*
 * Fake sysfs trees for tests, built in the case's scratch directory: files,
 * links and devices as sysfs shows them (a directory with a "uevent" file
 * and a "subsystem" link). Every helper fails the case on error.
 */
#pragma once

#include <stddef.h>

void fs_mkdir_p(const char *path);
void fs_write_file(const char *path, const char *content);
void fs_read_file(const char *path, char *buf, size_t size);
void fs_symlink_at(const char *target, const char *dir, const char *name);

/*
 * A device sys<devpath> with an empty uevent file and, if subsys is given
 * ("class/block"), a subsystem link as sysfs makes it ("../../../class/block").
 */
void fs_mkdev(const char *devpath, const char *subsys);

#define FS_PCI "/devices/pci0000:00"
#define FS_USB FS_PCI "/0000:00:02.0/usb1"

/* A small machine under ./sys, with the traps a walk must not fall into. */
void fs_small_machine(void);
