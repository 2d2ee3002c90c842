/* SPDX-License-Identifier: MIT */
#include "util/dl.h"

#include <dlfcn.h>
#include <errno.h>

static int fill(struct dl_lib *lib)
{
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return -ENOENT;
	for (size_t i = 0; i < lib->nsyms; i++) {
		void *f = dlsym(h, lib->syms[i].name);

		if (!f) {
			dlclose(h); /* there but not usable: nothing may call into it */
			return -ENOENT;
		}
		*(void **)((char *)lib->table + lib->syms[i].offset) = f;
	}
	return 0;
}

int dl_load(struct dl_lib *lib)
{
	int r;

	pthread_mutex_lock(&lib->lock);
	if (!lib->tried) {
		lib->result = fill(lib);
		lib->tried = true;
	}
	r = lib->result;
	pthread_mutex_unlock(&lib->lock);
	return r;
}
