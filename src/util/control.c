/* SPDX-License-Identifier: MIT */
#include "util/control.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int control_path(const char *run_dir, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%s/control", run_dir);

	return n < size && n < sizeof(((struct sockaddr_un *)0)->sun_path) ? 0 : -ENAMETOOLONG;
}

/* The state directory: ours, root's, and closed to everyone else. */
static int make_run_dir(const char *run_dir)
{
	struct stat st;

	if (mkdir(run_dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(run_dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid())
		return -EPERM;
	return chmod(run_dir, 0700) < 0 ? -errno : 0;
}

static int fill_addr(const char *run_dir, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	return control_path(run_dir, a->sun_path, sizeof(a->sun_path));
}

int control_listen(const char *run_dir)
{
	struct sockaddr_un a;
	int fd, r = make_run_dir(run_dir);

	if (r == 0)
		r = fill_addr(run_dir, &a);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	(void)unlink(a.sun_path); /* a stale socket from a dead daemon */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

int control_accept(int listen_fd, uid_t *peer_uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		close(fd);
		return -EPERM;
	}
	*peer_uid = cred.uid;
	return fd;
}

void control_refuse(int fd, uid_t uid)
{
	char req[256], msg[96];

	/* take the request first: closing on unread data resets the peer,
	 * which would then never read why */
	(void)recv(fd, req, sizeof(req), MSG_DONTWAIT);
	snprintf(msg, sizeof(msg), "ERR permission denied: uid %u is not root",
		 (unsigned int)uid);
	(void)control_send(fd, msg);
	close(fd);
}

int control_connect(const char *run_dir)
{
	struct sockaddr_un a;
	int fd, r = fill_addr(run_dir, &a);

	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

int control_send(int fd, const char *msg)
{
	return send(fd, msg, strlen(msg), MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int control_recv(int fd, char *buf, size_t size, int timeout_ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	ssize_t n;
	int r;

	do {
		r = poll(&p, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	/* MSG_TRUNC: the message's real length, so a cut one is refused, not acted on */
	n = recv(fd, buf, size - 1, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	if ((size_t)n > size - 1)
		return -EMSGSIZE;
	buf[n] = '\0';
	return (int)n;
}

int control_request(const char *run_dir, const char *req, char *reply, size_t size,
		    int timeout_ms, bool *connected)
{
	int fd = control_connect(run_dir), r;

	if (connected)
		*connected = fd >= 0;
	if (fd < 0)
		return fd;
	r = control_send(fd, req);
	if (r == 0 || r == -EPIPE || r == -ECONNRESET)
		r = control_recv(fd, reply, size, timeout_ms);
	close(fd);
	return r;
}
