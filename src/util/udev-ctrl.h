/* SPDX-License-Identifier: MIT */
/*
 * udev's control protocol (systemd 252, src/udev/udev-ctrl.c), spoken on
 * /run/udev/control when PID 1 passes that socket (systemd-udevd-control.socket):
 * what the real `udevadm control` and `udevadm settle` send. One
 * SOCK_SEQPACKET message per request, a fixed 280-byte struct in host
 * byte order:
 *   char version[16] ("udev-252"; not checked, as udevd does not)
 *   unsigned magic   (0xdead1dea)
 *   int type         (enum udev_ctrl_type)
 *   union { int intval; char buf[256]; } value
 * No reply is ever sent: the client's END_MESSAGES (type 0) asks the server
 * to hang up, and its wait ends when it does. The sender must be root
 * (SCM_CREDENTIALS, checked by the caller).
 * Hostile: any peer that may connect sends any bytes; udev_ctrl_parse checks
 * the size, magic, type and value and never reads past len.
 */
#pragma once

#include <stddef.h>

#define UDEV_CTRL_MAGIC 0xdead1deau
#define UDEV_CTRL_BUF 256
#define UDEV_CTRL_WIRE_SIZE (16 + 4 + 4 + UDEV_CTRL_BUF)

enum udev_ctrl_type {
	UDEV_CTRL_END_MESSAGES,
	UDEV_CTRL_SET_LOG_LEVEL,
	UDEV_CTRL_STOP_EXEC_QUEUE,
	UDEV_CTRL_START_EXEC_QUEUE,
	UDEV_CTRL_RELOAD,
	UDEV_CTRL_SET_ENV,
	UDEV_CTRL_SET_CHILDREN_MAX,
	UDEV_CTRL_PING,
	UDEV_CTRL_EXIT,
	UDEV_CTRL_TYPE_COUNT,
};

struct udev_ctrl_msg {
	enum udev_ctrl_type type;
	int intval;                 /* SET_LOG_LEVEL (0..7), SET_CHILDREN_MAX (>= 0) */
	char env[UDEV_CTRL_BUF];    /* SET_ENV: "KEY=VALUE" (KEY not empty); else "" */
};

/*
 * One received message into m. NULL if it is well formed, else why not
 * (a constant string, safe to log).
 */
const char *udev_ctrl_parse(const void *data, size_t len, struct udev_ctrl_msg *m);

/* The message's name, as udevd logs it ("PING"; "?" if out of range). */
const char *udev_ctrl_type_name(enum udev_ctrl_type t);

/* Build a message as udevadm does (tests and fuzz seeds); out has
 * UDEV_CTRL_WIRE_SIZE bytes. env may be NULL. */
void udev_ctrl_build(void *out, enum udev_ctrl_type t, int intval, const char *env);
