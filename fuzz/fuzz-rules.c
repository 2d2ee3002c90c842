/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for perms_parse: whatever the file holds, the result is
 * bounded and every kept rule is one the matcher can use as is.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handlers/perms.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static size_t count_lines(const uint8_t *data, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n + (size > 0 && data[size - 1] != '\n');
}

/* A field as the parser promises it: non-empty, no blank or control byte. */
static void check_field(const char *s)
{
	CHECK(s != NULL && s[0] != '\0' && s[0] != '#');
	CHECK(strlen(s) < PERMS_LINE_MAX);
	for (const char *p = s; *p != '\0'; p++)
		CHECK((unsigned char)*p > 0x20 && *p != 0x7f);
}

static void check_rules(const struct perms *r, size_t lines)
{
	unsigned int prev = 0;

	CHECK(r->n <= PERMS_MAX);
	CHECK(r->n + r->errors <= lines);
	CHECK(r->n == 0 || r->v != NULL);
	for (size_t i = 0; i < r->n; i++) {
		const struct perm_rule *rule = &r->v[i];

		check_field(rule->subsystem);
		check_field(rule->glob);
		CHECK(strcmp(rule->subsystem, "*") == 0 || strchr(rule->subsystem, '/') == NULL);
		CHECK(rule->glob[0] != '/');
		CHECK(rule->mode <= 07777);
		CHECK(rule->has_mode || rule->mode == 0);
		CHECK(!rule->has_uid || rule->uid != (uid_t)-1);
		CHECK(!rule->has_gid || rule->gid != (gid_t)-1);
		CHECK(rule->line > prev && rule->line <= lines);
		prev = rule->line;
	}
}

/* The matcher answers with one of the rules (or none) for any name. */
static void check_match(const struct perms *r)
{
	static const char *const names[] = { "sda", "sda1", "bus/usb/001/002", "input/event0", "" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct perm_rule *m = perms_match(r, "block", names[i]);

		CHECK(m == NULL || (m >= r->v && m < r->v + r->n));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct logger devnull = { .fd = -1, .max_level = LOG_DEBUG, .ident = "fuzz" };
	struct perms quiet, loud;
	size_t lines = count_lines(data, size);

	if (devnull.fd < 0)
		devnull.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (perms_parse(&quiet, (const char *)data, size, "fuzz", NULL) < 0)
		return 0; /* ENOMEM */
	check_rules(&quiet, lines);
	check_match(&quiet);
	/* logging must not change the verdict (and its formatting gets exercised) */
	if (perms_parse(&loud, (const char *)data, size, "fuzz", &devnull) == 0) {
		CHECK(loud.n == quiet.n && loud.errors == quiet.errors);
		perms_free(&loud);
	}
	perms_free(&quiet);
	CHECK(quiet.n == 0 && quiet.v == NULL);
	return 0;
}
