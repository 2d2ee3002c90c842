/* SPDX-License-Identifier: MIT */
/*
 * libblkid, loaded on first use (util/dl.h): only the daemon probes disks,
 * and `initdev wait` encodes a label; dracut's dozen `udevadm` calls a boot
 * need neither, so they do not map it. Include this header instead of
 * <blkid/blkid.h>: the blkid_* calls below go through the table.
 */
#pragma once

#include <blkid/blkid.h>

struct blkid_api {
	blkid_probe (*new_probe)(void);
	void (*free_probe)(blkid_probe pr);
	int (*probe_set_device)(blkid_probe pr, int fd, blkid_loff_t off, blkid_loff_t size);
	int (*probe_enable_partitions)(blkid_probe pr, int enable);
	int (*probe_enable_superblocks)(blkid_probe pr, int enable);
	int (*probe_set_partitions_flags)(blkid_probe pr, int flags);
	int (*probe_set_superblocks_flags)(blkid_probe pr, int flags);
	blkid_loff_t (*probe_get_size)(blkid_probe pr);
	int (*probe_is_wholedisk)(blkid_probe pr);
	int (*do_fullprobe)(blkid_probe pr);
	int (*do_safeprobe)(blkid_probe pr);
	int (*probe_lookup_value)(blkid_probe pr, const char *name, const char **data,
				  size_t *len);
	int (*probe_numof_values)(blkid_probe pr);
	int (*probe_get_value)(blkid_probe pr, int num, const char **name, const char **data,
			       size_t *len);
	int (*encode_string)(const char *str, char *str_enc, size_t len);
	int (*safe_string)(const char *str, char *str_safe, size_t len);
};

/* Load libblkid.so.1 once. 0, or -ENOENT (then no blkid_* call may be made). */
int blkid_dl_load(void);
/* The table; valid only after blkid_dl_load() returned 0. */
const struct blkid_api *blkid_dl(void);

#define blkid_new_probe (blkid_dl()->new_probe)
#define blkid_free_probe (blkid_dl()->free_probe)
#define blkid_probe_set_device (blkid_dl()->probe_set_device)
#define blkid_probe_enable_partitions (blkid_dl()->probe_enable_partitions)
#define blkid_probe_enable_superblocks (blkid_dl()->probe_enable_superblocks)
#define blkid_probe_set_partitions_flags (blkid_dl()->probe_set_partitions_flags)
#define blkid_probe_set_superblocks_flags (blkid_dl()->probe_set_superblocks_flags)
#define blkid_probe_get_size (blkid_dl()->probe_get_size)
#define blkid_probe_is_wholedisk (blkid_dl()->probe_is_wholedisk)
#define blkid_do_fullprobe (blkid_dl()->do_fullprobe)
#define blkid_do_safeprobe (blkid_dl()->do_safeprobe)
#define blkid_probe_lookup_value (blkid_dl()->probe_lookup_value)
#define blkid_probe_numof_values (blkid_dl()->probe_numof_values)
#define blkid_probe_get_value (blkid_dl()->probe_get_value)
#define blkid_encode_string (blkid_dl()->encode_string)
#define blkid_safe_string (blkid_dl()->safe_string)
