/* SPDX-License-Identifier: MIT */
/* What the holder, adopt and `initdev handoff` share: the socket's path,
 * checks of a uevent socket, fd plumbing, connecting to the holder. */
#include "handoff/handoff.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/control.h"

int handoff_path(const char *run_dir, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%s/" HANDOFF_SOCKET_NAME, run_dir);

	return n < size && n < sizeof(((struct sockaddr_un *)0)->sun_path) ? 0 : -ENAMETOOLONG;
}

static int sock_int(int fd, int opt, int *val)
{
	socklen_t len = sizeof(*val);

	return getsockopt(fd, SOL_SOCKET, opt, val, &len) < 0 ? -errno : 0;
}

/* AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT? 0, or why not. */
int handoff_check_uevent_socket(int fd)
{
	int domain, type, proto;

	if (sock_int(fd, SO_DOMAIN, &domain) < 0 || sock_int(fd, SO_TYPE, &type) < 0 ||
	    sock_int(fd, SO_PROTOCOL, &proto) < 0)
		return -ENOTSOCK;
	if (domain != AF_NETLINK || type != SOCK_RAW || proto != NETLINK_KOBJECT_UEVENT)
		return -EPROTOTYPE;
	return 0;
}

/* A uevent socket that is also bound to the kernel's group. */
int handoff_check_bound_socket(int fd)
{
	struct sockaddr_nl a;
	socklen_t len = sizeof(a);
	uint32_t groups[4] = { 0 };
	int r = handoff_check_uevent_socket(fd);

	if (r < 0)
		return r;
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -errno;
	if (len < sizeof(a) || a.nl_groups != 1)
		return -EADDRNOTAVAIL;
	/* groups joined after bind show only here */
	len = sizeof(groups);
	if (getsockopt(fd, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, groups, &len) < 0)
		return -errno;
	for (size_t i = 0; i < len / sizeof(groups[0]) && i < 4; i++)
		if (groups[i] != (i == 0 ? 1u : 0u))
			return -EADDRNOTAVAIL;
	return 0;
}

const char *handoff_socket_why(int r)
{
	return r == -EADDRNOTAVAIL ? "not bound to the kernel's group alone (netlink group 1)" :
	       r == -EPROTOTYPE ? "not a NETLINK_KOBJECT_UEVENT socket" : errno_text(r);
}

/* Close every fd from first up; close_range, or a loop on old kernels. */
void handoff_close_from(unsigned int first, unsigned int flags)
{
	struct rlimit rl = { 1024, 1024 };

	if (close_range(first, ~0U, flags) == 0)
		return;
	(void)getrlimit(RLIMIT_NOFILE, &rl);
	for (unsigned int fd = first; fd < rl.rlim_cur && fd < 65536; fd++) {
		if (flags & CLOSE_RANGE_CLOEXEC)
			(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		else
			(void)close((int)fd);
	}
}

int handoff_set_cloexec(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0)
		return -errno;
	flags = on ? flags | FD_CLOEXEC : flags & ~FD_CLOEXEC;
	return fcntl(fd, F_SETFD, flags) < 0 ? -errno : 0;
}

int handoff_connect_holder(const char *run_dir, int timeout_ms)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, r = handoff_path(run_dir, a.sun_path, sizeof(a.sun_path));

	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* AF_UNIX connect waits for backlog room under SO_SNDTIMEO */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		r = -errno;
	else if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != 0)
		r = -EPERM;
	if (r < 0) {
		close(fd);
		return r == -EAGAIN ? -ETIMEDOUT : r;
	}
	return fd;
}

int handoff_wait_holder(const char *run_dir, int timeout_ms)
{
	uint64_t end = now_monotonic_usec() + (uint64_t)timeout_ms * 1000u;
	char reply[HANDOFF_MSG_MAX];
	int r;

	do {
		int fd = handoff_connect_holder(run_dir, 1000);

		r = fd;
		if (fd >= 0) {
			r = control_send(fd, "status");
			if (r == 0)
				r = control_recv(fd, reply, sizeof(reply), 1000);
			close(fd);
			if (r > 0)
				return strncmp(reply, "OK", 2) == 0 ? 0 : -EPROTO;
		}
		if (r != -ENOENT && r != -ECONNREFUSED)
			return r;
		usleep(20000);
	} while (now_monotonic_usec() < end);
	return -ETIMEDOUT;
}
