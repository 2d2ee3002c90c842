/* SPDX-License-Identifier: MIT */
/*
 * Placing a socket for a daemon that takes it per sd_listen_fds(): fds from
 * 3 up, LISTEN_FDS, LISTEN_PID and LISTEN_FDNAMES, keeping whatever PID 1
 * already passed (socket activation) where it is.
 */
#pragma once

#define LISTEN_FDS_MAX 1024         /* sanity bound on an inherited LISTEN_FDS */

struct listen_env {
	int n;             /* fds inherited for us at 3..3+n-1; 0 if none */
	const char *names; /* LISTEN_FDNAMES, or NULL */
};

/* LISTEN_* as sd_listen_fds() would read them. -EINVAL if meant for us but bad. */
int listen_env_read(struct listen_env *e);

/* The inherited kernel socket: by type, else by name. Its fd, or -1. */
int listen_find_inherited(const struct listen_env *e);

/*
 * Put fd where PROG finds it. Inherited sockets keep their positions and
 * names; an inherited kernel socket is replaced in place. Returns where fd
 * went, or -errno.
 */
int listen_place_socket(int fd, const struct listen_env *e);
