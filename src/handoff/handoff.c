/* SPDX-License-Identifier: MIT */
/*
 * The socket handoff: the holder that keeps the uevent socket across
 * switch_root, and `initdev adopt` that takes it and starts the real root's
 * device daemon with it (see handoff.h for the protocol).
 */
#include "handoff/handoff.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/control.h"
#include "gate/uevent-socket.h"
#include "gate/uevent.h"

#define HOLDER_REQUEST_WAIT_MS 2000 /* a connected peer must speak within this */
#define HOLDER_ACK_WAIT_MS 5000     /* adopt confirms within this */
#define HANDOFF_MSG_MAX 512
#define LISTEN_FDS_MAX 1024         /* sanity bound on an inherited LISTEN_FDS */
#define SEQNUM_PATH "/sys/kernel/uevent_seqnum"

/* ---- common ---- */

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
static int check_uevent_socket(int fd)
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
static int check_bound_uevent_socket(int fd)
{
	struct sockaddr_nl a;
	socklen_t len = sizeof(a);
	int r = check_uevent_socket(fd);

	if (r < 0)
		return r;
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -errno;
	return len >= sizeof(a) && (a.nl_groups & 1) ? 0 : -EADDRNOTAVAIL;
}

/* Close every fd from first up; close_range, or a loop on old kernels. */
static void close_from(unsigned int first, unsigned int flags)
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

static int set_cloexec(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0)
		return -errno;
	flags = on ? flags | FD_CLOEXEC : flags & ~FD_CLOEXEC;
	return fcntl(fd, F_SETFD, flags) < 0 ? -errno : 0;
}

/* ---- what is queued in the held socket ---- */

struct held_queue {
	unsigned int rmem;  /* receive memory in use: skb truesize, not payload */
	unsigned int drops; /* datagrams the kernel could not queue, ever */
	bool overflow;      /* ENOBUFS pending: the next reader must rescan */
	unsigned long long first; /* SEQNUM of the oldest queued event; 0 unknown */
	unsigned long long last;  /* last SEQNUM the kernel issued; 0 unknown */
};

/* SEQNUM=N from a datagram (hostile: bounded, digits only). 0 if none. */
static unsigned long long datagram_seqnum(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i += strnlen(buf + i, len - i) + 1) {
		const char *f = buf + i;
		size_t flen = strnlen(f, len - i);
		unsigned long long v = 0;

		if (flen < 8 || flen > 7 + 19 || memcmp(f, "SEQNUM=", 7) != 0)
			continue;
		for (size_t k = 7; k < flen; k++) {
			if (f[k] < '0' || f[k] > '9')
				return 0;
			v = v * 10 + (unsigned long long)(f[k] - '0');
		}
		return v;
	}
	return 0;
}

/*
 * The oldest queued kernel event's SEQNUM, by MSG_PEEK. Not if an overflow
 * is pending: a receive would report and clear the ENOBUFS the next owner
 * needs to see (poll shows it as POLLERR without clearing it).
 */
static void peek_first(int nl_fd, struct held_queue *q)
{
	char buf[UEVENT_MSG_MAX];
	struct pollfd p = { nl_fd, POLLIN, 0 };
	struct sockaddr_nl from;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (poll(&p, 1, 0) < 0 || (p.revents & POLLERR)) {
		q->overflow = true;
		return;
	}
	if (!(p.revents & POLLIN))
		return;
	n = recvmsg(nl_fd, &mh, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0 && mh.msg_namelen >= sizeof(from) && from.nl_pid == 0)
		q->first = datagram_seqnum(buf, (size_t)n);
}

static unsigned long long read_seqnum(int fd)
{
	char buf[32];
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
	char *end;
	unsigned long long v;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	return errno || end == buf || (*end && *end != '\n') ? 0 : v;
}

static void held_queue_measure(int nl_fd, int seqnum_fd, struct held_queue *q)
{
	unsigned int mi[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mi);

	memset(q, 0, sizeof(*q));
	/* netlink has no FIONREAD/SIOCINQ (ENOTTY); SO_MEMINFO works */
	if (getsockopt(nl_fd, SOL_SOCKET, SO_MEMINFO, mi, &len) == 0) {
		q->rmem = mi[SK_MEMINFO_RMEM_ALLOC];
		if (len > SK_MEMINFO_DROPS * sizeof(mi[0]))
			q->drops = mi[SK_MEMINFO_DROPS];
	}
	peek_first(nl_fd, q);
	q->last = read_seqnum(seqnum_fd);
}

/*
 * "about N events (SEQNUM a..b), B bytes": the count assumes every uevent
 * since a reached this socket, so it is an upper bound.
 */
static void held_queue_format(const struct held_queue *q, char *buf, size_t size)
{
	int n;

	if (q->rmem == 0 && !q->overflow)
		n = snprintf(buf, size, "no events");
	else if (q->first && q->last >= q->first)
		n = snprintf(buf, size, "about %llu events (SEQNUM %llu..%llu), %u bytes",
			     q->last - q->first + 1, q->first, q->last, q->rmem);
	else
		n = snprintf(buf, size, "events of %u bytes", q->rmem);
	if (n >= 0 && (size_t)n < size && q->overflow)
		snprintf(buf + n, size - (size_t)n, ", overflowed (%u dropped in its lifetime)",
			 q->drops);
}

/* ---- the holder ---- */

struct holder {
	struct logger log;
	const char *run_dir;
	int nl_fd, listen_fd, sig_fd, run_fd, seqnum_fd;
	int timeout_sec;   /* 0: none */
	uint64_t deadline; /* monotonic usec; 0: none */
};

static int parse_num(const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_holder_option(struct holder *h, int c, const char *arg, enum log_target *target)
{
	switch (c) {
	case 'f': return parse_num(arg, 3, INT_MAX, &h->nl_fd);
	case 'r': h->run_dir = arg; return 0;
	case 't': return parse_num(arg, 0, 86400, &h->timeout_sec);
	case 'l':
		h->log.max_level = log_level_from_name(arg);
		return h->log.max_level < 0 ? -1 : 0;
	case 'T':
		if (strcmp(arg, "kmsg") == 0 || strcmp(arg, "stderr") == 0) {
			*target = arg[0] == 'k' ? LOG_TARGET_KMSG : LOG_TARGET_STDERR;
			return 0;
		}
		return -1;
	default:
		return -1;
	}
}

static int parse_holder_args(struct holder *h, int argc, char **argv, enum log_target *target)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },
		{ "run", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "log-target", required_argument, NULL, 'T' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if (parse_holder_option(h, c, optarg, target) < 0)
			return -1;
	return optind == argc && h->nl_fd >= 3 && h->run_dir ? 0 : -1;
}

/*
 * Nothing of the initramfs may stay open: switch_root deletes its files, and
 * an open one would keep its memory. Only stdio and the socket stay (the
 * working directory goes once the run dir is opened: it may be relative).
 */
static void holder_close_others(int nl_fd)
{
	if (nl_fd > 3)
		(void)close_range(3, (unsigned int)nl_fd - 1, 0);
	close_from((unsigned int)nl_fd + 1, 0);
}

static int holder_signals(void)
{
	sigset_t set;
	int fd;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/*
 * The run dir as an fd: after switch_root our "/" is the old root, where the
 * path no longer leads to /run, but unlinkat() through this fd still works.
 */
static int open_run_dir(const char *run_dir)
{
	struct stat st;
	int fd = open(run_dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Bind under a temporary name and rename: RUN/handoff exists only once it listens. */
static int holder_listen(struct holder *h)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd, r = 0;

	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/" HANDOFF_SOCKET_NAME ".new",
			     h->run_dir) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	(void)unlinkat(h->run_fd, HANDOFF_SOCKET_NAME ".new", 0);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 8) < 0 ||
	    renameat(h->run_fd, HANDOFF_SOCKET_NAME ".new", h->run_fd, HANDOFF_SOCKET_NAME) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlinkat(h->run_fd, HANDOFF_SOCKET_NAME ".new", 0);
		close(fd);
		return r;
	}
	return fd;
}

static int holder_setup(struct holder *h)
{
	int r = check_bound_uevent_socket(h->nl_fd);

	if (r < 0) {
		log_msg(&h->log, LOG_ERR, "holder: fd %d is not a bound uevent socket: %s",
			h->nl_fd, strerror(-r));
		return r;
	}
	h->sig_fd = holder_signals();
	h->seqnum_fd = open(SEQNUM_PATH, O_RDONLY | O_CLOEXEC);
	h->run_fd = open_run_dir(h->run_dir);
	if (h->run_fd < 0) {
		log_msg(&h->log, LOG_ERR, "holder: %s: %s", h->run_dir, strerror(-h->run_fd));
		return h->run_fd;
	}
	h->listen_fd = holder_listen(h);
	if (h->listen_fd < 0) {
		log_msg(&h->log, LOG_ERR, "holder: %s/" HANDOFF_SOCKET_NAME ": %s",
			h->run_dir, strerror(-h->listen_fd));
		return h->listen_fd;
	}
	(void)chdir("/");
	if (h->timeout_sec > 0)
		h->deadline = now_monotonic_usec() + (uint64_t)h->timeout_sec * 1000000u;
	return 0;
}

static void holder_describe(const struct holder *h, char *buf, size_t size)
{
	struct held_queue q;

	held_queue_measure(h->nl_fd, h->seqnum_fd, &q);
	held_queue_format(&q, buf, size);
}

static int send_with_fd(int conn, const char *msg, int fd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct iovec iov = { (void *)msg, strlen(msg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	memset(cm.buf, 0, sizeof(cm.buf));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(conn, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* Hand the socket over. 1 if the peer confirmed it has it, 0 to go on holding. */
static int holder_hand(struct holder *h, int conn, const struct ucred *peer)
{
	char what[256], msg[HANDOFF_MSG_MAX];
	int r;

	holder_describe(h, what, sizeof(what));
	snprintf(msg, sizeof(msg), "OK %s", what);
	r = send_with_fd(conn, msg, h->nl_fd);
	if (r == 0)
		r = control_recv(conn, msg, sizeof(msg), HOLDER_ACK_WAIT_MS);
	if (r > 0 && strcmp(msg, "ack") == 0) {
		log_msg(&h->log, LOG_NOTICE, "handoff: uevent socket handed to pid %d: %s",
			(int)peer->pid, what);
		return 1;
	}
	if (r == -ETIMEDOUT) {
		log_msg(&h->log, LOG_WARNING, "handoff: pid %d took the uevent socket but did "
			"not confirm within %d ms; it has it: %s", (int)peer->pid,
			HOLDER_ACK_WAIT_MS, what);
		return 1;
	}
	log_msg(&h->log, LOG_WARNING, "handoff: pid %d did not take the uevent socket (%s); "
		"still holding it", (int)peer->pid, r < 0 ? strerror(-r) : "no ack");
	return 0;
}

static int holder_accept(struct holder *h, struct ucred *peer)
{
	socklen_t len = sizeof(*peer);
	int fd = accept4(h->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, peer, &len) < 0) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* One peer, one request. 1 once the socket is handed over. */
static int holder_serve(struct holder *h)
{
	char req[64], msg[HANDOFF_MSG_MAX];
	struct ucred peer;
	int r = 0, fd = holder_accept(h, &peer);

	if (fd < 0)
		return 0;
	/* read the request even from a refused peer: closing on unread data
	 * resets the connection and the peer would never read why */
	if (control_recv(fd, req, sizeof(req), HOLDER_REQUEST_WAIT_MS) <= 0) {
		close(fd);
		return 0;
	}
	if (peer.uid != 0) {
		log_msg(&h->log, LOG_WARNING, "handoff: refusing pid %d, uid %u",
			(int)peer.pid, (unsigned int)peer.uid);
		snprintf(msg, sizeof(msg), "ERR permission denied: uid %u is not root",
			 (unsigned int)peer.uid);
		(void)control_send(fd, msg);
	} else if (strcmp(req, "fetch") == 0) {
		r = holder_hand(h, fd, &peer);
	} else if (strcmp(req, "status") == 0) {
		memcpy(msg, "OK holding ", 11);
		holder_describe(h, msg + 11, sizeof(msg) - 11);
		(void)control_send(fd, msg);
	} else {
		(void)control_send(fd, "ERR unknown request");
	}
	close(fd);
	return r;
}

static int poll_timeout_ms(const struct holder *h)
{
	uint64_t now;

	if (!h->deadline)
		return -1;
	now = now_monotonic_usec();
	return now >= h->deadline ? 0 : (int)((h->deadline - now + 999) / 1000);
}

static void holder_drop(const struct holder *h, const char *why)
{
	char what[256];

	holder_describe(h, what, sizeof(what));
	log_msg(&h->log, LOG_WARNING, "handoff: %s; dropping the uevent socket: %s lost",
		why, what);
}

/* Serve until handed over (0), timed out or signalled (1). */
static int holder_loop(struct holder *h)
{
	char why[64];

	for (;;) {
		struct pollfd p[2] = { { h->listen_fd, POLLIN, 0 }, { h->sig_fd, POLLIN, 0 } };
		int r = poll(p, h->sig_fd >= 0 ? 2 : 1, poll_timeout_ms(h));

		if (r < 0 && errno != EINTR) {
			snprintf(why, sizeof(why), "poll: %s", strerror(errno));
			break;
		}
		if (r > 0 && p[1].revents) {
			struct signalfd_siginfo si;

			(void)read(h->sig_fd, &si, sizeof(si));
			snprintf(why, sizeof(why), "signal %u", si.ssi_signo);
			break;
		}
		if (r > 0 && p[0].revents && holder_serve(h))
			return 0;
		if (h->deadline && now_monotonic_usec() >= h->deadline) {
			snprintf(why, sizeof(why), "nobody fetched it within %d s", h->timeout_sec);
			break;
		}
	}
	holder_drop(h, why);
	return 1;
}

static void holder_close(struct holder *h)
{
	int fds[] = { h->sig_fd, h->run_fd, h->seqnum_fd, h->nl_fd };

	if (h->listen_fd >= 0) {
		(void)unlinkat(h->run_fd, HANDOFF_SOCKET_NAME, 0);
		close(h->listen_fd);
	}

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	log_close(&h->log);
}

int cmd_holder(int argc, char **argv)
{
	struct holder h = { .nl_fd = -1, .listen_fd = -1, .sig_fd = -1, .run_fd = -1,
			    .seqnum_fd = -1, .timeout_sec = HANDOFF_HOLD_DEFAULT_SEC };
	enum log_target target = LOG_TARGET_KMSG;
	int r;

	h.log.max_level = LOG_NOTICE;
	if (parse_holder_args(&h, argc, argv, &target) < 0) {
		fprintf(stderr, "usage: " HANDOFF_HOLDER_ARGV0 " --fd N --run DIR [--timeout S] "
			"[--log-target kmsg|stderr] [--log-level L]\n");
		return 2;
	}
	holder_close_others(h.nl_fd);
	log_init(&h.log, target, h.log.max_level);
	r = holder_setup(&h);
	if (r == 0) {
		log_msg(&h.log, LOG_INFO, "handoff: holding the uevent socket at %s/"
			HANDOFF_SOCKET_NAME, h.run_dir);
		r = holder_loop(&h);
	} else {
		holder_drop(&h, "cannot serve");
		r = 1;
	}
	holder_close(&h);
	return r;
}

int handoff_exec_holder(const char *self_exe, int uevent_fd, const char *run_dir,
			int timeout_sec, const struct logger *log)
{
	char fd_arg[16], timeout_arg[16], level_arg[16];
	char *argv[] = {
		HANDOFF_HOLDER_ARGV0, "--fd", fd_arg, "--run", (char *)run_dir,
		"--timeout", timeout_arg, "--log-target", log->kmsg ? "kmsg" : "stderr",
		"--log-level", level_arg, NULL,
	};
	int r;

	snprintf(fd_arg, sizeof(fd_arg), "%d", uevent_fd);
	snprintf(timeout_arg, sizeof(timeout_arg), "%d",
		 timeout_sec < 0 ? HANDOFF_HOLD_DEFAULT_SEC : timeout_sec);
	snprintf(level_arg, sizeof(level_arg), "%d", log->max_level);
	r = set_cloexec(uevent_fd, false);
	if (r < 0)
		return r;
	execv(self_exe, argv);
	r = -errno;
	(void)set_cloexec(uevent_fd, true);
	return r;
}

/* ---- talking to the holder ---- */

/* Connect with every wait bounded by timeout_ms; the holder must be root's. */
static int connect_holder(const char *run_dir, int timeout_ms)
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
		int fd = connect_holder(run_dir, 1000);

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

/* ---- adopt: receive ---- */

/* Move fd to floor or above (CLOEXEC), so placing fds below cannot hit it. */
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

/* ---- adopt: place per sd_listen_fds ---- */

struct listen_env {
	int n;             /* fds inherited for us at 3..3+n-1; 0 if none */
	const char *names; /* LISTEN_FDNAMES, or NULL */
};

/* LISTEN_* as sd_listen_fds() would read them. -EINVAL if meant for us but bad. */
static int listen_env_read(struct listen_env *e)
{
	const char *fds = getenv("LISTEN_FDS"), *pid = getenv("LISTEN_PID");
	int p;

	e->n = 0;
	e->names = getenv("LISTEN_FDNAMES");
	if (!fds || !pid || parse_num(pid, 1, INT_MAX, &p) < 0 || p != (int)getpid())
		return 0; /* not for this process: ours replaces it */
	return parse_num(fds, 0, LISTEN_FDS_MAX, &e->n) < 0 ? -EINVAL : 0;
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
static int find_inherited(const struct listen_env *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (check_uevent_socket(3 + i) == 0)
			return 3 + i;
	i = e->names ? name_index(e->names, HANDOFF_KERNEL_FDNAME, NULL) : -1;
	return i >= 0 && i < e->n ? 3 + i : -1;
}

/* fd to exactly target, inheritable; dup2 closes what was at target. */
static int move_fd(int fd, int target)
{
	if (fd == target)
		return set_cloexec(fd, false);
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
	close_from(4, CLOSE_RANGE_CLOEXEC);
	return set_listen_env(1, HANDOFF_KERNEL_FDNAME);
}

/* Inherited sockets without a kernel one: ours goes after them. */
static int place_after(int fd, const struct listen_env *e)
{
	size_t len = (e->names ? strlen(e->names) : (size_t)e->n * 8) +
		     sizeof(HANDOFF_KERNEL_FDNAME) + 1;
	char *names = malloc(len), *p = names;
	int count = 0, r = -ENOMEM;

	if (!names)
		return r;
	if (e->names)
		(void)name_index(e->names, "", &count);
	if (count == e->n) /* names for the inherited ones: keep them */
		p += snprintf(p, len, "%s:", e->names);
	else
		for (int i = 0; i < e->n; i++)
			p += snprintf(p, len - (size_t)(p - names), "unknown:");
	snprintf(p, len - (size_t)(p - names), HANDOFF_KERNEL_FDNAME);
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
static int place_socket(int fd, const struct listen_env *e)
{
	int target, r;

	if (e->n == 0)
		return (r = place_alone(fd)) < 0 ? r : 3;
	target = find_inherited(e);
	if (target < 0) {
		r = place_after(fd, e);
		return r < 0 ? r : 3 + e->n;
	}
	r = move_fd(fd, target);
	return r < 0 ? r : target;
}

/* ---- adopt: socket activation's own copy of the kernel socket ---- */

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
		if (check_uevent_socket(fd) < 0 || in_group1(fd))
			continue;
		if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0)
			log_msg(log, LOG_ERR, "adopt: inherited kernel socket (fd %d) cannot "
				"rejoin group 1: %s; %s will hear no uevents", fd, strerror(errno),
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
		if (c == 't' && parse_num(optarg, 1, 86400, &a->timeout_sec) == 0)
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
	a->conn = relocate(connect_holder(a->run_dir, a->timeout_sec * 1000), a->floor);
	if (a->conn < 0) {
		snprintf(a->why, sizeof(a->why), "no holder at %s: %s", path, strerror(-a->conn));
		return a->conn;
	}
	r = control_send(a->conn, "fetch");
	if (r == 0)
		r = recv_reply_fd(a->conn, a->reply, sizeof(a->reply), &a->fd);
	if (r == 0) {
		a->fd = relocate(a->fd, a->floor);
		r = a->fd < 0 ? a->fd : check_bound_uevent_socket(a->fd);
	}
	if (r == -EACCES)
		snprintf(a->why, sizeof(a->why), "%s refused: %s", path, a->reply);
	else if (r < 0)
		snprintf(a->why, sizeof(a->why), "%s: no uevent socket received: %s", path,
			 strerror(-r));
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

	if (inherited < 0 || check_uevent_socket(inherited) < 0)
		return -1;
	copy = fcntl(inherited, F_DUPFD_CLOEXEC, a->floor);
	if (copy < 0)
		log_msg(&a->log, LOG_WARNING, "adopt: cannot keep the inherited kernel socket "
			"(fd %d) in reach: %s; it stays in group 1 and queues uevents nobody "
			"reads", inherited, strerror(errno));
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
			inherited, strerror(-dropped));
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
			 strerror(-r));
		return r;
	}
	inherited = a->env.n > 0 ? find_inherited(&a->env) : -1;
	copy = keep_copy(a, inherited);
	r = place_socket(a->fd, &a->env);
	if (r < 0) {
		if (copy >= 0)
			close(copy);
		snprintf(a->why, sizeof(a->why), "cannot place the uevent socket: %s",
			 strerror(-r));
		return r;
	}
	if (copy >= 0)
		retire_copy(a, inherited, copy);
	a->fd = -1;
	/* r - 2: how many fds up to ours; more if ours replaced an inherited one */
	log_msg(&a->log, LOG_NOTICE, "adopt: uevent socket as fd %d of %d (%s), receive "
		"buffer %d%s; held: %s", r, a->env.n > r - 2 ? a->env.n : r - 2,
		a->env.n ? "inherited sockets kept" : "alone", info.rcvbuf,
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
	log_msg(&a->log, LOG_ERR, "adopt: cannot execute %s: %s", a->prog[0], strerror(r));
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
		a.log = (struct logger){ STDERR_FILENO, false, log->max_level, log->ident };
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
