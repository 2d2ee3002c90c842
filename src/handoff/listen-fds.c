/* SPDX-License-Identifier: MIT */
#include "handoff/listen-fds.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "handoff/handoff.h"
#include "util/number.h"

int listen_env_parse(struct listen_env *e, const char *fds, const char *pid,
		     const char *names, pid_t self)
{
	int p;

	e->n = 0;
	e->names = names;
	if (!fds || !pid || number_parse_int(pid, 1, INT_MAX, &p) < 0 || p != (int)self)
		return 0; /* not for this process: ours replaces it */
	return number_parse_int(fds, 0, LISTEN_FDS_MAX, &e->n) < 0 ? -EINVAL : 0;
}

int listen_env_read(struct listen_env *e)
{
	return listen_env_parse(e, getenv("LISTEN_FDS"), getenv("LISTEN_PID"),
				getenv("LISTEN_FDNAMES"), getpid());
}

/* Index of name in a ':'-separated list, or -1; *count gets the entries. */
static int name_index(const char *names, const char *name, int *count)
{
	size_t len = strlen(name);
	int i = 0, found = -1;

	for (const char *p = names; p; p = strchr(p, ':'), p = p ? p + 1 : NULL, i++)
		if (found < 0 && strncmp(p, name, len) == 0 && (p[len] == ':' || p[len] == '\0'))
			found = i;
	if (count)
		*count = i;
	return found;
}

/* The inherited kernel socket: by type, else by name. Its fd, or -1. */
int listen_find_inherited(const struct listen_env *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (handoff_check_uevent_socket(3 + i) == 0)
			return 3 + i;
	i = e->names ? name_index(e->names, HANDOFF_KERNEL_FDNAME, NULL) : -1;
	return i >= 0 && i < e->n ? 3 + i : -1;
}

/* fd to exactly target, inheritable; dup2 closes what was at target. */
static int move_fd(int fd, int target)
{
	if (fd == target)
		return handoff_set_cloexec(fd, false);
	if (dup2(fd, target) < 0)
		return -errno;
	close(fd);
	return 0;
}

static int set_listen_env(int n, const char *names)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", n);
	if (setenv("LISTEN_FDS", buf, 1) < 0 || setenv("LISTEN_FDNAMES", names, 1) < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	return setenv("LISTEN_PID", buf, 1) < 0 ? -errno : 0;
}

/* No sockets inherited: ours is fd 3 and the only one. */
static int place_alone(int fd)
{
	int r = move_fd(fd, 3);

	if (r < 0)
		return r;
	handoff_close_from(4, CLOSE_RANGE_CLOEXEC);
	return set_listen_env(1, HANDOFF_KERNEL_FDNAME);
}

char *listen_names_after(const char *names, int n)
{
	static const char unknown[] = "unknown:";
	int count = 0;
	bool keep;
	size_t len;
	char *out, *p;

	if (names)
		(void)name_index(names, "", &count);
	keep = names && count == n; /* a name for each inherited fd: keep them */
	len = (keep ? strlen(names) + 1 : (size_t)n * (sizeof(unknown) - 1)) +
	      sizeof(HANDOFF_KERNEL_FDNAME);
	out = malloc(len);
	if (!out)
		return NULL;
	p = out;
	if (keep)
		p = stpcpy(stpcpy(p, names), ":");
	else
		for (int i = 0; i < n; i++)
			p = stpcpy(p, unknown);
	strcpy(p, HANDOFF_KERNEL_FDNAME);
	return out;
}

/* Inherited sockets without a kernel one: ours goes after them. */
static int place_after(int fd, const struct listen_env *e)
{
	char *names = listen_names_after(e->names, e->n);
	int r;

	if (!names)
		return -ENOMEM;
	r = move_fd(fd, 3 + e->n);
	if (r == 0)
		r = set_listen_env(e->n + 1, names);
	free(names);
	return r;
}

/*
 * Put fd where PROG finds it. Inherited sockets keep their positions and
 * names; an inherited kernel socket is replaced in place. Returns where fd
 * went, or -errno.
 */
int listen_place_socket(int fd, const struct listen_env *e)
{
	int target, r;

	if (e->n == 0)
		return (r = place_alone(fd)) < 0 ? r : 3;
	target = listen_find_inherited(e);
	if (target < 0) {
		r = place_after(fd, e);
		return r < 0 ? r : 3 + e->n;
	}
	r = move_fd(fd, target);
	return r < 0 ? r : target;
}

/* 1 if fd is a socket of this domain and type, else 0. */
static int is_socket(int fd, int domain, int type)
{
	int d, t;
	socklen_t len = sizeof(d);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &d, &len) < 0)
		return 0;
	len = sizeof(t);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &len) < 0)
		return 0;
	return d == domain && t == type;
}

/* One inherited fd into its slot; 0, or why it is refused. */
static int take_one(int fd, struct listen_udevd *out)
{
	int *slot, r = 0;

	if (is_socket(fd, AF_UNIX, SOCK_SEQPACKET))
		slot = &out->control_fd;
	else if (is_socket(fd, AF_NETLINK, SOCK_RAW))
		slot = &out->kernel_fd, r = handoff_check_bound_socket(fd);
	else
		return -EINVAL;
	if (r < 0)
		return r;
	if (*slot >= 0)
		return -EEXIST;
	*slot = fd;
	return handoff_set_cloexec(fd, true);
}

int listen_udevd_take(const struct listen_env *e, struct listen_udevd *out)
{
	*out = (struct listen_udevd){ -1, -1, -1 };
	for (int i = 0; i < e->n; i++) {
		int r = take_one(3 + i, out);

		if (r < 0) {
			out->bad_fd = 3 + i;
			out->kernel_fd = out->control_fd = -1;
			return r;
		}
	}
	return 0;
}

const char *listen_udevd_why(int r)
{
	return r == -EINVAL ? "neither a SOCK_SEQPACKET control socket nor a netlink socket" :
	       r == -EEXIST ? "a second socket of the same kind" : handoff_socket_why(r);
}
