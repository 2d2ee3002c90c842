/* SPDX-License-Identifier: MIT */
#include "util/udev-ctrl.h"

#include <stdint.h>
#include <string.h>

/* Offsets of the wire struct (udev-ctrl.c's UdevCtrlMessageWire). */
#define OFF_MAGIC 16
#define OFF_TYPE 20
#define OFF_VALUE 24

static const char *const type_names[UDEV_CTRL_TYPE_COUNT] = {
	[UDEV_CTRL_END_MESSAGES] = "END_MESSAGES",
	[UDEV_CTRL_SET_LOG_LEVEL] = "SET_LOG_LEVEL",
	[UDEV_CTRL_STOP_EXEC_QUEUE] = "STOP_EXEC_QUEUE",
	[UDEV_CTRL_START_EXEC_QUEUE] = "START_EXEC_QUEUE",
	[UDEV_CTRL_RELOAD] = "RELOAD",
	[UDEV_CTRL_SET_ENV] = "ENV",
	[UDEV_CTRL_SET_CHILDREN_MAX] = "SET_CHILDREN_MAX",
	[UDEV_CTRL_PING] = "PING",
	[UDEV_CTRL_EXIT] = "EXIT",
};

const char *udev_ctrl_type_name(enum udev_ctrl_type t)
{
	return (unsigned int)t < UDEV_CTRL_TYPE_COUNT ? type_names[t] : "?";
}

static int32_t get_int(const unsigned char *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* SET_ENV's value: NUL-terminated within the buffer, a '=' after a key. */
static const char *parse_env(const unsigned char *buf, struct udev_ctrl_msg *m)
{
	const unsigned char *nul = memchr(buf, '\0', UDEV_CTRL_BUF);
	const unsigned char *eq = memchr(buf, '=', UDEV_CTRL_BUF);

	if (!nul)
		return "ENV value not terminated";
	if (!eq || eq > nul || eq == buf)
		return "ENV value is not KEY=VALUE";
	memcpy(m->env, buf, (size_t)(nul - buf) + 1);
	return NULL;
}

const char *udev_ctrl_parse(const void *data, size_t len, struct udev_ctrl_msg *m)
{
	const unsigned char *p = data;
	int32_t type;

	memset(m, 0, sizeof(*m));
	if (len != UDEV_CTRL_WIRE_SIZE)
		return "not the size of a udev control message";
	if ((uint32_t)get_int(p + OFF_MAGIC) != UDEV_CTRL_MAGIC)
		return "wrong magic";
	type = get_int(p + OFF_TYPE);
	if (type < 0 || type >= UDEV_CTRL_TYPE_COUNT)
		return "unknown message type";
	m->type = (enum udev_ctrl_type)type;
	m->intval = get_int(p + OFF_VALUE);
	switch (m->type) {
	case UDEV_CTRL_SET_LOG_LEVEL:
		return (m->intval & 7) == m->intval ? NULL : "log level out of range";
	case UDEV_CTRL_SET_CHILDREN_MAX:
		return m->intval >= 0 ? NULL : "negative children count";
	case UDEV_CTRL_SET_ENV:
		return parse_env(p + OFF_VALUE, m);
	default:
		return NULL;
	}
}

void udev_ctrl_build(void *out, enum udev_ctrl_type t, int intval, const char *env)
{
	unsigned char *p = out;
	uint32_t magic = UDEV_CTRL_MAGIC;
	int32_t type = (int32_t)t, v = intval;

	memset(p, 0, UDEV_CTRL_WIRE_SIZE);
	memcpy(p, "udev-252", 8);
	memcpy(p + OFF_MAGIC, &magic, 4);
	memcpy(p + OFF_TYPE, &type, 4);
	if (env) {
		size_t n = strnlen(env, UDEV_CTRL_BUF - 1);

		memcpy(p + OFF_VALUE, env, n); /* the rest stays 0: terminated */
	} else
		memcpy(p + OFF_VALUE, &v, 4);
}
