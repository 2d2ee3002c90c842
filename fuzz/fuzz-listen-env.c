/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: LISTEN_FDS, LISTEN_PID and LISTEN_FDNAMES as adopt reads
 * them (whatever started the real root's udevd set them), and the names adopt
 * hands on. Input: the three values separated by newlines. Invariants: a
 * count stays within LISTEN_FDS_MAX, and the names handed on are exactly
 * n + 1, the last one the kernel socket's, the inherited ones kept whenever
 * there is one for each fd.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "handoff/handoff.h"
#include "handoff/listen-fds.h"

#define SELF 4242

static int count_names(const char *s)
{
	int n = 1;

	for (; *s; s++)
		n += *s == ':';
	return n;
}

static void check_names(const struct listen_env *e)
{
	char *out = listen_names_after(e->names, e->n);
	size_t klen = strlen(HANDOFF_KERNEL_FDNAME), olen;

	if (!out)
		return;
	olen = strlen(out);
	if (count_names(out) != e->n + 1 || olen < klen ||
	    strcmp(out + olen - klen, HANDOFF_KERNEL_FDNAME) != 0)
		abort();
	if (e->names && count_names(e->names) == e->n &&
	    (strncmp(out, e->names, strlen(e->names)) != 0 || out[strlen(e->names)] != ':'))
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *field[3] = { NULL, NULL, NULL }, *p;
	struct listen_env e;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	p = buf;
	for (int i = 0; i < 3 && p; i++) {
		field[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	if (listen_env_parse(&e, field[0], field[1], field[2], SELF) == 0) {
		if (e.n < 0 || e.n > LISTEN_FDS_MAX)
			abort();
		check_names(&e);
	}
	free(buf);
	return 0;
}
