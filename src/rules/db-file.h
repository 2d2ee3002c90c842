/* SPDX-License-Identifier: MIT */
/*
 * Reading udev's database (/run/udev/data/<id>, as udevd 252 writes it)
 * into a rules_record: for `initdev rules test --udev-db DIR`, where the
 * device's own record (IMPORT{db}, its old links) and its parents' records
 * (IMPORT{parent}) come from a running udev, and for test stand-ins that
 * hand records from one event's process to the next.
 *
 * The text is hostile (any process that could write /run/udev, any value a
 * rule stored): the file is read up to RULES_DB_FILE_MAX bytes (larger is
 * refused), lines are split as sd-device splits them (at '\n' and '\r';
 * a last line without an end is dropped; a line whose key is not one byte
 * and ':' is ignored, and so is an empty value), and every value goes
 * through the record's own bounds (a property longer than PROPS_VALUE_MAX
 * is left out). Lines read: E:KEY=VALUE, S:link (kept as "/dev/link"),
 * L:priority, G:tag, I:usec; the others (Q:, W:, V:, N:) are skipped.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "rules/rules.h"
#include "util/sysdev.h"

#define RULES_DB_FILE_MAX (1024 * 1024)
#define RULES_DB_ID_MAX (SYSDEV_NAME_MAX * 2 + 3)

/* Parse len bytes of a data file into rec (zeroed first). 0 or -ENOMEM. */
int rules_db_file_parse(const char *text, size_t len, struct rules_record *rec);

/*
 * udev's id of the device at devpath, read from sysfs as sd-device reads
 * it (the uevent file's MAJOR and MINOR, or IFINDEX): "b8:1" or "c1:3"
 * (a device number), "n3" (a network interface), else "+SUBSYSTEM:SYSNAME".
 * 0, -ENOENT (no subsystem: udev keeps no record), -ENAMETOOLONG.
 */
int rules_db_file_id(const struct sysdev_root *sys, const char *devpath, char *id, size_t size);

/* Read the data file id (one file name) in dirfd into rec. 0, -ENOENT, -EFBIG, -errno. */
int rules_db_file_read(int dirfd, const char *id, struct rules_record *rec);

/* A database directory as a rules_record_fn's u (IMPORT{parent}, the old record). */
struct rules_db_dir {
	int dirfd;                     /* /run/udev/data */
	const struct sysdev_root *sys; /* where devpaths are looked up */
};

/* rules_record_fn: devpath's record from the directory; false if none or unreadable. */
bool rules_db_dir_get(void *u, const char *devpath, struct rules_record *out);
