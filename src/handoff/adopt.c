/* SPDX-License-Identifier: MIT */
/*
 * initdev adopt: fetch the uevent socket from the holder, make it fit for
 * udevd, place it per sd_listen_fds and exec the real root's device daemon.
 */
#include "handoff/handoff.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "gate/uevent-socket.h"
#include "handoff/listen-fds.h"
#include "util/control.h"
#include "util/number.h"

static int relocate(int fd, int floor)
{
	int nfd;

	if (fd < 0 || fd >= floor)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	close(fd);
	return nfd < 0 ? -errno : nfd;
}

#define RECV_FDS_MAX 4

/*
 * One reply and exactly one fd. The reply goes to buf (also an "ERR ..."
 * one, then -EACCES). Any surplus or truncated fds are closed.
 */
static int recv_reply_fd(int conn, char *buf, size_t size, int *fd_out)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * RECV_FDS_MAX)];
	} cm;
	struct iovec iov = { buf, size - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf) };
	int fds[RECV_FDS_MAX], nfds = 0;
	ssize_t n = recvmsg(conn, &mh, MSG_CMSG_CLOEXEC);

	if (n < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	buf[n] = '\0';
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; CMSG_LEN((i + 1) * sizeof(int)) <= c->cmsg_len &&
				   nfds < RECV_FDS_MAX; i++)
			memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	if (n > 0 && nfds == 1 && !(mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) &&
	    strncmp(buf, "OK", 2) == 0) {
		*fd_out = fds[0];
		return 0;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if (n == 0)
		return -ECONNRESET;
	return strncmp(buf, "ERR", 3) == 0 ? -EACCES : -EBADMSG;
}

#define RETIRE_DRAIN_MAX 1000000 /* bound on the messages dropped from it */

static bool in_group1(int fd)
{
	uint32_t groups = 0;
	socklen_t len = sizeof(groups);

	return getsockopt(fd, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, &groups, &len) == 0 &&
	       (groups & 1);
}

/*
 * PID 1 keeps its own copy of the kernel socket it passed us. Once ours
 * replaces it in PROG nobody reads PID 1's copy: left in group 1 it would
 * queue every uevent from then on, up to its buffer (128 MiB in udevd's
 * unit), and a restarted udevd would be given those stale events. So it
 * leaves the group and is drained; what it held, ours holds too (ours was
 * subscribed first). Returns the messages dropped, or -errno.
 */
static int retire_inherited(int fd)
{
	int group = 1, n = 0;
	char byte;

	if (setsockopt(fd, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP, &group, sizeof(group)) < 0)
		return -errno;
	while (n < RETIRE_DRAIN_MAX) {
		/* a datagram read into one byte is consumed whole */
		ssize_t r = recv(fd, &byte, 1, MSG_DONTWAIT | MSG_TRUNC);

		if (r >= 0)
			n++;
		else if (errno != EINTR && errno != ENOBUFS)
			break;
	}
	return n;
}

/*
 * No socket handed over: an inherited kernel socket that an earlier adopt
 * retired (udevd restarted by its unit) joins group 1 again, so PROG hears
 * the kernel as it would without initdev.
 */
static void rejoin_inherited(const struct logger *log, const char *prog,
			     const struct listen_env *e)
{
	int group = 1;

	for (int fd = 3; fd < 3 + e->n; fd++) {
		if (handoff_check_uevent_socket(fd) < 0 || in_group1(fd))
			continue;
		if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0)
			log_msg(log, LOG_ERR, "adopt: inherited kernel socket (fd %d) cannot "
				"rejoin group 1: %s; %s will hear no uevents", fd, errno_text(errno),
				prog);
		else
			log_msg(log, LOG_NOTICE, "adopt: inherited kernel socket (fd %d) "
				"rejoined group 1 (retired by an earlier adopt)", fd);
	}
}

/* ---- adopt ---- */

struct adopt {
	struct logger log;  /* a copy whose fd placing cannot overwrite */
	const char *run_dir;
	int timeout_sec;
	char **prog;
	struct listen_env env;
	int floor;          /* our own fds stay at or above this */
	int conn, fd;
	char reply[HANDOFF_MSG_MAX];
	char why[HANDOFF_MSG_MAX + 256]; /* the failure, logged once by cmd_adopt */
};

static int parse_adopt_args(struct adopt *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 't' && number_parse_int(optarg, 1, 86400, &a->timeout_sec) == 0)
			continue;
		fprintf(c == 'h' ? stdout : stderr,
			"usage: initdev adopt [--timeout S] [--] PROG [ARGS...]\n");
		return c == 'h' ? 0 : -1;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: initdev adopt [--timeout S] [--] PROG [ARGS...]\n");
		return -1;
	}
	a->prog = argv + optind;
	return 1;
}

/* Connect, ask, receive, check. 0 with a->fd set, or -errno and a->why. */
static int adopt_fetch(struct adopt *a)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int r;

	(void)handoff_path(a->run_dir, path, sizeof(path));
	a->conn = relocate(handoff_connect_holder(a->run_dir, a->timeout_sec * 1000), a->floor);
	if (a->conn < 0) {
		snprintf(a->why, sizeof(a->why), "no holder at %s: %s", path, errno_text(a->conn));
		return a->conn;
	}
	r = control_send(a->conn, "fetch");
	if (r == 0)
		r = recv_reply_fd(a->conn, a->reply, sizeof(a->reply), &a->fd);
	if (r == 0) {
		a->fd = relocate(a->fd, a->floor);
		r = a->fd < 0 ? a->fd : handoff_check_bound_socket(a->fd);
	}
	if (r == -EACCES)
		snprintf(a->why, sizeof(a->why), "%s refused: %s", path, a->reply);
	else if (r == -EADDRNOTAVAIL || r == -EPROTOTYPE)
		snprintf(a->why, sizeof(a->why), "%s: refusing the socket it gave: %s", path,
			 handoff_socket_why(r));
	else if (r < 0)
		snprintf(a->why, sizeof(a->why), "%s: no uevent socket received: %s", path,
			 errno_text(r));
	return r;
}

/*
 * PID 1's copy of the kernel socket at fd inherited (socket activation),
 * duplicated out of place_socket's way: it is retired only once ours is in
 * place, so that if placing fails PROG starts with it as it was, events and
 * all. -1 if there is none (or no duplicate: then it stays as it is).
 */
static int keep_copy(struct adopt *a, int inherited)
{
	int copy;

	if (inherited < 0 || handoff_check_uevent_socket(inherited) < 0)
		return -1;
	copy = fcntl(inherited, F_DUPFD_CLOEXEC, a->floor);
	if (copy < 0)
		log_msg(&a->log, LOG_WARNING, "adopt: cannot keep the inherited kernel socket "
			"(fd %d) in reach: %s; it stays in group 1 and queues uevents nobody "
			"reads", inherited, errno_text(errno));
	return copy;
}

/* Ours is in place: PID 1's copy leaves group 1 and is drained, then closed. */
static void retire_copy(struct adopt *a, int inherited, int copy)
{
	int dropped = retire_inherited(copy);

	close(copy);
	if (dropped < 0)
		log_msg(&a->log, LOG_WARNING, "adopt: the inherited kernel socket (fd %d) "
			"stays in group 1: %s; it queues uevents nobody reads",
			inherited, errno_text(dropped));
	else
		log_msg(&a->log, LOG_NOTICE, "adopt: the inherited kernel socket (fd %d, "
			"socket activation's copy) left group 1; dropped the %d events "
			"queued in it (the handed socket has them)", inherited, dropped);
}

/* Make the socket fit for udevd and place it. 0, or -errno and a->why. */
static int adopt_place(struct adopt *a)
{
	struct uevent_socket_info info;
	int r = uevent_socket_configure(a->fd, 0, true, &info), inherited, copy;

	if (r < 0) {
		snprintf(a->why, sizeof(a->why), "cannot configure the uevent socket: %s",
			 errno_text(r));
		return r;
	}
	inherited = a->env.n > 0 ? listen_find_inherited(&a->env) : -1;
	copy = keep_copy(a, inherited);
	r = listen_place_socket(a->fd, &a->env);
	if (r < 0) {
		if (copy >= 0)
			close(copy);
		snprintf(a->why, sizeof(a->why), "cannot place the uevent socket: %s",
			 errno_text(r));
		return r;
	}
	if (copy >= 0)
		retire_copy(a, inherited, copy);
	a->fd = -1;
	/* PROG's LISTEN_FDS: fds 3..r at least; the inherited ones if more */
	log_msg(&a->log, LOG_NOTICE, "adopt: uevent socket as fd %d, LISTEN_FDS=%d (%s), "
		"receive buffer %d%s; held: %s", r, a->env.n > r - 2 ? a->env.n : r - 2,
		a->env.n ? "inherited sockets kept" : "the only one", info.rcvbuf,
		info.forced ? "" : " (not forced)", a->reply + 3);
	return 0;
}

static void adopt_init(struct adopt *a, const char *run_dir, const struct logger *log)
{
	memset(a, 0, sizeof(*a));
	a->log = *log;
	a->run_dir = run_dir;
	a->timeout_sec = HANDOFF_ADOPT_DEFAULT_SEC;
	a->conn = a->fd = -1;
}

static int exec_prog(struct adopt *a)
{
	int r;

	execvp(a->prog[0], a->prog);
	r = errno;
	log_msg(&a->log, LOG_ERR, "adopt: cannot execute %s: %s", a->prog[0], errno_text(r));
	return r == ENOENT ? HANDOFF_EXIT_NOTFOUND : HANDOFF_EXIT_NOEXEC;
}

int cmd_adopt(int argc, char **argv, const char *run_dir, const struct logger *log)
{
	struct adopt a;
	int r;

	adopt_init(&a, run_dir, log);
	r = parse_adopt_args(&a, argc, argv);
	if (r <= 0)
		return r == 0 ? 0 : 2;
	r = listen_env_read(&a.env);
	a.floor = 3 + a.env.n + 1;
	/* a logger fd of its own (kmsg) moves above the fds we place */
	if (a.log.fd > STDERR_FILENO)
		a.log.fd = fcntl(log->fd, F_DUPFD_CLOEXEC, a.floor);
	if (a.log.fd < 0)
		a.log = (struct logger){ .fd = STDERR_FILENO, .max_level = log->max_level,
					  .ident = log->ident, .echo_fd = -1 };
	if (r < 0)
		snprintf(a.why, sizeof(a.why), "LISTEN_FDS=%.32s is not a count",
			 getenv("LISTEN_FDS"));
	if (r == 0)
		r = adopt_fetch(&a);
	if (r == 0)
		r = adopt_place(&a);
	/* confirm only once placed: until then the holder keeps its copy */
	if (r == 0)
		(void)control_send(a.conn, "ack");
	if (r < 0) {
		log_msg(&a.log, LOG_WARNING, "adopt: %s; starting %s without a handed-over "
			"uevent socket", a.why, a.prog[0]);
		rejoin_inherited(&a.log, a.prog[0], &a.env);
	}
	if (a.fd >= 0)
		close(a.fd);
	if (a.conn >= 0)
		close(a.conn);
	return exec_prog(&a);
}
