/* SPDX-License-Identifier: MIT */
#include "builtin-fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysfs-fixture.h"

#define BX_OUT_MAX (64 * 1024)

struct out {
	char text[BX_OUT_MAX];
	size_t len;
	const char *devpath;
	const struct bx_gap *gaps;
};

static const struct bx_gap *gap(const struct bx_gap *gaps, const char *devpath, const char *key)
{
	for (; gaps && gaps->devpath; gaps++)
		if (strcmp(gaps->devpath, devpath) == 0 && strcmp(gaps->key, key) == 0)
			return gaps;
	return NULL;
}

static int collect(void *u, const char *key, const char *value)
{
	struct out *o = u;
	const struct bx_gap *g = gap(o->gaps, o->devpath, key);
	int n;

	if (g) {
		ATF_CHECK_MSG(g->ours && strcmp(g->ours, value) == 0, "%s: %s=%s, expected %s",
			      o->devpath, key, value, g->ours ? g->ours : "(unset)");
		return 0;
	}
	n = snprintf(o->text + o->len, sizeof(o->text) - o->len, "%s=%s\n", key, value);
	ATF_REQUIRE(n > 0 && (size_t)n < sizeof(o->text) - o->len);
	o->len += (size_t)n;
	return 0;
}

/* udev's lines for one device, gaps taken out */
static void expected_block(FILE *f, const char *devpath, const struct bx_gap *gaps, char *exp,
			   size_t size, char *next, size_t next_size)
{
	char line[8192];
	size_t len = 0;

	exp[0] = next[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		if (strncmp(line, "== ", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			ATF_REQUIRE(strlen(line + 3) < next_size);
			memcpy(next, line + 3, strlen(line + 3) + 1);
			return;
		}
		if (eq) {
			*eq = '\0';
			if (gap(gaps, devpath, line))
				continue;
			*eq = '=';
		}
		ATF_REQUIRE(len + strlen(line) < size);
		memcpy(exp + len, line, strlen(line) + 1);
		len += strlen(line);
	}
}

int bx_compare(const atf_tc_t *tc, const char *name, const char *root, bx_builtin_fn fn,
	       const struct bx_gap *gaps)
{
	char path[4096], devpath[SYSDEV_PATH_MAX], next[SYSDEV_PATH_MAX], line[8192];
	static char exp[BX_OUT_MAX];
	static struct out o;
	struct sysdev_root sys;
	int devices = 0;
	FILE *f;

	fx_build(tc, name, root);
	ATF_REQUIRE(sysdev_root_open(&sys, root) == 0);
	snprintf(line, sizeof(line), "%s.udev", name);
	fx_path(tc, line, path, sizeof(path));
	f = fopen(path, "r");
	ATF_REQUIRE_MSG(f, "%s", path);
	/* skip the header comment up to the first device */
	devpath[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "== ", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			ATF_REQUIRE(strlen(line + 3) < sizeof(devpath));
			memcpy(devpath, line + 3, strlen(line + 3) + 1);
			break;
		}
	while (devpath[0]) {
		expected_block(f, devpath, gaps, exp, sizeof(exp), next, sizeof(next));
		o.len = 0;
		o.text[0] = '\0';
		o.devpath = devpath;
		o.gaps = gaps;
		(void)fn(&sys, devpath, collect, &o);
		ATF_CHECK_MSG(strcmp(o.text, exp) == 0, "%s:\n--- initdev\n%s--- udev\n%s", devpath,
			      o.text, exp);
		devices++;
		memcpy(devpath, next, sizeof(devpath));
	}
	fclose(f);
	sysdev_root_close(&sys);
	return devices;
}
