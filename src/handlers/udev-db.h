/* SPDX-License-Identifier: MIT */
/*
 * udev 252's database, as the real root's udevd, libudev and lvm read it
 * after switch_root: one file per device, /run/udev/data/<id> (id "b254:0"
 * or "c10:236"), with the lines
 *     S:<link below /dev>   each symlink (devices with a node)
 *     L:<priority>          link_priority, if not 0
 *     I:<usec>              CLOCK_MONOTONIC of the device's first event
 *     E:<KEY>=<VALUE>       each property the rules set, in their order
 *     G:<tag> / Q:<tag>     tags / tags of the last event
 *     V:1                   the format version
 * mode 01644 (sticky) when the rules set OPTIONS+="db_persist": such files
 * survive `udevadm info --cleanup-db`, which dracut runs before
 * switch_root. Beside them the indexes udev keeps: /run/udev/links/
 * <escaped link>/<id> (a symlink saying "<priority>:<devnode>", how udevd
 * arbitrates a link several devices claim) and /run/udev/tags/<tag>/<id>.
 *
 * initdev writes an entry for every device udevd writes one for
 * (sd-device's device_update_db): after each event, a file for a device
 * with a number ("b254:0"), an interface index ("n3") or something the
 * rules set (links, properties, tags: then "+SUBSYSTEM:SYSNAME"); with
 * nothing set, the file is empty for the first two and absent for the
 * rest; a removed device's file goes. PID 1 (device units), libudev and
 * sd-device clients in a systemd initrd read them; the db_persist ones
 * are what udev itself leaves to the real root (docs/handoff.md). Names and
 * values come from rules and devices (hostile): a link or tag name is one
 * file name below links/ or tags/ (escaped as udev escapes it, or left out);
 * a value with a line end ('\n' or '\r': util/oneline.h) is left out (it
 * would forge a line), and udev_db_write logs what it left out. Directories are
 * entered without following symlinks. Thread-safe for different devices;
 * calls for one device must not overlap (the engine orders a device's
 * events).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rules/props.h"
#include "util/log.h"

#define UDEV_DB_ID_MAX 256 /* a file name (NAME_MAX) and its NUL */

struct udev_db_entry {
	const char *id;               /* udev_db_device_id's; NULL: from block, major, minor */
	bool block;                   /* 'b' device, else 'c' */
	unsigned int major, minor;    /* major 0: no device number */
	unsigned int ifindex;         /* a network interface's index, 0: none */
	const char *devnode;          /* "/dev/dm-0": the link index's target */
	const struct strv *links;     /* "/dev/..." names (NULL: none) */
	int link_priority;
	uint64_t usec_initialized;    /* 0: no I: line */
	const struct props *props;    /* only those marked db are written */
	const struct strv *tags;      /* G: (NULL: none) */
	const struct strv *current_tags; /* Q: (NULL: none) */
	bool persist;                 /* db_persist: mode 01644 */
};

struct udev_db {
	int dirfd; /* the udev runtime directory (/run/udev), -1: closed */
	const struct logger *log;
};

/* A device as udev names its entry. */
struct udev_db_device {
	const char *subsystem;
	const char *devpath;          /* "/devices/...", "/bus/pci/drivers/x", ... */
	bool has_devnum;
	unsigned int major, minor;
	unsigned int ifindex;         /* 0: none */
};

/*
 * udev's id of d (sd-device's device_get_device_id), its entry's file
 * name: "b8:0" or "c10:236" with a device number, "n3" with an interface
 * index, else "+SUBSYSTEM:SYSNAME", SYSNAME the devpath's last part (a
 * driver, subsystem "drivers": "+drivers:BUS:NAME", BUS the part before
 * "/drivers/"). 0, or -EINVAL if that is no file name (a part missing or
 * empty, "/" in the subsystem, longer than NAME_MAX).
 */
int udev_db_device_id(const struct udev_db_device *d, char id[UDEV_DB_ID_MAX]);

/* e's id: e->id, else "b254:0" from block, major, minor. */
void udev_db_id(const struct udev_db_entry *e, char id[UDEV_DB_ID_MAX]);

/*
 * Does e carry what udevd writes lines for (sd-device's device_has_info):
 * links (with a device number), a link priority, a property, a tag? A
 * file without is empty (no I:, no V:), and kept only for a device with
 * a number or an interface index.
 */
bool udev_db_has_info(const struct udev_db_entry *e);

/*
 * e's data file text to f (flushed): nothing without info
 * (udev_db_has_info). Links not below /dev, empty names, and links,
 * properties and names with a line end (util/oneline.h) are left out. 0
 * or -EIO.
 */
int udev_db_print(const struct udev_db_entry *e, FILE *f);

/* What a line end keeps out of e's data file: how many fields, the first described. */
struct udev_db_refused {
	size_t count;
	char first[192]; /* "E:ID_FS_VERSION: the value holds a carriage return at byte 0" */
};

/* Fill r for e (outside bytes in r->first escaped, safe to log); returns r->count. */
size_t udev_db_refused(const struct udev_db_entry *e, struct udev_db_refused *r);

/*
 * udev's escaping of a link for its index directory: the name below /dev
 * ("disk/by-id/x"), each '/' as "\x2f" and '\' as "\x5c". -ENAMETOOLONG
 * if that exceeds a file name (udev then shortens it with a hash of the
 * name; initdev leaves such a link out of the index), -EINVAL if it names
 * nothing below /dev, or is "." or "..".
 */
int udev_db_escape_link(const char *link, char *out, size_t size);

/* Open (creating it 0755 if missing) dir, the udev runtime directory. 0 or -errno. */
int udev_db_open(struct udev_db *db, const char *dir, const struct logger *log);
void udev_db_close(struct udev_db *db);

/*
 * Write e's data file (atomically: a temporary file renamed into place)
 * and its link and tag index entries; old, if not NULL, is what was
 * written for the device before: its index entries e no longer has are
 * removed. A device without info, number or interface index gets no
 * file: what was there is removed (udev_db_remove of old, else of e). 0
 * or -errno.
 */
int udev_db_write(struct udev_db *db, const struct udev_db_entry *e,
		  const struct udev_db_entry *old);

/* Remove what udev_db_write(e) wrote: the data file and e's index entries. 0 or -errno. */
int udev_db_remove(struct udev_db *db, const struct udev_db_entry *e);

/*
 * `udevadm info --cleanup-db` on the udev runtime directory dir: every
 * data file without the sticky bit goes, then every link and tag index
 * entry whose data file is gone, and /run/udev/static_node-tags; the
 * db_persist entries and their indexes stay. Nothing is followed. 0 or
 * -errno (a missing dir is 0).
 */
int udev_db_cleanup(const char *dir);
