/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for cmdline_parse: whatever the boot loader line holds,
 * the result stays inside the bounds later code relies on, and parsing the
 * same line again changes nothing (lists are deduplicated, the last scalar
 * wins either way).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/cmdline.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static void check_list(char *const *list, size_t n)
{
	CHECK(n <= CMDLINE_LIST_MAX);
	CHECK(n == 0 || list != NULL);
	for (size_t i = 0; i < n; i++) {
		CHECK(name_ok(list[i]));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(list[i], list[j]) != 0);
	}
}

static void check(const struct cmdline *c)
{
	CHECK(c->timeout_sec == -1 ||
	      (c->timeout_sec >= 0 && c->timeout_sec <= CMDLINE_TIMEOUT_MAX));
	CHECK(c->handoff_timeout_sec == -1 ||
	      (c->handoff_timeout_sec >= 0 && c->handoff_timeout_sec <= CMDLINE_TIMEOUT_MAX));
	CHECK(c->workers == 0 || (c->workers >= 1 && c->workers <= CMDLINE_WORKERS_MAX));
	check_list(c->blacklist, c->nblacklist);
	check_list(c->pre, c->npre);
	for (size_t i = 0; i < c->nblacklist; i++)
		CHECK(cmdline_blacklisted(c, c->blacklist[i]));
}

static const struct logger *null_logger(void)
{
	static struct logger log;
	static bool ready;

	if (!ready) {
		log_init(&log, LOG_TARGET_STDERR, LOG_DEBUG);
		log.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		CHECK(log.fd >= 0);
		ready = true;
	}
	return &log;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct logger *log = null_logger();
	struct cmdline c;
	struct cmdline before;

	cmdline_init(&c);
	CHECK(cmdline_parse(&c, (const char *)data, size, log) == 0);
	check(&c);
	before = c;
	/* idempotent: a second pass adds nothing and changes no scalar */
	CHECK(cmdline_parse(&c, (const char *)data, size, NULL) == 0);
	check(&c);
	CHECK(c.debug == before.debug && c.timeout_sec == before.timeout_sec);
	CHECK(c.workers == before.workers);
	CHECK(c.handoff_timeout_sec == before.handoff_timeout_sec);
	CHECK(c.nblacklist == before.nblacklist && c.npre == before.npre);
	cmdline_free(&c);
	CHECK(c.nblacklist == 0 && c.npre == 0 && c.blacklist == NULL && c.pre == NULL);
	return 0;
}
