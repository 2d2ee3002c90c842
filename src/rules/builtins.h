/* SPDX-License-Identifier: MIT */
/*
 * initdev's implementations of udev's builtins for the rules: blkid (the
 * native probe, udev's property names), path_id (the native by-path code),
 * kmod load (through a loader the caller supplies), net_driver (udev 257:
 * ethtool's driver name, rules/net-driver.h), input_id (names/input-id.h),
 * usb_id (names/usb-id.h), hwdb (rules/hwdb-search.h over the hwdb.bin the
 * caller loaded), btrfs ready (the BTRFS_IOC_DEVICES_READY question),
 * keyboard (rules/keyboard.h); and udev's helper program cdrom_id
 * (rules/cdrom-id.h), run in-process. The others udev has (net_id,
 * net_setup_link, uaccess) fail as a failing builtin fails in udev, each
 * logged once.
 */
#pragma once

#include <stdbool.h>

#include "handlers/blkid-probe.h"
#include "names/hwdb.h"
#include "rules/rules.h"

struct rules_builtins {
	const char *sysfs;
	const struct sysdev_root *sys; /* sysfs, open; NULL: opened for the builtins that read it */
	const struct hwdb *hwdb;       /* the loaded hwdb.bin; NULL: hwdb fails, as udev's without one */
	const char *dev; /* the --dev root: where DEVNAME's node is */
	const struct logger *log;
	/* kmod load: name is a module (alias false) or a MODALIAS; NULL: fails */
	int (*load)(void *u, const char *name, bool alias);
	void *load_u;
	/* blkid: what the native probe found for devpath already; NULL or false: probe */
	bool (*probed)(void *u, const char *devpath, struct probe_result *out);
	void *probed_u;
	unsigned int warned; /* builtins whose absence was logged (atomic) */
};

/* udev's blkid builtin properties (ID_FS_*, ID_PART_*) of a probe result. */
int rules_blkid_props(struct rules_event *ev, const struct probe_result *p);

/*
 * What udev's own 50-udev-default.rules sets for a block device, which
 * initdev's native handling replaces (so dracut's image leaves the file
 * out): ID_IGNORE_DISKSEQ=1 for md arrays (kept in their database entry).
 * 0 or -errno.
 */
int rules_default_props(struct rules_event *ev);

/*
 * A rules_program_fn: udev's helper cdrom_id (rules/cdrom-id.h) on the
 * event's node below b->dev; -ENOENT for any other program.
 */
int rules_builtins_program(void *u, struct rules_event *ev, int argc, char **argv, char *out,
			   size_t size);

/* A rules_builtin_fn: pass a struct rules_builtins * as u. */
int rules_builtins_run(void *u, struct rules_event *ev, enum rules_builtin b, int argc,
		       char **argv);
