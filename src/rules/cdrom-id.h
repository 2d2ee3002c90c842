/* SPDX-License-Identifier: MIT */
/*
 * udev's cdrom_id helper (systemd 252, src/udev/cdrom_id), which
 * 60-cdrom_id.rules runs as `IMPORT{program}="cdrom_id --lock-media
 * $devnode"`: the drive's capabilities (CDROM_GET_CAPABILITY, GET
 * CONFIGURATION's profile list) and the medium in it (current profile,
 * READ TOC, READ DISC INFORMATION), printed as udev's ID_CDROM* properties.
 * initdev runs it in-process (the rules engine maps the relative program
 * name `cdrom_id` to rules_cdrom_id_program), so udev's helper stays out
 * of the image.
 *
 * The drive's replies are outside input: every reply lands in a zeroed
 * buffer of the size udev uses, every offset read is checked against that
 * size and against the length the reply claims, and the counts are kept
 * as udev keeps them (16 bits at most). cdrom_probe talks to the drive
 * through struct cdrom_drive only, so the parsers run on canned replies
 * (tests) and on fuzz input (fuzz/fuzz-cdrom-id.c) as on a real drive
 * (rules/cdrom-sg.c). No allocation but the two large reply buffers; no
 * global state; thread-safe.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How cdrom_probe reaches the drive; u is passed back. */
struct cdrom_drive {
	/* CDROM_GET_CAPABILITY: the CDC_* mask, or -errno */
	int (*capability)(void *u);
	/* CDROM_DRIVE_STATUS(CDSL_CURRENT): a CDS_* value, or -errno */
	int (*drive_status)(void *u);
	/*
	 * One SCSI command (cdb, cdb_len bytes) reading at most len bytes into
	 * buf (zeroed by the caller; a short reply leaves the rest zero).
	 * 0, -errno, or a positive sense code (key << 16 | ASC << 8 | ASCQ).
	 */
	int (*scsi)(void *u, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len);
	void *u;
};

#define CDROM_FEATURES_MAX 40 /* the profiles udev names (more than it has) */

struct cdrom_info {
	uint16_t features[CDROM_FEATURES_MAX]; /* named drive profiles, first seen first */
	size_t nfeatures;
	int media_feature; /* the current profile; -1: none */
	bool has_media;
	int media_state; /* 0 blank, 1 appendable, 2 complete, 3 other; -1: unknown */
	unsigned int session_next, session_count, track_count, track_count_data, track_count_audio;
	uint64_t session_last_offset;
};

/*
 * What cdrom_id finds, in its order. Returns 0, or -errno when the drive
 * is no CD drive (CDROM_GET_CAPABILITY failed): cdrom_id then prints
 * nothing and fails. Other failures only leave things out, as in udev.
 */
int cdrom_probe(const struct cdrom_drive *d, struct cdrom_info *out);

/*
 * cdrom_id's output for info: "KEY=VALUE\n" lines, NUL-terminated.
 * Returns the length, or -ENOBUFS if size is too small (out is then "").
 */
int cdrom_format(const struct cdrom_info *info, char *out, size_t size);

/*
 * `cdrom_id [--lock-media|--unlock-media|--eject-media] [--debug] DEVNODE`
 * on devnode (the event's node below the --dev root, not argv's path: the
 * rules' text does not choose what is opened). Fills out as the program's
 * stdout. Returns the program's exit status: 0, or 1 (an option cdrom_id
 * does not have, no single DEVICE, a node that does not open, no CD drive).
 */
int rules_cdrom_id_program(const char *devnode, int argc, char **argv, char *out, size_t size);
