/* SPDX-License-Identifier: MIT */
/*
 * Placing a socket for a daemon that takes it per sd_listen_fds(): fds from
 * 3 up, LISTEN_FDS, LISTEN_PID and LISTEN_FDNAMES, keeping whatever PID 1
 * already passed (socket activation) where it is.
 */
#pragma once

#include <sys/types.h>

#define LISTEN_FDS_MAX 1024         /* sanity bound on an inherited LISTEN_FDS */

struct listen_env {
	int n;             /* fds inherited for us at 3..3+n-1; 0 if none */
	const char *names; /* LISTEN_FDNAMES, or NULL */
};

/*
 * LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES (any may be NULL) as sd_listen_fds()
 * in process self would read them: meant for another process, or absent,
 * they count as no fds. -EINVAL if meant for self but LISTEN_FDS is bad.
 */
int listen_env_parse(struct listen_env *e, const char *fds, const char *pid,
		     const char *names, pid_t self);
/* The same from the environment, for this process. */
int listen_env_read(struct listen_env *e);

/*
 * LISTEN_FDNAMES for n inherited fds plus ours after them: the inherited
 * names if there is exactly one for each, else "unknown" for each; then
 * HANDOFF_KERNEL_FDNAME. Always n + 1 names. malloc'd; NULL on ENOMEM.
 */
char *listen_names_after(const char *names, int n);

/* The sockets PID 1 passed to systemd-udevd (listen_udevd_take). -1: none. */
struct listen_udevd {
	int kernel_fd;  /* systemd-udevd-kernel.socket */
	int control_fd; /* systemd-udevd-control.socket */
	int bad_fd;     /* on failure: the fd refused */
};

/*
 * Sort the inherited fds as udevd does (udevd.c listen_fds()): an AF_UNIX
 * SOCK_SEQPACKET socket is the control socket, an AF_NETLINK SOCK_RAW one
 * the kernel socket, which must also pass handoff_check_bound_socket (the
 * gate hears group 1 alone, whoever opened the socket). Anything else, or
 * two of a kind: refused (-EINVAL, -EEXIST, or the check's -errno; the fd
 * in bad_fd; listen_udevd_why says why). The sockets taken become CLOEXEC.
 */
int listen_udevd_take(const struct listen_env *e, struct listen_udevd *out);
/* Why listen_udevd_take refused, for messages. */
const char *listen_udevd_why(int r);

/* The inherited kernel socket: by type, else by name. Its fd, or -1. */
int listen_find_inherited(const struct listen_env *e);

/*
 * Put fd where PROG finds it. Inherited sockets keep their positions and
 * names; an inherited kernel socket is replaced in place. Returns where fd
 * went, or -errno.
 */
int listen_place_socket(int fd, const struct listen_env *e);
