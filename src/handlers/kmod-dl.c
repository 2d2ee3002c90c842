/* SPDX-License-Identifier: MIT */
#include "handlers/kmod-dl.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "util/dl.h"

/* Written once under pthread_once, read-only afterwards. */
static struct kmod_api api;
static int load_result = -ENOENT;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define SYM(field, name) DL_SYM(struct kmod_api, field, name)
static const struct dl_sym syms[] = {
	SYM(new_, "kmod_new"),
	SYM(unref, "kmod_unref"),
	SYM(load_resources, "kmod_load_resources"),
	SYM(set_log_fn, "kmod_set_log_fn"),
	SYM(set_log_priority, "kmod_set_log_priority"),
	SYM(module_new_from_lookup, "kmod_module_new_from_lookup"),
	SYM(module_new_from_name, "kmod_module_new_from_name"),
	SYM(module_get_module, "kmod_module_get_module"),
	SYM(module_get_name, "kmod_module_get_name"),
	SYM(module_get_path, "kmod_module_get_path"),
	SYM(module_get_install_commands, "kmod_module_get_install_commands"),
	SYM(module_get_initstate, "kmod_module_get_initstate"),
	SYM(module_probe_insert_module, "kmod_module_probe_insert_module"),
	SYM(module_unref, "kmod_module_unref"),
	SYM(module_unref_list, "kmod_module_unref_list"),
	SYM(list_next, "kmod_list_next"),
};

static void load(void)
{
	load_result = dl_fill("libkmod.so.2", syms, sizeof(syms) / sizeof(syms[0]), &api);
}

int kmod_dl_load(void)
{
	pthread_once(&once, load);
	return load_result;
}

const struct kmod_api *kmod_dl(void)
{
	return &api;
}
