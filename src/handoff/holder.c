/* SPDX-License-Identifier: MIT */
/*
 * @initdev-holder: keeps the uevent socket, and the events queued in it,
 * across switch_root until the real root's device daemon fetches it (the
 * protocol is in handoff.h).
 */
#include "handoff/handoff.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "handoff/held-queue.h"
#include "util/control.h"
#include "util/number.h"
#include "util/sigfd.h"
#include "util/strbuf.h"

#define HOLDER_REQUEST_WAIT_MS 2000 /* a connected peer must speak within this */
#define HOLDER_ACK_WAIT_MS 5000     /* adopt confirms within this */
#define SEQNUM_PATH "/sys/kernel/uevent_seqnum"

struct holder {
	struct logger log;
	const char *run_dir;
	int nl_fd, listen_fd, sig_fd, run_fd, seqnum_fd;
	int timeout_sec;   /* 0: none */
	int untriggered;   /* devices the initramfs never triggered */
	int given_back;    /* events in hand at the handoff, sent again (into this socket) */
	int abandoned;     /* events in hand at the handoff, left to running workers */
	uint64_t deadline; /* monotonic usec; 0: none */
};

static int parse_holder_option(struct holder *h, int c, const char *arg, enum log_target *target)
{
	switch (c) {
	case 'f': return number_parse_int(arg, 3, INT_MAX, &h->nl_fd);
	case 'r': h->run_dir = arg; return 0;
	case 't': return number_parse_int(arg, 0, 86400, &h->timeout_sec);
	case 'u': return number_parse_int(arg, 0, INT_MAX, &h->untriggered);
	case 'g': return number_parse_int(arg, 0, INT_MAX, &h->given_back);
	case 'a': return number_parse_int(arg, 0, INT_MAX, &h->abandoned);
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
		{ "untriggered", required_argument, NULL, 'u' },
		{ "given-back", required_argument, NULL, 'g' },
		{ "abandoned", required_argument, NULL, 'a' },
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
	handoff_close_from((unsigned int)nl_fd + 1, 0);
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
	int r = handoff_check_bound_socket(h->nl_fd);

	if (r < 0) {
		log_msg(&h->log, LOG_ERR, "holder: fd %d is not a bound uevent socket: %s",
			h->nl_fd, handoff_socket_why(r));
		return r;
	}
	h->sig_fd = sigfd_open(true);
	h->seqnum_fd = open(SEQNUM_PATH, O_RDONLY | O_CLOEXEC);
	h->run_fd = open_run_dir(h->run_dir);
	if (h->run_fd < 0) {
		log_msg(&h->log, LOG_ERR, "holder: %s: %s", h->run_dir, errno_text(h->run_fd));
		return h->run_fd;
	}
	h->listen_fd = holder_listen(h);
	if (h->listen_fd < 0) {
		log_msg(&h->log, LOG_ERR, "holder: %s/" HANDOFF_SOCKET_NAME ": %s",
			h->run_dir, errno_text(h->listen_fd));
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
		"still holding it", (int)peer->pid, r < 0 ? errno_text(r) : "no ack");
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
			snprintf(why, sizeof(why), "poll: %s", errno_text(errno));
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

/* What the initramfs left undone goes into the first line (notice), if anything. */
static void holder_log_start(const struct holder *h)
{
	char what[384];
	struct strbuf b;

	strbuf_init(&b, what, sizeof(what));
	if (h->untriggered)
		strbuf_printf(&b, "; %d devices were never triggered in the initramfs",
			      h->untriggered);
	if (h->given_back)
		strbuf_printf(&b, "; %d events in hand were sent again by the kernel (queued "
			      "here)", h->given_back);
	if (h->abandoned)
		strbuf_printf(&b, "; %d events in hand were abandoned to running workers",
			      h->abandoned);
	if (h->untriggered || h->abandoned)
		strbuf_printf(&b, " (the real root's udevd triggers every device when it starts)");
	log_msg(&h->log, b.len ? LOG_NOTICE : LOG_INFO,
		"handoff: holding the uevent socket at %s/" HANDOFF_SOCKET_NAME "%s",
		h->run_dir, what);
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
			"[--untriggered N] [--given-back N] [--abandoned N]\n"
			"       [--log-target kmsg|stderr] [--log-level L]\n");
		return 2;
	}
	holder_close_others(h.nl_fd);
	log_init(&h.log, target, h.log.max_level);
	r = holder_setup(&h);
	if (r == 0) {
		holder_log_start(&h);
		r = holder_loop(&h);
	} else {
		holder_drop(&h, "cannot serve");
		r = 1;
	}
	holder_close(&h);
	return r;
}

int handoff_open_self(void)
{
	int fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Our program, from the fd opened at start, else by /proc/self/exe. */
static void exec_self(int self_fd, char **argv)
{
	if (self_fd >= 0) {
		syscall(SYS_execveat, self_fd, "", argv, environ, AT_EMPTY_PATH);
		if (errno != ENOSYS)
			return;
	}
	execv("/proc/self/exe", argv);
}

int handoff_exec_holder(int self_fd, const struct handoff_holder_args *a,
			const struct logger *log)
{
	char fd_arg[16], timeout_arg[16], level_arg[16], untriggered_arg[24];
	char given_back_arg[24], abandoned_arg[24];
	char *argv[] = {
		HANDOFF_HOLDER_ARGV0, "--fd", fd_arg, "--run", (char *)a->run_dir,
		"--timeout", timeout_arg, "--untriggered", untriggered_arg,
		"--given-back", given_back_arg, "--abandoned", abandoned_arg,
		"--log-target", log->kmsg ? "kmsg" : "stderr", "--log-level", level_arg, NULL,
	};
	int r;

	snprintf(fd_arg, sizeof(fd_arg), "%d", a->uevent_fd);
	snprintf(timeout_arg, sizeof(timeout_arg), "%d",
		 a->timeout_sec < 0 ? HANDOFF_HOLD_DEFAULT_SEC : a->timeout_sec);
	snprintf(untriggered_arg, sizeof(untriggered_arg), "%zu",
		 a->untriggered > INT_MAX ? (size_t)INT_MAX : a->untriggered);
	snprintf(given_back_arg, sizeof(given_back_arg), "%zu",
		 a->given_back > INT_MAX ? (size_t)INT_MAX : a->given_back);
	snprintf(abandoned_arg, sizeof(abandoned_arg), "%zu",
		 a->abandoned > INT_MAX ? (size_t)INT_MAX : a->abandoned);
	snprintf(level_arg, sizeof(level_arg), "%d", log->max_level);
	r = handoff_set_cloexec(a->uevent_fd, false);
	if (r < 0)
		return r;
	exec_self(self_fd, argv);
	r = -errno;
	(void)handoff_set_cloexec(a->uevent_fd, true);
	return r;
}
