/* SPDX-License-Identifier: MIT */
#include "handlers/blkid-dl.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "util/dl.h"

/* Written once under pthread_once, read-only afterwards. */
static struct blkid_api api;
static int load_result = -ENOENT;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define SYM(field, name) DL_SYM(struct blkid_api, field, name)
static const struct dl_sym syms[] = {
	SYM(new_probe, "blkid_new_probe"),
	SYM(free_probe, "blkid_free_probe"),
	SYM(probe_set_device, "blkid_probe_set_device"),
	SYM(probe_enable_partitions, "blkid_probe_enable_partitions"),
	SYM(probe_enable_superblocks, "blkid_probe_enable_superblocks"),
	SYM(probe_set_partitions_flags, "blkid_probe_set_partitions_flags"),
	SYM(probe_set_superblocks_flags, "blkid_probe_set_superblocks_flags"),
	SYM(probe_get_size, "blkid_probe_get_size"),
	SYM(probe_is_wholedisk, "blkid_probe_is_wholedisk"),
	SYM(do_fullprobe, "blkid_do_fullprobe"),
	SYM(do_safeprobe, "blkid_do_safeprobe"),
	SYM(probe_lookup_value, "blkid_probe_lookup_value"),
	SYM(probe_numof_values, "blkid_probe_numof_values"),
	SYM(probe_get_value, "blkid_probe_get_value"),
	SYM(encode_string, "blkid_encode_string"),
	SYM(safe_string, "blkid_safe_string"),
};

static void load(void)
{
	load_result = dl_fill("libblkid.so.1", syms, sizeof(syms) / sizeof(syms[0]), &api);
}

int blkid_dl_load(void)
{
	pthread_once(&once, load);
	return load_result;
}

const struct blkid_api *blkid_dl(void)
{
	return &api;
}
