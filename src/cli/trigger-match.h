/* SPDX-License-Identifier: MIT */
/*
 * `udevadm trigger --subsystem-match=S... --property-match=KEY=VALUE...
 * [--action=change|add]` as udevadm 252 runs it, without the daemon: every
 * device of the subsystems (the entries of /sys/bus/S/devices and
 * /sys/class/S, as sd-device's enumerator finds them) whose properties
 * (its uevent file's and its udev database entry's, /run/udev/data/<id>)
 * match gets the action written to its uevent file; the kernel sends the
 * event and the daemon handles it as any other. 64-btrfs.rules runs
 * `udevadm trigger -s block -p ID_BTRFS_READY=0` from the member that
 * completes a multi-device btrfs, so the members seen before are looked
 * at again (they then count as ready).
 *
 * Matching as sd-device's: subsystems are exact names here (udevadm takes
 * globs; rules pass names), properties are fnmatch(3) patterns on the key
 * and the value; any subsystem and any property match (OR within a kind,
 * AND between kinds). Hostile: the match words (a rules file's RUN line),
 * the sysfs entries (resolved by sysdev_lookup below /devices, nothing
 * followed outside) and the database files (rules_db_file_read: bounded,
 * fuzzed). Not thread-safe (one call at a time: a command).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define TRIGGER_MATCH_MAX 16 /* subsystems, and property patterns, in one call */

struct trigger_match {
	const char *subsystems[TRIGGER_MATCH_MAX];
	size_t nsubsystems;
	const char *props[TRIGGER_MATCH_MAX]; /* "KEY=VALUE" patterns */
	size_t nprops;
	const char *action; /* "add" or "change" */
	bool dry_run;       /* -n: match and print, write nothing */
};

/* A subsystem name trigger_match_run accepts (a sysfs directory name). */
bool trigger_match_subsystem_ok(const char *name);
/* A property pattern it accepts: "KEY=VALUE", KEY not empty. */
bool trigger_match_property_ok(const char *pattern);

/*
 * Write m->action to the uevent file of every matching device below
 * sysfs; with verbose, print each one's /sys path there (udevadm -v).
 * udev_run is the database's directory (/run/udev). Returns how many were
 * triggered (or matched, dry run), or -errno if sysfs cannot be opened;
 * a device whose write fails is skipped (it may have gone) and counted in
 * *failed.
 */
int trigger_match_run(const struct trigger_match *m, const char *sysfs, const char *udev_run,
		      FILE *verbose, unsigned int *failed);
