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

/* The inherited kernel socket: by type, else by name. Its fd, or -1. */
int listen_find_inherited(const struct listen_env *e);

/*
 * Put fd where PROG finds it. Inherited sockets keep their positions and
 * names; an inherited kernel socket is replaced in place. Returns where fd
 * went, or -errno.
 */
int listen_place_socket(int fd, const struct listen_env *e);
