/* SPDX-License-Identifier: MIT */
#include "names/wait-spec.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "handlers/blkid-probe.h"
#include "util/number.h"

struct tag {
	const char *prefix;
	const char *dir;
};

static const struct tag tags[] = {
	{ "UUID=", "disk/by-uuid/" },
	{ "LABEL=", "disk/by-label/" },
	{ "PARTUUID=", "disk/by-partuuid/" },
	{ "PARTLABEL=", "disk/by-partlabel/" },
};

static int tag_name(const struct tag *t, const char *value, char *name, size_t size,
		    const char **why)
{
	char enc[PROBE_ENC_MAX];
	int n;

	if (!value[0] || strlen(value) >= PROBE_VALUE_MAX) {
		*why = "empty or longer than 255 bytes";
		return -EINVAL;
	}
	if (probe_encode(value, enc, sizeof(enc)) < 0) {
		*why = "cannot be encoded";
		return -EINVAL;
	}
	/* dots survive encoding; as a name they would mean the directories */
	if (strcmp(enc, ".") == 0 || strcmp(enc, "..") == 0) {
		*why = "'.' and '..' name no device";
		return -EINVAL;
	}
	n = snprintf(name, size, "%s%s", t->dir, enc);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* MAJ:MIN, both strict decimal numbers. */
static int devnum_name(const char *spec, char *name, size_t size, const char **why)
{
	const char *colon = strchr(spec, ':');
	uint64_t major, minor;

	if (!colon || number_parse(spec, (size_t)(colon - spec), UINT32_MAX, &major) < 0 ||
	    number_parse_str(colon + 1, UINT32_MAX, &minor) < 0) {
		*why = "expected MAJ:MIN";
		return -EINVAL;
	}
	snprintf(name, size, "block/%u:%u", (unsigned int)major, (unsigned int)minor);
	return 0;
}

bool wait_name_safe(const char *name)
{
	if (!*name)
		return false;
	for (const char *c = name; *c;) {
		size_t len = strcspn(c, "/");

		if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += len + (c[len] == '/');
	}
	return true;
}

/* /dev/PATH: relative, no "." or ".." component, no empty component. */
static int path_name(const char *spec, char *name, size_t size, const char **why)
{
	const char *p = spec + 5;

	if (!*p || strlen(p) >= size) {
		*why = "empty or too long";
		return -EINVAL;
	}
	if (!wait_name_safe(p)) {
		*why = "'.', '..' or empty components would leave /dev";
		return -EINVAL;
	}
	snprintf(name, size, "%s", p);
	return 0;
}

int wait_spec_name(const char *spec, char *name, size_t size, const char **why)
{
	*why = "";
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (strncmp(spec, tags[i].prefix, strlen(tags[i].prefix)) == 0)
			return tag_name(&tags[i], spec + strlen(tags[i].prefix), name, size, why);
	if (strncmp(spec, "/dev/", 5) == 0)
		return path_name(spec, name, size, why);
	return devnum_name(spec, name, size, why);
}
