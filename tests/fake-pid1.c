/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for systemd as PID 1 starting a Type=notify service with
 * socket activation, for host tests of `initdev daemon` under systemd:
 * it makes the sockets the socket units would (systemd-udevd-kernel.socket:
 * NETLINK_KOBJECT_UEVENT bound to group 1, SO_PASSCRED, a big buffer;
 * systemd-udevd-control.socket: SOCK_SEQPACKET listening at a path), or a
 * wrong one on purpose, passes them per sd_listen_fds (fds 3.., LISTEN_FDS,
 * LISTEN_PID, LISTEN_FDNAMES), gives NOTIFY_SOCKET (abstract) and
 * WATCHDOG_USEC, and prints every notification it receives, one line each
 * ("notify: READY=1 | STATUS=..."; "from-other-pid" when the kernel's
 * credentials name another process than the service). With --term it
 * sends SIGTERM once READY=1 came (and --watchdogs N WATCHDOG=1 pings),
 * as `systemctl stop` does; with --hup, SIGHUP first, once READY=1 came
 * (`systemctl reload` of a Type=notify-reload unit), and SIGTERM only
 * after the READY=1 that ends the reload; with --term-after FILE only once FILE exists
 * too. --trigger FILE=TEXT (up to 8, in order) writes TEXT to FILE (a uevent
 * file) once the sockets are made, before PROG runs: the kernel's event for
 * it waits in the passed socket only. Ends with "exit N" or "signal N".
 *
 * Usage: fake-pid1 [--kernel uevent|group2|groups12|unbound|route|tcp|none]
 *          [--control PATH] [--fdnames NAMES] [--fds N] [--pid-other]
 *          [--trigger FILE=TEXT] [--watchdog USEC] [--watchdogs N] [--term] [--hup]
 *          [--term-after FILE] [--switch-root] [--timeout S] -- PROG ARGS...
 * --switch-root closes the notify socket before the SIGTERM, as PID 1's
 * switch to the real root leaves the service's STOPPING=1 unheard.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *kernel, *control, *fdnames, *fds, *term_after;
	const char *trigger[8];
	int ntriggers;
	bool pid_other, term, hup, switch_root;
	const char *watchdog;
	int watchdogs, timeout;
};

static int die(const char *what)
{
	fprintf(stderr, "fake-pid1: %s: %s\n", what, strerror(errno));
	exit(3);
}

static int netlink(int proto, unsigned int groups, bool bound)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = groups };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto), on = 1, size = 128 << 20;

	if (fd < 0)
		die("netlink socket");
	/* as systemd-udevd-kernel.socket: PassCredentials=yes, ReceiveBuffer=128M */
	(void)setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	if (bound && bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind netlink");
	return fd;
}

/* The kernel socket of the given kind, or -1 for none. */
static int kernel_socket(const char *kind)
{
	if (strcmp(kind, "uevent") == 0)
		return netlink(NETLINK_KOBJECT_UEVENT, 1, true);
	if (strcmp(kind, "group2") == 0)
		return netlink(NETLINK_KOBJECT_UEVENT, 2, true);
	if (strcmp(kind, "groups12") == 0)
		return netlink(NETLINK_KOBJECT_UEVENT, 3, true);
	if (strcmp(kind, "unbound") == 0)
		return netlink(NETLINK_KOBJECT_UEVENT, 0, false);
	if (strcmp(kind, "route") == 0)
		return netlink(NETLINK_ROUTE, 0, true);
	if (strcmp(kind, "tcp") == 0) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		return fd < 0 ? die("tcp socket") : fd;
	}
	return -1;
}

static int control_socket(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(a.sun_path))
		die("control socket");
	strcpy(a.sun_path, path);
	(void)unlink(path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0)
		die("control bind/listen");
	return fd;
}

/* --trigger FILE=TEXT: the text written to the file, in one write */
static void trigger(const char *spec)
{
	char file[256];
	const char *eq = strchr(spec, '=');
	int fd;

	if (!eq || (size_t)(eq - spec) >= sizeof(file))
		die("--trigger FILE=TEXT");
	snprintf(file, sizeof(file), "%.*s", (int)(eq - spec), spec);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, eq + 1, strlen(eq + 1)) < 0)
		die(file);
	close(fd);
}

static int notify_socket(char *name, size_t size)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), on = 1;
	size_t len;

	snprintf(name, size, "@fake-pid1-%d-%ld", (int)getpid(), (long)time(NULL));
	len = strlen(name);
	memcpy(a.sun_path + 1, name + 1, len - 1);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		die("notify socket");
	return fd;
}

/* fd to exactly target, kept across exec (dup2 onto itself keeps CLOEXEC) */
static void pass_fd(int fd, int target)
{
	if (fd == target ? fcntl(fd, F_SETFD, 0) < 0 : dup2(fd, target) < 0)
		die("pass fd");
}

/* In the child: fds to 3.., the environment, exec. */
static void start(const struct opts *o, int kfd, int cfd, char **argv)
{
	char buf[32];
	int n = 0;

	if (kfd >= 0)
		pass_fd(kfd, 3 + n++);
	if (cfd >= 0)
		pass_fd(cfd, 3 + n++);
	snprintf(buf, sizeof(buf), "%d", n);
	setenv("LISTEN_FDS", o->fds ? o->fds : buf, 1);
	snprintf(buf, sizeof(buf), "%d", (int)getpid() + (o->pid_other ? 1000 : 0));
	setenv("LISTEN_PID", buf, 1);
	if (o->fdnames)
		setenv("LISTEN_FDNAMES", o->fdnames, 1);
	else if (n)
		setenv("LISTEN_FDNAMES", kfd >= 0 && cfd >= 0 ?
		       "systemd-udevd-kernel.socket:systemd-udevd-control.socket" :
		       kfd >= 0 ? "systemd-udevd-kernel.socket" : "systemd-udevd-control.socket", 1);
	if (o->watchdog) {
		setenv("WATCHDOG_USEC", o->watchdog, 1);
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		setenv("WATCHDOG_PID", buf, 1);
	}
	execvp(argv[0], argv);
	die(argv[0]);
}

/* One datagram, printed on one line. Returns what it said of interest. */
static void print_notification(int fd, pid_t child, int *ready, int *watchdogs)
{
	char buf[4096];
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(struct ucred))];
	} cm;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			     .msg_controllen = sizeof(cm.b) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
	pid_t from = 0;

	if (n < 0)
		return;
	buf[n] = '\0';
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_CREDENTIALS)
		from = ((struct ucred *)CMSG_DATA(c))->pid;
	if (strstr(buf, "READY=1"))
		(*ready)++;
	if (strstr(buf, "WATCHDOG=1"))
		(*watchdogs)++;
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = '|';
	printf("notify: %s%s\n", buf, from == child ? "" : " from-other-pid");
	fflush(stdout);
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' }, { "control", required_argument, NULL, 'c' },
		{ "fdnames", required_argument, NULL, 'n' }, { "fds", required_argument, NULL, 'N' },
		{ "pid-other", no_argument, NULL, 'p' }, { "watchdog", required_argument, NULL, 'w' },
		{ "watchdogs", required_argument, NULL, 'W' }, { "term", no_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "trigger", required_argument, NULL, 'g' },
		{ "term-after", required_argument, NULL, 'a' },
		{ "hup", no_argument, NULL, 'h' },
		{ "switch-root", no_argument, NULL, 'r' }, { 0 },
	};
	int c;

	*o = (struct opts){ .kernel = "uevent", .timeout = 60 };
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'k': o->kernel = optarg; break;
		case 'c': o->control = optarg; break;
		case 'n': o->fdnames = optarg; break;
		case 'N': o->fds = optarg; break;
		case 'p': o->pid_other = true; break;
		case 'w': o->watchdog = optarg; break;
		case 'W': o->watchdogs = atoi(optarg); break;
		case 't': o->term = true; break;
		case 'T': o->timeout = atoi(optarg); break;
		case 'g':
			if (o->ntriggers == 8)
				return -1;
			o->trigger[o->ntriggers++] = optarg;
			break;
		case 'a': o->term_after = optarg, o->term = true; break;
		case 'h': o->hup = true; break;
		case 'r': o->switch_root = o->term = true; break;
		default: return -1;
		}
	}
	return optind < argc ? optind : -1;
}

int main(int argc, char **argv)
{
	struct opts o;
	char name[108];
	int first = parse(argc, argv, &o), kfd, cfd, nfd, sfd, st, watchdogs = 0, ready = 0;
	bool termed = false, hupped = false;
	time_t end;
	sigset_t set;
	pid_t child;

	if (first < 0) {
		fprintf(stderr, "usage: fake-pid1 [options] -- PROG ARGS...\n");
		return 2;
	}
	kfd = kernel_socket(o.kernel);
	cfd = o.control ? control_socket(o.control) : -1;
	for (int i = 0; i < o.ntriggers; i++)
		trigger(o.trigger[i]);
	nfd = notify_socket(name, sizeof(name));
	setenv("NOTIFY_SOCKET", name, 1);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		start(&o, kfd, cfd, argv + first);
	}
	end = time(NULL) + o.timeout;
	for (;;) {
		struct pollfd p[2] = { { nfd, POLLIN, 0 }, { sfd, POLLIN, 0 } };

		if (poll(p, 2, 1000) > 0 && p[0].revents)
			print_notification(nfd, child, &ready, &watchdogs);
		if (o.hup && !hupped && ready) {
			kill(child, SIGHUP);
			hupped = true;
		}
		if (o.term && !termed && ready > (o.hup ? 1 : 0) && watchdogs >= o.watchdogs &&
		    (!o.term_after || access(o.term_after, F_OK) == 0)) {
			if (o.switch_root) {
				close(nfd);
				nfd = -1; /* poll ignores it from now on */
			}
			kill(child, SIGTERM);
			termed = true;
		}
		if (waitpid(child, &st, WNOHANG) == child)
			break;
		if (time(NULL) > end) {
			kill(child, SIGKILL);
			waitpid(child, &st, 0);
			printf("timeout\n");
			return 1;
		}
	}
	while (poll(&(struct pollfd){ nfd, POLLIN, 0 }, 1, 0) > 0)
		print_notification(nfd, child, &ready, &watchdogs);
	if (WIFEXITED(st))
		printf("exit %d\n", WEXITSTATUS(st));
	else
		printf("signal %d\n", WTERMSIG(st));
	return 0;
}
