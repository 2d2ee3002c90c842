/* SPDX-License-Identifier: MIT */
#include "builtin-fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysfs-fixture.h"

#define BX_OUT_MAX (64 * 1024)
#define BX_LINE_MAX 8192

int bx_blocks(const char *path, bx_block_fn fn, void *u)
{
	static char line[BX_LINE_MAX], head[BX_LINE_MAX], exp[BX_OUT_MAX];
	bool have = false;
	int n = 0;
	FILE *f = fopen(path, "r");

	ATF_REQUIRE_MSG(f, "%s", path);
	for (bool more = true; more;) {
		more = fgets(line, sizeof(line), f) != NULL;
		if (more && !have && line[0] == '#')
			continue; /* the header comment */
		if (more && strncmp(line, "== ", 3) != 0) {
			ATF_REQUIRE(strlen(exp) + strlen(line) < sizeof(exp));
			strcat(exp, line);
			continue;
		}
		if (have) {
			fn(head, exp, u);
			n++;
		}
		if (more) {
			line[strcspn(line, "\n")] = '\0';
			memcpy(head, line + 3, strlen(line + 3) + 1);
			exp[0] = '\0';
			have = true;
		}
	}
	fclose(f);
	return n;
}

struct compare {
	const struct sysdev_root *sys;
	bx_builtin_fn fn;
	const struct bx_gap *gaps;
	const char *devpath;
	char out[BX_OUT_MAX];
	size_t len;
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
	struct compare *c = u;
	const struct bx_gap *g = gap(c->gaps, c->devpath, key);
	int n;

	if (g) {
		ATF_CHECK_MSG(g->ours && strcmp(g->ours, value) == 0, "%s: %s=%s, expected %s",
			      c->devpath, key, value, g->ours ? g->ours : "(unset)");
		return 0;
	}
	n = snprintf(c->out + c->len, sizeof(c->out) - c->len, "%s=%s\n", key, value);
	ATF_REQUIRE(n > 0 && (size_t)n < sizeof(c->out) - c->len);
	c->len += (size_t)n;
	return 0;
}

/* udev's lines for devpath without the gaps' */
static void drop_gaps(const struct bx_gap *gaps, const char *devpath, const char *exp, char *out)
{
	out[0] = '\0';
	for (const char *l = exp; *l;) {
		size_t len = strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n');
		size_t klen = strcspn(l, "=\n");
		char key[BX_LINE_MAX];

		ATF_REQUIRE(klen < sizeof(key));
		memcpy(key, l, klen);
		key[klen] = '\0';
		if (!gap(gaps, devpath, key))
			strncat(out, l, len);
		l += len;
	}
}

static void compare_one(const char *devpath, const char *exp, void *u)
{
	static char want[BX_OUT_MAX];
	struct compare *c = u;

	c->len = 0;
	c->out[0] = '\0';
	c->devpath = devpath;
	(void)c->fn(c->sys, devpath, collect, c);
	drop_gaps(c->gaps, devpath, exp, want);
	ATF_CHECK_MSG(strcmp(c->out, want) == 0, "%s:\n--- initdev\n%s--- udev\n%s", devpath,
		      c->out, want);
}

int bx_compare(const atf_tc_t *tc, const char *name, const char *root, bx_builtin_fn fn,
	       const struct bx_gap *gaps)
{
	static struct compare c;
	char path[4096], file[256];
	struct sysdev_root sys;
	int n;

	fx_build(tc, name, root);
	ATF_REQUIRE(sysdev_root_open(&sys, root) == 0);
	snprintf(file, sizeof(file), "%s.udev", name);
	fx_path(tc, file, path, sizeof(path));
	c.sys = &sys;
	c.fn = fn;
	c.gaps = gaps;
	n = bx_blocks(path, compare_one, &c);
	sysdev_root_close(&sys);
	return n;
}
