/* SPDX-License-Identifier: MIT */
#include "rules/keyboard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "names/udev-string.h"
#include "util/escape.h"

#define RELEASE_MAX 1024 /* udev's force-release list */
#define ATTR_TEXT_MAX 4096

static const struct {
	const char *name;
	unsigned short code;
} keys[] = {
/* generated from <linux/input-event-codes.h> at build time (Makefile.am) */
#include "rules/keyboard-keys.inc"
};

int keyboard_key_code(const char *name)
{
	long v;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0)
			return keys[i].code;
	/* a number is taken as the code itself (udev's safe_atou) */
	if (ustr_parse_int(name, 0, &v) && v >= 0 && v <= KEY_MAX)
		return (int)v;
	return -1;
}

struct kbd {
	const struct sysdev_root *root;
	const char *devpath, *devnode;
	const struct logger *log;
	int fd;
	int has_abs; /* -1 unknown */
	unsigned int release[RELEASE_MAX];
	size_t nrelease;
};

/* The node, opened read-write once: 0 or -errno (logged). */
static int node(struct kbd *k)
{
	char e[256];

	if (k->fd >= 0)
		return 0;
	if (!k->devnode[0])
		return -ENODEV;
	k->fd = open(k->devnode, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (k->fd < 0)
		return log_errno(k->log, LOG_ERR, -errno, "keyboard: %s: cannot open",
				 escape_log(e, sizeof(e), k->devnode, strlen(k->devnode)));
	return 0;
}

/* Numbers after a prefix: hex, the whole rest (udev's safe_atou_full(.., 16)). */
static bool hex_suffix(const char *s, unsigned int *out)
{
	unsigned long v;

	if (!ustr_parse_ulong(s, 16, &v) || v > UINT_MAX)
		return false;
	*out = (unsigned int)v;
	return true;
}

static void map_key(struct kbd *k, unsigned int scan, const char *name)
{
	unsigned int map[2] = { scan, 0 };
	int code = keyboard_key_code(name);
	char e[128];

	if (code < 0) {
		log_msg(k->log, LOG_ERR, "keyboard: %s: unknown key identifier '%s'", k->devpath,
			escape_log(e, sizeof(e), name, strlen(name)));
		return;
	}
	map[1] = (unsigned int)code;
	if (ioctl(k->fd, EVIOCSKEYCODE, map) < 0)
		log_errno(k->log, LOG_ERR, -errno,
			  "keyboard: %s: EVIOCSKEYCODE scan code 0x%x to key code %u", k->devpath,
			  scan, map[1]);
}

static int key_prop(struct kbd *k, const char *key, const char *value)
{
	unsigned int scan;
	char e[128];
	int r;

	if (!hex_suffix(key + strlen("KEYBOARD_KEY_"), &scan)) {
		log_msg(k->log, LOG_WARNING, "keyboard: %s: bad scan code in '%s', ignored",
			k->devpath, escape_log(e, sizeof(e), key, strlen(key)));
		return 0;
	}
	if (value[0] == '!') {
		value++;
		/* udev keeps overwriting the last slot once the list is full */
		k->release[k->nrelease] = scan;
		if (k->nrelease < RELEASE_MAX - 1)
			k->nrelease++;
		if (!value[0])
			return 0;
	}
	r = node(k);
	if (r < 0)
		return r;
	map_key(k, scan, value);
	return 0;
}

/* "min:max:res:fuzz:flat", each part optional (kept as the kernel has it). */
static bool abs_parse(const char *s, struct input_absinfo *a)
{
	__s32 *field[] = { &a->minimum, &a->maximum, &a->resolution, &a->fuzz, &a->flat };

	for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 0);
		if (*end && *end != ':')
			return false;
		if (end != s)
			*field[i] = (__s32)v; /* udev stores strtol's long in an int32 */
		s = *end ? end + 1 : end;
	}
	return true;
}

static int abs_prop(struct kbd *k, const char *key, const char *value)
{
	struct input_absinfo a;
	unsigned int code;
	unsigned long bits = 0;
	char e[128];
	int r;

	if (!hex_suffix(key + strlen("EVDEV_ABS_"), &code) || code > ABS_MAX) {
		log_msg(k->log, LOG_WARNING, "keyboard: %s: bad axis in '%s', ignored", k->devpath,
			escape_log(e, sizeof(e), key, strlen(key)));
		return 0;
	}
	r = node(k);
	if (r < 0)
		return r;
	if (k->has_abs < 0) {
		if (ioctl(k->fd, EVIOCGBIT(0, sizeof(bits)), &bits) < 0)
			return log_errno(k->log, LOG_ERR, -errno, "keyboard: %s: EVIOCGBIT",
					 k->devpath);
		k->has_abs = !!(bits & (1UL << EV_ABS));
	}
	if (!k->has_abs)
		return 0;
	if (ioctl(k->fd, EVIOCGABS(code), &a) < 0 || !abs_parse(value, &a) ||
	    ioctl(k->fd, EVIOCSABS(code), &a) < 0)
		log_msg(k->log, LOG_ERR, "keyboard: %s: axis 0x%x not overridden with '%s'",
			k->devpath, code, escape_log(e, sizeof(e), value, strlen(value)));
	return 0;
}

/* Write text to attribute name of the device's serio parent. */
static int serio_write(struct kbd *k, const char *name, const char *text)
{
	char serio[SYSDEV_PATH_MAX];
	int dir, fd, r = 0;

	if (sysdev_find_parent(k->root, k->devpath, "serio", NULL, serio, sizeof(serio)) < 0)
		return -ENODEV;
	dir = sysdev_open_dir(k->root, serio);
	if (dir < 0)
		return dir;
	fd = openat(dir, name, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	close(dir);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		r = -errno;
	close(fd);
	return r;
}

static void sensitivity(struct kbd *k, const char *value)
{
	char e[64], text[16];
	long v;
	int r;

	if (!ustr_parse_int(value, 0, &v) || v < 0 || v > 255) {
		log_msg(k->log, LOG_ERR,
			"keyboard: %s: POINTINGSTICK_SENSITIVITY '%s' not in 0..255", k->devpath,
			escape_log(e, sizeof(e), value, strlen(value)));
		return;
	}
	snprintf(text, sizeof(text), "%ld", v);
	r = serio_write(k, "sensitivity", text);
	if (r < 0)
		log_errno(k->log, LOG_ERR, r, "keyboard: %s: cannot set the sensitivity",
			  k->devpath);
}

/* The serio parent's force_release list with these scan codes appended (cut at 4095 bytes). */
static void force_release(struct kbd *k)
{
	char serio[SYSDEV_PATH_MAX], codes[ATTR_TEXT_MAX];
	size_t len;
	int r;

	r = sysdev_find_parent(k->root, k->devpath, "serio", NULL, serio, sizeof(serio));
	if (r >= 0)
		r = sysdev_attr(k->root, serio, "force_release", codes, sizeof(codes));
	if (r < 0 && r != -EFBIG) {
		log_errno(k->log, LOG_ERR, r, "keyboard: %s: no force_release list", k->devpath);
		return;
	}
	len = strlen(codes);
	for (size_t i = 0; i < k->nrelease && len < sizeof(codes) - 1; i++) {
		int n = snprintf(codes + len, sizeof(codes) - len, ",%u", k->release[i]);

		len = n < 0 || (size_t)n >= sizeof(codes) - len ? sizeof(codes) - 1
								: len + (size_t)n;
	}
	r = serio_write(k, "force_release", codes);
	if (r < 0)
		log_errno(k->log, LOG_ERR, r, "keyboard: %s: cannot set force_release", k->devpath);
}

int keyboard_builtin(const struct sysdev_root *root, const char *devpath, const char *devnode,
		     const struct props *props, const struct logger *log)
{
	struct kbd *k = calloc(1, sizeof(*k));
	int r = 0;

	if (!k)
		return -ENOMEM;
	*k = (struct kbd){ .root = root,
			   .devpath = devpath,
			   .devnode = devnode,
			   .log = log,
			   .fd = -1,
			   .has_abs = -1 };
	for (size_t i = 0; i < props->n && r == 0; i++) {
		const char *key = props->v[i].key, *value = props->v[i].value;

		if (strncmp(key, "KEYBOARD_KEY_", 13) == 0)
			r = key_prop(k, key, value);
		else if (strncmp(key, "EVDEV_ABS_", 10) == 0)
			r = abs_prop(k, key, value);
		else if (strcmp(key, "POINTINGSTICK_SENSITIVITY") == 0)
			sensitivity(k, value);
	}
	if (r == 0 && k->nrelease > 0)
		force_release(k);
	if (k->fd >= 0)
		close(k->fd);
	free(k);
	return r;
}
