/* SPDX-License-Identifier: MIT */
#include "util/dl.h"

#include <dlfcn.h>
#include <errno.h>

int dl_fill(const char *lib, const struct dl_sym *syms, size_t n, void *table)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f)
			return -ENOENT; /* the library is there but not usable */
		*(void **)((char *)table + syms[i].offset) = f;
	}
	return 0;
}
