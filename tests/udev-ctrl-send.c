/* SPDX-License-Identifier: MIT */
/*
 * A udev control client for host tests (the real udevadm only talks to
 * /run/udev/control): connects to PATH, sends each MSG as udevadm would, or
 * a malformed one on purpose, then waits (up to 10 s) for the server to hang
 * up (also while it sends). Prints "hung up" (exit 0) or "still open" (exit 1); 3 on errors.
 *
 * Usage: udev-ctrl-send PATH MSG...
 *   ping | exit | reload | end | env=KEY=VALUE | log=N | children=N
 *   bad-magic | short | long (malformed PINGs)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/udev-ctrl.h"

static int die(const char *what)
{
	perror(what);
	exit(3);
}

/* One MSG into buf; its length. */
static size_t build(const char *msg, unsigned char *buf)
{
	if (strncmp(msg, "env=", 4) == 0)
		return udev_ctrl_build(buf, UDEV_CTRL_SET_ENV, 0, msg + 4), UDEV_CTRL_WIRE_SIZE;
	if (strncmp(msg, "log=", 4) == 0)
		return udev_ctrl_build(buf, UDEV_CTRL_SET_LOG_LEVEL, atoi(msg + 4), NULL),
		       UDEV_CTRL_WIRE_SIZE;
	if (strncmp(msg, "children=", 9) == 0)
		return udev_ctrl_build(buf, UDEV_CTRL_SET_CHILDREN_MAX, atoi(msg + 9), NULL),
		       UDEV_CTRL_WIRE_SIZE;
	udev_ctrl_build(buf, strcmp(msg, "exit") == 0 ? UDEV_CTRL_EXIT :
			     strcmp(msg, "reload") == 0 ? UDEV_CTRL_RELOAD :
			     strcmp(msg, "end") == 0 ? UDEV_CTRL_END_MESSAGES : UDEV_CTRL_PING,
			0, NULL);
	if (strcmp(msg, "bad-magic") == 0)
		buf[16] ^= 1;
	return strcmp(msg, "short") == 0 ? UDEV_CTRL_WIRE_SIZE - 4 :
	       strcmp(msg, "long") == 0 ? UDEV_CTRL_WIRE_SIZE + 4 : UDEV_CTRL_WIRE_SIZE;
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	unsigned char buf[UDEV_CTRL_WIRE_SIZE + 8] = { 0 };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct pollfd p;

	if (argc < 3 || strlen(argv[1]) >= sizeof(a.sun_path)) {
		fprintf(stderr, "usage: udev-ctrl-send PATH MSG...\n");
		return 2;
	}
	strcpy(a.sun_path, argv[1]);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect");
	for (int i = 2; i < argc; i++) {
		if (send(fd, buf, build(argv[i], buf), MSG_NOSIGNAL) >= 0)
			continue;
		if (errno != EPIPE && errno != ECONNRESET)
			die("send");
		printf("hung up\n"); /* before the rest was sent */
		return 0;
	}
	p = (struct pollfd){ fd, POLLIN, 0 };
	if (poll(&p, 1, 10000) == 1 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0) {
		printf("hung up\n");
		return 0;
	}
	printf("still open\n");
	return 1;
}
