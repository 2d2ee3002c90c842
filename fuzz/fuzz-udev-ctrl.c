/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a message on udev's control socket (util/udev-ctrl.h),
 * which any root process may send and a mistaken one may garble. Input: the
 * datagram. Invariants: only a message of exactly the wire size with the
 * magic parses; a parsed type is in range; SET_LOG_LEVEL is 0..7; SET_ENV
 * is a terminated "KEY=VALUE" with a key; every other field stays empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/udev-ctrl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct udev_ctrl_msg *m)
{
	size_t n = strnlen(m->env, sizeof(m->env));

	if ((unsigned int)m->type >= UDEV_CTRL_TYPE_COUNT || n == sizeof(m->env))
		abort();
	if (m->type == UDEV_CTRL_SET_LOG_LEVEL && (m->intval < 0 || m->intval > 7))
		abort();
	if (m->type == UDEV_CTRL_SET_ENV) {
		const char *eq = strchr(m->env, '=');

		if (!eq || eq == m->env)
			abort();
	} else if (n != 0) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct udev_ctrl_msg m;
	uint32_t magic;

	if (udev_ctrl_parse(data, size, &m) != NULL)
		return 0;
	memcpy(&magic, data + 16, sizeof(magic));
	if (size != UDEV_CTRL_WIRE_SIZE || magic != UDEV_CTRL_MAGIC)
		abort();
	check(&m);
	return 0;
}
