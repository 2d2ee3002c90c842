/* SPDX-License-Identifier: MIT */
/* libFuzzer target: `initdev wait SPEC` parsing (SPEC comes from root= on
 * the kernel command line). A name must stay one path below /dev. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names/wait-spec.h"

static void check_name(const char *spec, const char *name)
{
	int slashes = 0;

	/* no absolute path, no "." or ".." component, no empty component */
	if (name[0] == '/' || name[0] == '\0')
		abort();
	for (const char *c = name; *c;) {
		size_t len = strcspn(c, "/");

		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			abort();
		c += len + (c[len] == '/');
	}
	/* tag values are encoded: exactly disk/by-xxx/ONE-COMPONENT */
	for (const char *c = name; *c; c++)
		slashes += *c == '/';
	if (strchr(spec, '=') && spec[0] != '/' && slashes != 2)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[2048], name[WAIT_NAME_MAX];
	const char *why;

	if (size >= sizeof(spec))
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (wait_spec_name(spec, name, sizeof(name), &why) == 0)
		check_name(spec, name);
	else if (!why || !why[0])
		abort(); /* a refusal always says why */
	return 0;
}
