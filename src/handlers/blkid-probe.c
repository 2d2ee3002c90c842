/* SPDX-License-Identifier: MIT */
/*
 * What udev 252's blkid builtin does, with the same libblkid calls and
 * flags, so ID_FS_* and the /dev/disk names come out byte for byte equal:
 * superblocks with LABEL|UUID|TYPE|SECTYPE|USAGE|VERSION (no BADCSUM: a
 * superblock with a bad checksum is not reported), partitions with
 * BLKID_PARTS_ENTRY_DETAILS, a safe probe (an ambivalent result reports no
 * filesystem), raw values through blkid_safe_string and *_ENC values
 * through blkid_encode_string.
 */
#include "handlers/blkid-probe.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "handlers/blkid-dl.h"
#include "util/number.h"

/*
 * libblkid 2.38's encoder writes one byte past the size it is given when a
 * "\xNN" lands at the end (seen under ASan), and older safe-string copies
 * wrote their NUL past it. Feed both input cut to PROBE_VALUE_MAX - 1 bytes
 * and outputs with room to spare.
 */
#define ENC_SCRATCH (4 * (PROBE_VALUE_MAX - 1) + 8)

/* udev probes small whole disks for a partition table first (floppies) */
#define SMALL_DISK_BYTES (1024 * 1440)

/* Copy a value blkid returned: stop at NUL and at len, cut at PROBE_VALUE_MAX - 1. */
static void cut_value(const char *data, size_t len, char out[PROBE_VALUE_MAX])
{
	size_t n = strnlen(data, len < PROBE_VALUE_MAX - 1 ? len : PROBE_VALUE_MAX - 1);

	memcpy(out, data, n);
	out[n] = '\0';
}

/* A short field (type, scheme, UUID): a value that does not fit is dropped, not cut. */
static void set_field(char *field, size_t size, const char *value)
{
	size_t n = strnlen(value, size);

	if (n >= size)
		return;
	memcpy(field, value, n + 1);
}

int probe_encode(const char *in, char *out, size_t size)
{
	char enc[ENC_SCRATCH];
	size_t n;

	if (size == 0)
		return -EINVAL;
	out[0] = '\0';
	if (strnlen(in, PROBE_VALUE_MAX) >= PROBE_VALUE_MAX)
		return -E2BIG;
	if (blkid_dl_load() < 0)
		return -ENOSYS;
	/* cannot fail: 255 input bytes encode to at most 1020 */
	if (blkid_encode_string(in, enc, sizeof(enc)) != 0)
		return -E2BIG;
	n = strnlen(enc, sizeof(enc));
	if (n >= size)
		return -ENOSPC;
	memcpy(out, enc, n + 1);
	return 0;
}

/* ID_FS_LABEL / ID_FS_UUID: whitespace squeezed to '_', odd bytes to '_'. */
static void make_safe(const char raw[PROBE_VALUE_MAX], char out[PROBE_VALUE_MAX])
{
	char tmp[PROBE_VALUE_MAX + 8];

	/* raw holds at most PROBE_VALUE_MAX - 1 bytes: the result is no longer */
	blkid_safe_string(raw, tmp, PROBE_VALUE_MAX);
	tmp[PROBE_VALUE_MAX - 1] = '\0';
	memcpy(out, tmp, strlen(tmp) + 1);
}

/*
 * ID_FS_LABEL_ENC and ID_FS_UUID_ENC as udev 252's blkid builtin makes
 * them (print_property): blkid_encode_string into the 256-byte buffer
 * that holds the safe string, its failure ignored. An encoding longer
 * than 252 bytes (a long label with escaped bytes) stops there, and the
 * value is what it wrote, then the safe string's bytes past that point
 * (udev's buffer beyond the safe string is stack garbage: here zeros).
 */
static void encode_as_udev(const char *raw, const char *safe, char *enc, size_t enc_size)
{
	char s[PROBE_VALUE_MAX] = "";

	if (probe_encode(raw, enc, enc_size) == 0 && strlen(enc) + 3 < sizeof(s))
		return; /* it fit: the same */
	memcpy(s, safe, strnlen(safe, sizeof(s) - 1));
	if (blkid_dl_load() == 0)
		(void)blkid_encode_string(raw, s, sizeof(s));
	s[sizeof(s) - 1] = '\0';
	snprintf(enc, enc_size, "%s", s);
}

/* A raw value exported twice: made safe, and encoded (enc may be NULL). */
static void set_safe_enc(const char *data, size_t len, char safe[PROBE_VALUE_MAX],
			 char *enc, size_t enc_size)
{
	char raw[PROBE_VALUE_MAX];

	cut_value(data, len, raw);
	make_safe(raw, safe);
	if (enc != NULL)
		encode_as_udev(raw, safe, enc, enc_size);
}

/* PART_ENTRY_NUMBER: a small decimal; anything else leaves 0 (unknown). */
static unsigned int parse_number(const char *s)
{
	uint64_t v;

	return number_parse_str(s, 1000000, &v) == 0 ? (unsigned int)v : 0;
}

static bool set_part_value(struct probe_result *o, const char *name, const char *data,
			   size_t len)
{
	char raw[PROBE_VALUE_MAX];

	if (strncmp(name, "PART_ENTRY_", 11) != 0)
		return false;
	name += 11;
	o->has_part_entry = true;
	cut_value(data, len, raw);
	if (strcmp(name, "SCHEME") == 0) {
		set_field(o->part_scheme, sizeof(o->part_scheme), raw);
	} else if (strcmp(name, "UUID") == 0) {
		set_field(o->part_uuid, sizeof(o->part_uuid), raw);
	} else if (strcmp(name, "NAME") == 0) {
		memcpy(o->part_name, raw, sizeof(raw));
		(void)probe_encode(raw, o->part_name_enc, sizeof(o->part_name_enc));
	} else if (strcmp(name, "TYPE") == 0) {
		/* udev exports it encoded too; a GUID or "0x83" encodes to itself */
		char enc[PROBE_ENC_MAX];

		if (probe_encode(raw, enc, sizeof(enc)) == 0)
			set_field(o->part_type, sizeof(o->part_type), enc);
	} else if (strcmp(name, "NUMBER") == 0) {
		o->part_number = parse_number(raw);
	}
	return true;
}

/*
 * udev 257's FSSIZE, FSLASTBLOCK and FSBLOCKSIZE (ID_FS_SIZE, ...): decimal
 * numbers from the superblock; anything else is dropped. False: not one.
 */
static bool set_fsinfo(struct probe_result *o, const char *name, const char *raw)
{
	char *field = NULL;
	uint64_t v;

	if (strcmp(name, "FSSIZE") == 0)
		field = o->fs_size;
	else if (strcmp(name, "FSLASTBLOCK") == 0)
		field = o->fs_lastblock;
	else if (strcmp(name, "FSBLOCKSIZE") == 0)
		field = o->fs_blocksize;
	if (field == NULL)
		return false;
	if (number_parse_str(raw, UINT64_MAX, &v) == 0)
		snprintf(field, sizeof(o->fs_size), "%" PRIu64, v);
	return true;
}

/* libblkid's names of the identifiers udev's builtin exports as ID_FS_<name> */
static const char *const iso_ids[PROBE_IDS] = {
	"SYSTEM_ID", "PUBLISHER_ID", "APPLICATION_ID", "BOOT_SYSTEM_ID",
	"VOLUME_ID", "LOGICAL_VOLUME_ID", "VOLUME_SET_ID", "DATA_PREPARER_ID",
};

/* An ISO 9660 / UDF identifier: true if name is one (stored encoded, or dropped). */
static bool set_id(struct probe_result *o, const char *name, const char *raw)
{
	for (size_t i = 0; i < PROBE_IDS; i++) {
		if (strcmp(name, iso_ids[i]) != 0)
			continue;
		if (probe_encode(raw, o->fs_ids[i], sizeof(o->fs_ids[i])) < 0)
			o->fs_ids[i][0] = '\0';
		return true;
	}
	return false;
}

/* One NAME=value pair from libblkid into the result (unknown names ignored). */
static void set_value(struct probe_result *o, const char *name, const char *data, size_t len)
{
	char raw[PROBE_VALUE_MAX];

	if (strcmp(name, "LABEL") == 0) {
		set_safe_enc(data, len, o->fs_label, o->fs_label_enc, sizeof(o->fs_label_enc));
	} else if (strcmp(name, "UUID") == 0) {
		set_safe_enc(data, len, o->fs_uuid, o->fs_uuid_enc, sizeof(o->fs_uuid_enc));
	} else if (strcmp(name, "UUID_SUB") == 0) {
		set_safe_enc(data, len, o->fs_uuid_sub, NULL, 0);
	} else if (!set_part_value(o, name, data, len)) {
		cut_value(data, len, raw);
		if ((UDEV_COMPAT >= 257 && set_fsinfo(o, name, raw)) || set_id(o, name, raw)) {
			/* stored */
		} else if (strcmp(name, "TYPE") == 0) {
			set_field(o->fs_type, sizeof(o->fs_type), raw);
			o->has_fs = o->fs_type[0] != '\0';
		} else if (strcmp(name, "USAGE") == 0) {
			set_field(o->fs_usage, sizeof(o->fs_usage), raw);
		} else if (strcmp(name, "VERSION") == 0) {
			set_field(o->fs_version, sizeof(o->fs_version), raw);
		} else if (strcmp(name, "PTTYPE") == 0) {
			set_field(o->pt_type, sizeof(o->pt_type), raw);
		} else if (strcmp(name, "PTUUID") == 0) {
			set_field(o->pt_uuid, sizeof(o->pt_uuid), raw);
		}
	}
}

/* libblkid's -1 (errno maybe set), -2 (ambivalent) or a negative errno, as -errno. */
static int blkid_error(int rc, int saved_errno)
{
	if (rc == -2)
		return -EUCLEAN;
	if (rc == -1)
		return saved_errno > 0 ? -saved_errno : -EIO;
	return rc;
}

/*
 * udev's order: a small whole disk (not a character device) is first probed
 * for a partition table only, and if it has one, no filesystem is looked
 * for. Then partitions with entry details and superblocks, in a safe probe.
 * Returns 0 (found), 1 (nothing) or libblkid's negative code.
 */
static int run_probe(blkid_probe pr, int fd)
{
	struct stat st;
	int rc;

	if (fstat(fd, &st) < 0)
		return -1;
	blkid_probe_enable_partitions(pr, 1);
	if (!S_ISCHR(st.st_mode) && blkid_probe_get_size(pr) <= SMALL_DISK_BYTES &&
	    blkid_probe_is_wholedisk(pr)) {
		blkid_probe_enable_superblocks(pr, 0);
		rc = blkid_do_fullprobe(pr);
		if (rc < 0)
			return rc;
		if (blkid_probe_lookup_value(pr, "PTTYPE", NULL, NULL) == 0)
			return 0;
	}
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	blkid_probe_enable_superblocks(pr, 1);
	return blkid_do_safeprobe(pr);
}

static void collect(blkid_probe pr, struct probe_result *out)
{
	int n = blkid_probe_numof_values(pr);

	for (int i = 0; i < n; i++) {
		const char *name, *data;
		size_t len;

		if (blkid_probe_get_value(pr, i, &name, &data, &len) < 0 || name == NULL ||
		    data == NULL)
			continue;
		set_value(out, name, data, len);
	}
}

/*
 * Only block devices and image files (tests) are probed: 0, or 1 if it is
 * empty (an unbound loop device, a drive without medium): nothing to find,
 * so no probe is set up.
 */
static int check_fd(int fd)
{
	uint64_t size = 0;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode))
		return st.st_size == 0;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	return ioctl(fd, BLKGETSIZE64, &size) == 0 && size == 0;
}

/* The device fd is open on has a kernel name starting "loop" (loop0, loop0p1), as udev checks. */
static bool is_loop(const struct stat *st)
{
	char link[64], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st->st_rdev), minor(st->st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	base = strrchr(target, '/');
	return strncmp(base ? base + 1 : target, "loop", 4) == 0;
}

static bool has_control_byte(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/*
 * udev 257's blkid builtin on a loop device: the backing file's device and
 * inode, and the name userspace gave it (lo_file_name: free-form, set by
 * whoever attached the device). A name of 63 bytes may have been cut by the
 * kernel, so udev leaves it out, as here. udev exports the raw name as it
 * is; a name with a control byte (a line end forges lines in udev's
 * database) is kept only encoded, where every such byte is \xNN.
 */
static void loop_backing(int fd, struct probe_result *o)
{
	struct loop_info64 info;
	char raw[PROBE_LOOP_NAME_MAX];
	struct stat st;
	size_t n;

	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || !is_loop(&st))
		return;
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
		return; /* detached (ENXIO): nothing to say */
	o->has_loop = true;
	snprintf(o->loop_device, sizeof(o->loop_device), "%u:%u", major(info.lo_device),
		 minor(info.lo_device));
	snprintf(o->loop_inode, sizeof(o->loop_inode), "%" PRIu64, (uint64_t)info.lo_inode);
	n = strnlen((const char *)info.lo_file_name, sizeof(info.lo_file_name));
	if (n == 0 || n >= sizeof(info.lo_file_name) - 1)
		return;
	memcpy(raw, info.lo_file_name, n);
	raw[n] = '\0';
	if (probe_encode(raw, o->loop_name_enc, sizeof(o->loop_name_enc)) < 0)
		return;
	if (!has_control_byte(raw))
		memcpy(o->loop_name, raw, n + 1);
}

int probe_fd(int fd, struct probe_result *out)
{
	blkid_probe pr;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = check_fd(fd);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	if (blkid_dl_load() < 0)
		return -ENOSYS; /* no libblkid: no filesystem links, said once per device */
	errno = 0;
	pr = blkid_new_probe();
	if (pr == NULL)
		return -ENOMEM;
	errno = 0;
	rc = blkid_probe_set_device(pr, fd, 0, 0);
	if (rc == 0) {
		int flags = BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE |
			    BLKID_SUBLKS_SECTYPE | BLKID_SUBLKS_USAGE | BLKID_SUBLKS_VERSION;

#ifdef BLKID_SUBLKS_FSINFO
		if (UDEV_COMPAT >= 257)
			flags |= BLKID_SUBLKS_FSINFO; /* udev 257 asks for the size fields */
#endif
		blkid_probe_set_superblocks_flags(pr, flags);
		errno = 0;
		rc = run_probe(pr, fd);
	} else {
		rc = -1; /* 1 would mean "no fd"; check_fd ruled that out */
	}
	if (rc == 0)
		collect(pr, out);
	if (rc >= 0 && UDEV_COMPAT >= 257)
		loop_backing(fd, out); /* udev reads it whether or not a superblock was found */
	rc = rc < 0 ? blkid_error(rc, errno) : 0;
	blkid_free_probe(pr);
	return rc;
}

static int emit(int (*fn)(void *, const char *, const char *), void *u, const char *key,
		const char *value)
{
	return value[0] ? fn(u, key, value) : 0;
}

int probe_props(const struct probe_result *p, int (*fn)(void *u, const char *key, const char *value),
		void *u)
{
	char num[16], enc[PROBE_ENC_MAX] = "";
	int r = 0;

	if (p->fs_uuid_sub[0] && probe_encode(p->fs_uuid_sub, enc, sizeof(enc)) < 0)
		enc[0] = '\0';
	r = r ?: emit(fn, u, "ID_FS_UUID", p->fs_uuid);
	r = r ?: emit(fn, u, "ID_FS_UUID_ENC", p->fs_uuid_enc);
	r = r ?: emit(fn, u, "ID_FS_UUID_SUB", p->fs_uuid_sub);
	r = r ?: emit(fn, u, "ID_FS_UUID_SUB_ENC", enc);
	r = r ?: emit(fn, u, "ID_FS_LABEL", p->fs_label);
	r = r ?: emit(fn, u, "ID_FS_LABEL_ENC", p->fs_label_enc);
	r = r ?: emit(fn, u, "ID_FS_VERSION", p->fs_version);
	r = r ?: emit(fn, u, "ID_FS_BLOCKSIZE", p->fs_blocksize);
	r = r ?: emit(fn, u, "ID_FS_LASTBLOCK", p->fs_lastblock);
	r = r ?: emit(fn, u, "ID_FS_SIZE", p->fs_size);
	for (size_t i = 0; i < PROBE_IDS && !r; i++) {
		char key[40];

		snprintf(key, sizeof(key), "ID_FS_%s", iso_ids[i]);
		r = emit(fn, u, key, p->fs_ids[i]);
	}
	r = r ?: emit(fn, u, "ID_FS_TYPE", p->fs_type);
	r = r ?: emit(fn, u, "ID_FS_USAGE", p->fs_usage);
	r = r ?: emit(fn, u, "ID_PART_TABLE_UUID", p->pt_uuid);
	r = r ?: emit(fn, u, "ID_PART_TABLE_TYPE", p->pt_type);
	r = r ?: emit(fn, u, "ID_LOOP_BACKING_DEVICE", p->loop_device);
	r = r ?: emit(fn, u, "ID_LOOP_BACKING_INODE", p->loop_inode);
	r = r ?: emit(fn, u, "ID_LOOP_BACKING_FILENAME", p->loop_name);
	r = r ?: emit(fn, u, "ID_LOOP_BACKING_FILENAME_ENC", p->loop_name_enc);
	if (r || !p->has_part_entry)
		return r;
	snprintf(num, sizeof(num), "%u", p->part_number);
	r = r ?: emit(fn, u, "ID_PART_ENTRY_SCHEME", p->part_scheme);
	r = r ?: emit(fn, u, "ID_PART_ENTRY_NAME", p->part_name_enc);
	r = r ?: emit(fn, u, "ID_PART_ENTRY_UUID", p->part_uuid);
	r = r ?: emit(fn, u, "ID_PART_ENTRY_TYPE", p->part_type);
	r = r ?: emit(fn, u, "ID_PART_ENTRY_NUMBER", num);
	return r;
}
