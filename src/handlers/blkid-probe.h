/* SPDX-License-Identifier: MIT */
/*
 * Probing a block device with libblkid's low-level API (no cache file):
 * superblock TYPE, USAGE, UUID, LABEL and partition entry details, raw and
 * encoded exactly as udev's blkid builtin exports them (ID_FS_*_ENC).
 * Everything read from the device is hostile: a USB stick carries any label.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PROBE_VALUE_MAX 256  /* raw values are cut here (a label is <= 255) */
#define PROBE_ENC_MAX (4 * PROBE_VALUE_MAX) /* \xNN escaping quadruples */
#define PROBE_IDS 8 /* the ISO 9660 / UDF identifiers udev exports */
#define PROBE_LOOP_NAME_MAX 64 /* the kernel's lo_file_name, NUL included */

struct probe_result {
	/* filesystem (or other superblock: swap, LUKS, raid member...) */
	bool has_fs;
	char fs_type[32];                  /* ID_FS_TYPE */
	char fs_usage[16];                 /* ID_FS_USAGE: filesystem, other, crypto, raid */
	char fs_version[32];               /* ID_FS_VERSION */
	char fs_uuid[PROBE_VALUE_MAX];     /* ID_FS_UUID (raw, made safe as udev does) */
	char fs_uuid_enc[PROBE_ENC_MAX];   /* ID_FS_UUID_ENC (blkid_encode_string) */
	char fs_uuid_sub[PROBE_VALUE_MAX]; /* ID_FS_UUID_SUB */
	char fs_label[PROBE_VALUE_MAX];    /* ID_FS_LABEL (raw, made safe as udev does) */
	char fs_label_enc[PROBE_ENC_MAX];  /* ID_FS_LABEL_ENC */
	/*
	 * ISO 9660 and UDF identifiers (SYSTEM_ID, PUBLISHER_ID, ...), each
	 * blkid_encode_string'd as udev 252's blkid builtin exports them
	 * (ID_FS_SYSTEM_ID, ...: probe_iso_ids's order); the longest is 128 bytes
	 */
	char fs_ids[PROBE_IDS][4 * 128 + 1];
	/* partition table on a whole disk */
	char pt_type[16];                  /* ID_PART_TABLE_TYPE: gpt, dos */
	char pt_uuid[64];                  /* ID_PART_TABLE_UUID */
	/* this device's entry in its disk's partition table */
	bool has_part_entry;
	char part_scheme[16];              /* ID_PART_ENTRY_SCHEME */
	char part_uuid[64];                /* ID_PART_ENTRY_UUID */
	char part_name[PROBE_VALUE_MAX];   /* raw PART_ENTRY_NAME */
	char part_name_enc[PROBE_ENC_MAX]; /* ID_PART_ENTRY_NAME (udev exports it encoded) */
	char part_type[64];                /* ID_PART_ENTRY_TYPE */
	unsigned int part_number;          /* ID_PART_ENTRY_NUMBER */
	/* udev >= 257 only (UDEV_COMPAT): the superblock's size fields ... */
	char fs_size[24];                  /* ID_FS_SIZE (libblkid FSSIZE), decimal */
	char fs_lastblock[24];             /* ID_FS_LASTBLOCK */
	char fs_blocksize[24];             /* ID_FS_BLOCKSIZE */
	/* ... and a loop device's backing file (LOOP_GET_STATUS64) */
	bool has_loop;
	char loop_device[24];              /* ID_LOOP_BACKING_DEVICE: MAJ:MIN */
	char loop_inode[24];               /* ID_LOOP_BACKING_INODE */
	char loop_name[PROBE_LOOP_NAME_MAX];          /* ID_LOOP_BACKING_FILENAME */
	char loop_name_enc[4 * PROBE_LOOP_NAME_MAX];  /* ID_LOOP_BACKING_FILENAME_ENC */
};

/*
 * Probe the open block device fd (read-only). Returns 0 (possibly with
 * nothing found: has_fs false), -EIO/-errno if it could not be read, or
 * -EUCLEAN if the superblocks contradict each other (ambivalent probe, as
 * udev reports it: no ID_FS_* then).
 */
int probe_fd(int fd, struct probe_result *out);

/*
 * Call fn(u, KEY, value) for each ID_FS_*, ID_PART_TABLE_* and
 * ID_PART_ENTRY_* property of p with a value, named and ordered as udev's
 * blkid builtin sets them. Stops at fn's first non-zero return, returned.
 */
int probe_props(const struct probe_result *p, int (*fn)(void *u, const char *key, const char *value),
		void *u);

/*
 * Encode like blkid_encode_string (a wrapper so callers need not link blkid).
 * Returns 0, -E2BIG if in is longer than PROBE_VALUE_MAX - 1 bytes, -ENOSPC
 * if the result does not fit size (out is "" on any error).
 */
int probe_encode(const char *in, char *out, size_t size);
