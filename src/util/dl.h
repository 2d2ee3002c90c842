/* SPDX-License-Identifier: MIT */
/*
 * Libraries loaded on first use (libkmod, libblkid): a table of function
 * pointers filled by dlopen/dlsym once. A command that never needs the
 * library never maps it: dracut calls `udevadm` a dozen times a boot.
 */
#pragma once

#include <stddef.h>

struct dl_sym {
	const char *name;
	size_t offset; /* of the function pointer in the table */
};

#define DL_SYM(type, field, name) { name, offsetof(type, field) }

/*
 * dlopen lib (RTLD_NOW | RTLD_LOCAL) and store each symbol in table.
 * 0, or -ENOENT if the library or a symbol is missing (no call may then
 * go through the table). Not thread-safe: call it under pthread_once.
 */
int dl_fill(const char *lib, const struct dl_sym *syms, size_t n, void *table);
