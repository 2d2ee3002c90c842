/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the udev rules parser, and for evaluating what it
 * compiled: whatever the text (long lines, bad escapes, deep GOTO chains,
 * unknown keys, NUL bytes), the compiled form keeps its promises (tokens
 * inside their line, GOTOs forward within the file, values terminated) and
 * applying it to an event stays bounded. Programs are not run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/rules.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static void check_compiled(const struct rules *r, size_t size)
{
	CHECK(r->nfiles == 1);
	for (size_t i = 0; i < r->nlines; i++) {
		const struct rules_line *l = &r->lines[i];

		CHECK(l->file == 0);
		CHECK(l->lineno >= 1 && l->lineno <= size + 1);
		CHECK((size_t)l->first + l->n <= r->ntokens);
		CHECK(l->goto_line == -1 ||
		      ((size_t)l->goto_line > i && (size_t)l->goto_line < r->nlines));
		CHECK(l->goto_line == -1 || r->lines[l->goto_line].label);
		for (uint32_t t = l->first; t + 1 < l->first + l->n; t++)
			CHECK(r->tokens[t].type <= r->tokens[t + 1].type);
		for (uint32_t t = l->first; t < l->first + l->n; t++) {
			CHECK(r->tokens[t].type < RTK_MAX && r->tokens[t].op <= ROP_ASSIGN_FINAL);
			CHECK(!r->tokens[t].value || strlen(r->tokens[t].value) < RULES_LINE_MAX);
		}
	}
}

static void apply(const struct rules *r, const struct sysdev_root *sys, const char *sysfs)
{
	static const char *const env[] = {
		"ACTION=add",      "DEVPATH=/devices/virtual/block/loop0",
		"SUBSYSTEM=block", "MAJOR=7",
		"MINOR=0",         "DEVNAME=loop0",
		"DEVTYPE=disk",    "ID_FS_TYPE=ext4"
	};
	struct rules_ctx ctx = { .sys = sys,
				 .sysfs = sysfs,
				 .no_writes = true,
				 .no_programs = true,
				 .cmdline = "root=/dev/loop0 rd.md=0" };
	struct rules_event ev;

	if (rules_event_init(&ev, env, sizeof(env) / sizeof(env[0]), NULL) < 0)
		return;
	(void)rules_apply(r, &ctx, &ev);
	(void)rules_event_finish(&ev);
	CHECK(ev.props.n <= PROPS_MAX && ev.nrun <= RULES_RUN_MAX && ev.links.n <= STRV_MAX);
	for (size_t i = 0; i < ev.props.n; i++)
		CHECK(strlen(ev.props.v[i].value) < PROPS_VALUE_MAX);
	rules_event_free(&ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sysdev_root sys = { .fd = -1 };
	static char sysfs[] = "/tmp/fuzz-udev-rules-XXXXXX";
	struct rules r;

	if (sys.fd < 0) {
		CHECK(mkdtemp(sysfs) != NULL);
		CHECK(sysdev_root_open(&sys, sysfs) == 0);
	}
	rules_init(&r, NULL, NULL);
	if (rules_parse_text(&r, "fuzz.rules", (const char *)data, size) == 0) {
		check_compiled(&r, size);
		apply(&r, &sys, sysfs);
	}
	rules_free(&r);
	CHECK(r.nlines == 0 && r.tokens == NULL);
	return 0;
}
