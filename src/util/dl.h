/* SPDX-License-Identifier: MIT */
/*
 * Libraries loaded on first use (libkmod, libblkid): a table of function
 * pointers filled by dlopen/dlsym once. A command that never needs the
 * library never maps it: dracut calls `udevadm` a dozen times a boot.
 */
#pragma once

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct dl_sym {
	const char *name;
	size_t offset; /* of the function pointer in the table */
};

#define DL_SYM(type, field, name) { name, offsetof(type, field) }

/* One library: where its symbols go, and whether it was tried. */
struct dl_lib {
	const char *soname;
	const struct dl_sym *syms;
	size_t nsyms;
	void *table;
	pthread_mutex_t lock; /* guards the first load */
	bool tried;
	int result;
};

#define DL_LIB(soname, syms, table) \
	{ (soname), (syms), sizeof(syms) / sizeof((syms)[0]), (table), PTHREAD_MUTEX_INITIALIZER, false, -ENOENT }

/*
 * On the first call, dlopen the library (RTLD_NOW | RTLD_LOCAL) and store
 * each symbol in its table. Thread-safe. 0, or -ENOENT if the library or a
 * symbol is missing (the library is then closed again, and no call may go
 * through the table); later calls return the same.
 */
int dl_load(struct dl_lib *lib);
