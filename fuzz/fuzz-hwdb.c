/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a hwdb.bin (outside input: the image's file, written by
 * whoever built it). Loading checks the header; lookups of modaliases of
 * every shape stay inside the file, terminate, and give only what they
 * count. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names/hwdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int seen(void *u, const char *key, const char *value)
{
	if (!key || !value)
		abort();
	++*(int *)u;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modaliases[] = {
		"usb:v1D6Bp0003d0601dc09dsc00dp03ic09isc00ip00in00",
		"usb:v0627p0001:QEMU USB Keyboard",
		"pci:v00008086d0000100E",
		"pci:v00001AB4d",
		"evdev:name:Test pad:dmi:bvnX",
		"exact:match",
		"*",
		"",
	};
	struct hwdb h;

	if (hwdb_load(&h, data, size, NULL) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(modaliases) / sizeof(modaliases[0]); i++) {
		int n = 0, r = hwdb_lookup(&h, modaliases[i], seen, &n);

		if (r >= 0 ? r != n : (r != -EBADMSG && r != -E2BIG) || n != 0)
			abort();
	}
	hwdb_close(&h);
	return 0;
}
