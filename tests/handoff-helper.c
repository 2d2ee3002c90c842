/* SPDX-License-Identifier: MIT */
/*
 * Test helper for tests/handoff_test.sh, one program with several roles:
 *   handoff-helper hold --run DIR [--timeout S] [--rcvbuf N] [--no-passcred]
 *                       [--groups MASK]
 *       open and bind a uevent socket (to MASK instead of group 1), print
 *       "sock_ino=N", become the holder through handoff_exec_holder (which
 *       execs this program as @initdev-holder; that argv[0] runs cmd_holder)
 *   handoff-helper fake-holder DIR MASK
 *       a holder that hands over a uevent socket bound to the groups MASK
 *       (one fetch, then exits)
 *   handoff-helper --run DIR adopt [ADOPT ARGS]   cmd_adopt, as `initdev adopt`
 *   handoff-helper wait-holder DIR MS             handoff_wait_holder
 *   handoff-helper fetch-noack DIR                a client that dies mid-handoff:
 *       sends "fetch", takes the reply and the socket, closes without "ack"
 *   handoff-helper activate [--unix-only|--keep-copy] NAMES -- PROG...
 *       play systemd socket activation: an AF_UNIX seqpacket socket at fd 3
 *       and (unless --unix-only) a bound uevent socket at fd 4, LISTEN_FDS,
 *       LISTEN_PID, LISTEN_FDNAMES=NAMES; prints their inodes. --keep-copy:
 *       keep PID 1's copy of the kernel socket and run PROG twice (a
 *       restart), reporting what the copy queued (see keep_copy)
 *   handoff-helper report [IDLE_MS]               stand-in for udevd: prints what
 *       it inherited and the SEQNUMs queued in an inherited uevent socket
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "handoff/handoff.h"
#include "util/log.h"
#include "gate/uevent-socket.h"

static unsigned long sock_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* A uevent socket bound to the groups in mask, fit for udevd otherwise. */
static int bound_socket(unsigned int mask)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = mask };
	struct uevent_socket_info info;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    uevent_socket_configure(fd, 0, true, &info) < 0)
		return -errno;
	return fd;
}

static int hold(int argc, char **argv)
{
	struct uevent_socket_options opts = { 0 };
	struct uevent_socket_info info;
	struct logger log;
	const char *run = NULL;
	int timeout = 30, fd, r;
	unsigned int groups = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--run") == 0 && i + 1 < argc)
			run = argv[++i];
		else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
			timeout = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rcvbuf") == 0 && i + 1 < argc)
			opts.rcvbuf = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-passcred") == 0)
			opts.no_passcred = true;
		else if (strcmp(argv[i], "--groups") == 0 && i + 1 < argc)
			groups = (unsigned int)strtoul(argv[++i], NULL, 0);
		else
			return 2;
	}
	if (!run)
		return 2;
	fd = groups == 1 ? uevent_socket_open(&opts, &info) : bound_socket(groups);
	if (fd < 0) {
		fprintf(stderr, "hold: uevent_socket_open: %s\n", strerror(-fd));
		return 1;
	}
	printf("sock_ino=%lu\n", sock_ino(fd));
	fflush(stdout);
	log_init(&log, LOG_TARGET_STDERR, LOG_DEBUG);
	r = handoff_exec_holder(handoff_open_self(),
				&(struct handoff_holder_args){
					.uevent_fd = fd, .run_dir = run, .timeout_sec = timeout },
				&log);
	fprintf(stderr, "hold: handoff_exec_holder: %s\n", strerror(-r));
	return 1;
}

/* fd exactly at target, inheritable */
static int put_at(int fd, int target)
{
	if (fd < 0 || dup2(fd, target) < 0)
		return -1;
	if (fd != target)
		close(fd);
	return 0;
}

/* One "change" on mem/null: a harmless uevent. */
static void raise_event(void)
{
	int fd = open("/sys/devices/virtual/mem/null/uevent", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "change", 6) != 6)
		perror("raise_event");
	if (fd >= 0)
		close(fd);
}

/* Messages queued in fd, consumed. */
static int drain_count(int fd)
{
	char byte;
	int n = 0;

	while (recv(fd, &byte, 1, MSG_DONTWAIT | MSG_TRUNC) >= 0 || errno == ENOBUFS)
		n++;
	return n;
}

/* Run argv as a child (the service), wait for it; its exit status. */
static int run_service(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		setenv("LISTEN_PID", buf, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * --keep-copy: like PID 1, keep a copy of the kernel socket, with one
 * event queued in it before the service starts; run the service, then
 * (the restart) run it again; after each run raise one event and print how
 * many messages the copy had queued: copy_after_start=N, copy_after_restart=N.
 */
static int keep_copy(char **argv)
{
	int copy = fcntl(4, F_DUPFD_CLOEXEC, 30);

	raise_event();
	fflush(stdout);
	if (copy < 0 || run_service(argv) < 0)
		return 1;
	raise_event();
	printf("copy_after_start=%d\n", drain_count(copy));
	fflush(stdout);
	if (run_service(argv) < 0)
		return 1;
	raise_event();
	printf("copy_after_restart=%d\n", drain_count(copy));
	return 0;
}

static int activate(int argc, char **argv)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	bool unix_only = argc > 1 && strcmp(argv[1], "--unix-only") == 0;
	bool copy = argc > 1 && strcmp(argv[1], "--keep-copy") == 0;
	char pid[16];
	int nl_fd = -1;

	if (unix_only || copy) {
		argc--;
		argv++;
	}
	if (argc < 4 || strcmp(argv[2], "--") != 0)
		return 2;
	/* high numbers first, so that placing one cannot clobber the other */
	if (put_at(socket(AF_UNIX, SOCK_SEQPACKET, 0), 20) < 0 || put_at(20, 3) < 0 ||
	    (!unix_only && ((nl_fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT)) < 0 ||
			    bind(nl_fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
			    put_at(nl_fd, 21) < 0 || put_at(21, 4) < 0))) {
		perror("activate");
		return 1;
	}
	printf("inherited fd3_ino=%lu fd4_ino=%lu\n", sock_ino(3), unix_only ? 0 : sock_ino(4));
	fflush(stdout);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_FDS", unix_only ? "1" : "2", 1);
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDNAMES", argv[1], 1);
	if (copy)
		return keep_copy(argv + 3);
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}

/* Serve one "fetch" with a socket bound to mask, as a holder would. */
static int fake_holder(const char *run, unsigned int mask)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char req[64], cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { "OK fake", 7 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	int lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0), nl = bound_socket(mask), conn;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/handoff", run);
	if (lfd < 0 || nl < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 1) < 0) {
		perror("fake-holder");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	conn = accept(lfd, NULL, NULL);
	if (conn < 0 || recv(conn, req, sizeof(req), 0) <= 0)
		return 1;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &nl, sizeof(int));
	if (sendmsg(conn, &mh, 0) < 0)
		return 1;
	(void)recv(conn, req, sizeof(req), 0); /* "ack", or the peer's close */
	return 0;
}

static int fetch_noack(const char *run)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[512], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	ssize_t n;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/handoff", run);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    send(fd, "fetch", 5, 0) != 5 || (n = recvmsg(fd, &mh, 0)) <= 0) {
		perror("fetch-noack");
		return 1;
	}
	buf[n] = '\0';
	printf("reply=%s fds=%d\n", buf, CMSG_FIRSTHDR(&mh) ? 1 : 0);
	return 0; /* exits holding the socket, never confirming */
}

/* ---- report ---- */

static int sockopt(int fd, int opt)
{
	int v = -1;
	socklen_t len = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, opt, &v, &len) < 0 ? -1 : v;
}

static void print_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	printf("open_fds=");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			printf(" %s", e->d_name);
	}
	printf("\n");
	if (d)
		closedir(d);
}

/* "fd3=netlink:15 ..." for each inherited fd; the uevent socket's fd, or -1. */
static int describe_fds(int n)
{
	int found = -1;

	for (int fd = 3; fd < 3 + n; fd++) {
		int dom = sockopt(fd, SO_DOMAIN), type = sockopt(fd, SO_TYPE);
		int proto = sockopt(fd, SO_PROTOCOL);

		printf("fd%d=%s:%s:%d passcred=%d rcvbuf=%d ino=%lu\n", fd,
		       dom == AF_NETLINK ? "netlink" : dom == AF_UNIX ? "unix" : "other",
		       type == SOCK_RAW ? "raw" : type == SOCK_SEQPACKET ? "seqpacket" : "other",
		       proto, sockopt(fd, SO_PASSCRED), sockopt(fd, SO_RCVBUF), sock_ino(fd));
		if (dom == AF_NETLINK && proto == NETLINK_KOBJECT_UEVENT)
			found = fd;
	}
	return found;
}

static void print_event(const char *buf, size_t len, const struct msghdr *mh)
{
	const char *seq = "?", *uuid = "-";
	char creds[32] = "none";

	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		if (strncmp(buf + i, "SEQNUM=", 7) == 0)
			seq = buf + i + 7;
		if (strncmp(buf + i, "SYNTH_UUID=", 11) == 0)
			uuid = buf + i + 11;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh, c)) {
		struct ucred u;

		if (c->cmsg_type != SCM_CREDENTIALS)
			continue;
		memcpy(&u, CMSG_DATA(c), sizeof(u));
		snprintf(creds, sizeof(creds), "%d:%u", (int)u.pid, (unsigned int)u.uid);
	}
	printf("event=%s %s creds=%s uuid=%s\n", seq, buf, creds, uuid);
}

/* Print every queued event until the socket stays idle for idle_ms. */
static void read_events(int fd, int idle_ms)
{
	char buf[8192], cbuf[CMSG_SPACE(sizeof(struct ucred))];

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		ssize_t n;

		if (poll(&p, 1, idle_ms) <= 0)
			return;
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			printf("enobufs\n");
			continue;
		}
		if (n <= 0)
			return;
		buf[n] = '\0';
		print_event(buf, (size_t)n, &mh);
	}
}

static int report(int argc, char **argv)
{
	const char *fds = getenv("LISTEN_FDS"), *pid = getenv("LISTEN_PID");
	const char *names = getenv("LISTEN_FDNAMES");
	int n = fds ? atoi(fds) : 0, fd;

	printf("listen_fds=%s\n", fds ? fds : "unset");
	printf("listen_pid=%s\n", !pid ? "unset" : atoi(pid) == (int)getpid() ? "self" : pid);
	printf("listen_fdnames=%s\n", names ? names : "unset");
	print_open_fds();
	fd = describe_fds(n);
	fflush(stdout);
	if (fd >= 0)
		read_events(fd, argc > 2 ? atoi(argv[2]) : 500);
	return 0;
}

int main(int argc, char **argv)
{
	struct logger log;

	if (argc > 0 && strcmp(argv[0], HANDOFF_HOLDER_ARGV0) == 0)
		return cmd_holder(argc, argv);
	if (argc > 3 && strcmp(argv[1], "--run") == 0 && strcmp(argv[3], "adopt") == 0) {
		log_init(&log, LOG_TARGET_STDERR, LOG_INFO);
		return cmd_adopt(argc - 3, argv + 3, argv[2], &log);
	}
	if (argc > 1 && strcmp(argv[1], "hold") == 0)
		return hold(argc - 1, argv + 1);
	if (argc == 4 && strcmp(argv[1], "wait-holder") == 0) {
		int r = handoff_wait_holder(argv[2], atoi(argv[3]));

		if (r < 0)
			fprintf(stderr, "wait-holder: %s\n", strerror(-r));
		return r < 0;
	}
	if (argc == 4 && strcmp(argv[1], "fake-holder") == 0)
		return fake_holder(argv[2], (unsigned int)strtoul(argv[3], NULL, 0));
	if (argc == 3 && strcmp(argv[1], "fetch-noack") == 0)
		return fetch_noack(argv[2]);
	if (argc > 1 && strcmp(argv[1], "activate") == 0)
		return activate(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return report(argc, argv);
	fprintf(stderr, "usage: see tests/handoff-helper.c\n");
	return 2;
}
