/* SPDX-License-Identifier: MIT */
/*
 * initdev daemon / initdev coldplug: bind the socket first, then coldplug,
 * then serve events and the control socket until told to stop (daemon) or
 * until settled (coldplug).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/control.h"
#include "engine/engine.h"
#include "handoff/handoff.h"
#include "engine/info.h"
#include "engine/wait.h"
#include "engine/status.h"

#define MAX_CLIENTS 16
#define DEFAULT_COLDPLUG_TIMEOUT 180

struct client {
	int fd;
	bool awaits_settle;
	char awaits_name[WAIT_NAME_MAX]; /* initdev wait: "" if not waiting */
	bool refused;   /* not root: answered with an error, then dropped */
	uid_t uid;
};

struct daemon {
	struct cli *cli;
	struct engine engine;
	struct cmdline cmdline;
	struct engine_config cfg;
	bool foreground;
	bool until_settled;   /* initdev coldplug */
	bool force;           /* full coldplug even beside a running udevd */
	const char *until_found; /* initdev wait without a daemon: the name */
	const char *wait_spec;
	char wait_name[WAIT_NAME_MAX];
	char found[PATH_MAX];
	int timeout_sec;      /* -1: none */
	uint64_t deadline;
	bool deadline_reported;
	int listen_fd, sig_fd, ready_fd;
	struct client clients[MAX_CLIENTS];
	bool stop;
	bool handoff;         /* stop reading; once idle, become the holder */
	int handoff_fd;       /* the client answered just before that */
	int exit_code;
	char reply[CONTROL_MSG_MAX];
};

/* ---- options ---- */

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || *out > max ? -1 : 0;
}

static void usage(FILE *f, bool coldplug)
{
	fprintf(f, "usage: initdev %s [--timeout S]%s [--no-coldplug] [--no-devtmpfs]\n"
		   "         [--subtree /devices/...]... [--workers N] [--rules FILE] [--modules DIR]\n"
		   "         [--force]\n",
		coldplug ? "coldplug" : "daemon", coldplug ? "" : " [--foreground]");
}

static int parse_option(struct daemon *d, int c, const char *arg)
{
	unsigned long v;

	switch (c) {
	case 'f': d->foreground = true; return 0;
	case 'F': d->force = true; return 0;
	case 'C': d->cfg.coldplug = false; return 0;
	case 'D': d->cfg.no_devtmpfs = true; return 0;
	case 's':
		if (d->cfg.nsubtrees >= ENGINE_SUBTREES_MAX)
			break;
		d->cfg.subtrees[d->cfg.nsubtrees++] = arg;
		return 0;
	case 'R': d->cfg.rules_path = arg; return 0;
	case 'M': d->cfg.modules_dir = arg; return 0;
	case 'U': d->cfg.test_unpaced = true; return 0;
	case 't':
		if (parse_uint(arg, CMDLINE_TIMEOUT_MAX, &v) < 0)
			break;
		d->timeout_sec = (int)v;
		return 0;
	case 'w':
		if (parse_uint(arg, CMDLINE_WORKERS_MAX, &v) < 0 || v == 0)
			break;
		d->cfg.workers = (unsigned int)v;
		return 0;
	case 'b':
		if (parse_uint(arg, INT_MAX, &v) < 0)
			break;
		d->cfg.rcvbuf = (int)v;
		return 0;
	default:
		return -1;
	}
	fprintf(stderr, "initdev: bad value '%s' for an option\n", arg);
	return -1;
}

static int parse_args(struct daemon *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		{ "no-coldplug", no_argument, NULL, 'C' },
		{ "no-devtmpfs", no_argument, NULL, 'D' },
		{ "timeout", required_argument, NULL, 't' },
		{ "subtree", required_argument, NULL, 's' },
		{ "workers", required_argument, NULL, 'w' },
		{ "rules", required_argument, NULL, 'R' },
		{ "modules", required_argument, NULL, 'M' },
		{ "rcvbuf", required_argument, NULL, 'b' },       /* test seam */
		{ "test-unpaced", no_argument, NULL, 'U' },       /* test seam */
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout, d->until_settled);
			return 0;
		}
		if ((c == 'f' && d->until_settled) || parse_option(d, c, optarg) < 0) {
			usage(stderr, d->until_settled);
			return -1;
		}
	}
	if (d->until_found && optind == argc - 1) {
		d->until_found = argv[optind]; /* the SPEC, turned into a name later */
		return 1;
	}
	if (optind < argc) {
		usage(stderr, d->until_settled);
		return -1;
	}
	return 1;
}

/* ---- control requests ---- */

struct reply_buf {
	char *buf;
	size_t size, len;
};

static void append_line(void *u, const char *line)
{
	struct reply_buf *r = u;
	int n = snprintf(r->buf + r->len, r->size - r->len, "%s\n", line);

	if (n > 0 && (size_t)n < r->size - r->len)
		r->len += (size_t)n;
}

static const char *pending_reply(struct daemon *d)
{
	struct reply_buf r = { d->reply, sizeof(d->reply), 0 };

	append_line(&r, d->engine.settled ? "OK settled" : "OK not settled");
	engine_describe_pending(&d->engine, append_line, &r);
	return d->reply;
}

static const char *status_reply(struct daemon *d, bool json)
{
	memcpy(d->reply, "OK\n", 3);
	status_format(&d->engine, json, d->reply + 3, sizeof(d->reply) - 3);
	return d->reply;
}

static const char *devices_reply(struct daemon *d)
{
	struct reply_buf r = { d->reply, sizeof(d->reply), 0 };

	append_line(&r, "OK");
	wait_describe_devices(&d->engine, append_line, &r);
	return d->reply;
}

static const char *info_reply(struct daemon *d, const char *name)
{
	int r;

	memcpy(d->reply, "OK\n", 3);
	r = info_properties(&d->engine, name, d->reply + 3, sizeof(d->reply) - 3);
	if (r < 0)
		snprintf(d->reply, sizeof(d->reply), "ERR %s", strerror(-r));
	return d->reply;
}

/* initdev handoff: the client is answered once the events in hand are done. */
static const char *start_handoff(struct daemon *d, struct client *c)
{
	if (d->until_settled || d->until_found)
		return "ERR not a daemon";
	if (d->handoff)
		return "ERR handoff under way";
	d->handoff = true;
	d->handoff_fd = c->fd;
	*c = (struct client){ .fd = -1 };
	return NULL;
}

/* Returns the reply, or NULL when the reply is deferred (settle). */
static const char *handle_request(struct daemon *d, struct client *c, const char *req)
{
	if (strcmp(req, "ping") == 0)
		return "OK";
	if (strcmp(req, "status") == 0 || strcmp(req, "status json") == 0)
		return status_reply(d, req[6] != '\0');
	if (strcmp(req, "pending") == 0)
		return pending_reply(d);
	if (strncmp(req, "wait ", 5) == 0) {
		if (strlen(req + 5) >= sizeof(c->awaits_name) || !wait_name_safe(req + 5))
			return "ERR bad name";
		memcpy(c->awaits_name, req + 5, strlen(req + 5) + 1);
		return NULL; /* answered by notify_found */
	}
	if (strcmp(req, "devices") == 0)
		return devices_reply(d);
	if (strcmp(req, "coldplug") == 0)
		return engine_coldplug(&d->engine) == 0 ? "OK" : "ERR coldplug failed";
	if (strncmp(req, "info ", 5) == 0)
		return info_reply(d, req + 5);
	if (strcmp(req, "handoff") == 0)
		return start_handoff(d, c);
	if (strcmp(req, "exit") == 0) {
		d->stop = true;
		return "OK exiting";
	}
	if (strcmp(req, "settle") == 0) {
		if (d->engine.settled)
			return "OK settled";
		c->awaits_settle = true;
		return NULL;
	}
	return "ERR unknown request";
}

static void drop_client(struct client *c)
{
	close(c->fd);
	c->fd = -1;
	c->awaits_settle = false;
	c->awaits_name[0] = '\0';
}

static void serve_client(struct daemon *d, struct client *c)
{
	char req[4352];
	const char *reply;
	int n;

	if (c->refused) {
		control_refuse(c->fd, c->uid);
		*c = (struct client){ .fd = -1 };
		return;
	}
	n = control_recv(c->fd, req, sizeof(req), 0);

	if (n < 0) {
		if (n != -ETIMEDOUT && n != -EAGAIN)
			drop_client(c);
		return;
	}
	reply = handle_request(d, c, req);
	if (reply && control_send(c->fd, reply) < 0)
		drop_client(c);
}

static void accept_client(struct daemon *d)
{
	uid_t uid = 0;
	int fd = control_accept(d->listen_fd, &uid);

	if (fd < 0)
		return;
	if (uid != 0)
		log_msg(&d->cli->log, LOG_WARNING, "control: refusing a peer with uid %u",
			(unsigned int)uid);
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (d->clients[i].fd < 0) {
			d->clients[i] = (struct client){ .fd = fd, .refused = uid != 0, .uid = uid };
			return;
		}
	}
	(void)control_send(fd, "ERR busy");
	close(fd);
}

static void notify_settled(struct daemon *d)
{
	if (!d->engine.settled)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &d->clients[i];

		if (c->fd >= 0 && c->awaits_settle) {
			c->awaits_settle = false;
			if (control_send(c->fd, "OK settled") < 0)
				drop_client(c);
		}
	}
}

static void notify_found(struct daemon *d)
{
	char devname[PATH_MAX], msg[PATH_MAX + 8];

	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &d->clients[i];

		if (c->fd < 0 || !c->awaits_name[0] ||
		    !wait_found(&d->engine, c->awaits_name, devname, sizeof(devname)))
			continue;
		c->awaits_name[0] = '\0';
		snprintf(msg, sizeof(msg), "OK %s", devname);
		if (control_send(c->fd, msg) < 0)
			drop_client(c);
	}
}

/* ---- the loop ---- */

static int make_signal_fd(void)
{
	sigset_t set;
	int fd;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

static void print_pending_line(void *u, const char *line)
{
	const struct logger *log = u;

	log_msg(log, LOG_WARNING, "pending: %s", line);
}

static void print_device_line(void *u, const char *line)
{
	fprintf(stderr, "  %s\n", line);
}

#define WAIT_LOOK_MS 1000 /* initdev wait --timeout 0: time for the daemon's answer */

/* initdev wait gave up: the line before the list of block devices seen */
static void print_not_found(const struct daemon *d)
{
	if (d->timeout_sec == 0)
		fprintf(stderr, "initdev: %s is not there; block devices seen:\n", d->wait_spec);
	else
		fprintf(stderr, "initdev: %s did not appear within %d s; block devices seen:\n",
			d->wait_spec, d->timeout_sec);
}

static void deadline_passed(struct daemon *d)
{
	if (d->deadline_reported)
		return;
	d->deadline_reported = true;
	if (d->until_found) {
		print_not_found(d);
		wait_describe_devices(&d->engine, print_device_line, NULL);
		d->exit_code = EXIT_FAIL;
		d->stop = true;
		return;
	}
	log_msg(&d->cli->log, LOG_WARNING, "not settled after %d s", d->timeout_sec);
	engine_describe_pending(&d->engine, print_pending_line, &d->cli->log);
	if (d->until_settled) {
		d->exit_code = EXIT_FAIL;
		d->stop = true;
	}
}

static int poll_timeout(struct daemon *d)
{
	uint64_t now;

	if (engine_has_work(&d->engine))
		return 0;
	if (!d->deadline || d->deadline_reported)
		return -1;
	now = now_monotonic_usec();
	return now >= d->deadline ? 0 : (int)((d->deadline - now) / 1000 + 1);
}

static size_t build_pollset(struct daemon *d, struct pollfd *p, struct client **owner)
{
	size_t n = 0;
	/* handing off: the socket is left to the holder, unread */
	int fixed[] = { d->handoff ? -1 : d->engine.gate.fd, d->engine.queue.done_fd,
			d->listen_fd, d->sig_fd };

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		owner[n] = NULL;
		p[n++] = (struct pollfd){ fixed[i], POLLIN, 0 };
	}
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (d->clients[i].fd >= 0) {
			owner[n] = &d->clients[i];
			p[n++] = (struct pollfd){ d->clients[i].fd, POLLIN, 0 };
		}
	}
	return n;
}

static void dispatch(struct daemon *d, struct pollfd *p, struct client **owner, size_t n)
{
	if (p[1].revents)
		engine_on_done(&d->engine);
	if (p[0].revents)
		engine_on_socket(&d->engine);
	if (p[2].revents)
		accept_client(d);
	if (p[3].revents) {
		struct signalfd_siginfo si;

		(void)read(d->sig_fd, &si, sizeof(si));
		log_msg(&d->cli->log, LOG_INFO, "signal %u: exiting", si.ssi_signo);
		d->stop = true;
	}
	for (size_t i = 4; i < n; i++)
		if (p[i].revents && owner[i]->fd >= 0)
			serve_client(d, owner[i]);
}

static void run_loop(struct daemon *d)
{
	struct pollfd p[4 + MAX_CLIENTS];
	struct client *owner[4 + MAX_CLIENTS];

	while (!d->stop) {
		engine_step(&d->engine);
		notify_settled(d);
		notify_found(d);
		if (d->until_found &&
		    wait_found(&d->engine, d->until_found, d->found, sizeof(d->found)))
			break;
		if (d->until_settled && !d->until_found && d->engine.settled)
			break;
		if (d->handoff && queue_pending(&d->engine.queue) == 0)
			break;
		size_t n = build_pollset(d, p, owner);
		int r = poll(p, n, poll_timeout(d));

		if (r < 0 && errno != EINTR) {
			log_msg(&d->cli->log, LOG_ERR, "poll: %s", strerror(errno));
			d->exit_code = EXIT_FAIL;
			break;
		}
		if (r > 0)
			dispatch(d, p, owner, n);
		if (d->deadline && now_monotonic_usec() >= d->deadline)
			deadline_passed(d);
	}
}

/* ---- setup ---- */

static int write_pid_file(const char *run_dir)
{
	char path[PATH_MAX], buf[32];
	int fd, n;

	if ((size_t)snprintf(path, sizeof(path), "%s/pid", run_dir) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, (size_t)n) != n)
		n = -1;
	close(fd);
	return n < 0 ? -EIO : 0;
}

static void remove_state(const char *run_dir)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/pid", run_dir) < sizeof(path))
		(void)unlink(path);
	if (control_path(run_dir, path, sizeof(path)) == 0)
		(void)unlink(path);
	(void)rmdir(run_dir); /* leave nothing behind; fails harmlessly if not empty */
}

/*
 * A background daemon must not hold its caller's terminal or pipes open;
 * its messages go to /dev/kmsg from now on.
 */
static void detach_stdio(struct daemon *d)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return;
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	close(null);
	if (!d->cli->log.kmsg)
		log_init(&d->cli->log, LOG_TARGET_KMSG, d->cli->log.max_level);
}

/* Fork; the parent returns once the child says it is ready. */
static int daemonize(struct daemon *d)
{
	int pfd[2];
	char ok = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(pfd[1]);
		if (read(pfd[0], &ok, 1) != 1 || ok != '1')
			_exit(EXIT_FAIL);
		_exit(EXIT_OK);
	}
	close(pfd[0]);
	d->ready_fd = pfd[1];
	(void)setsid();
	detach_stdio(d);
	return 0;
}

static void signal_ready(struct daemon *d)
{
	if (d->ready_fd < 0)
		return;
	(void)write(d->ready_fd, "1", 1);
	close(d->ready_fd);
	d->ready_fd = -1;
}

static int already_running(const char *run_dir)
{
	int fd = control_connect(run_dir);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int setup(struct daemon *d)
{
	int r;

	d->sig_fd = make_signal_fd();
	d->listen_fd = control_listen(d->cli->run);
	if (d->listen_fd < 0) {
		log_msg(&d->cli->log, LOG_ERR, "%s: cannot create the control socket: %s",
			d->cli->run, strerror(-d->listen_fd));
		return d->listen_fd;
	}
	r = write_pid_file(d->cli->run);
	if (r < 0)
		log_msg(&d->cli->log, LOG_WARNING, "%s/pid: %s", d->cli->run, strerror(-r));
	r = engine_start(&d->engine);
	if (r < 0)
		return r;
	if (d->timeout_sec >= 0)
		d->deadline = now_monotonic_usec() + (uint64_t)d->timeout_sec * 1000000u;
	return 0;
}

static void teardown(struct daemon *d)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (d->clients[i].fd >= 0)
			drop_client(&d->clients[i]);
	if (d->listen_fd >= 0) {
		close(d->listen_fd);
		remove_state(d->cli->run);
	}
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	engine_close(&d->engine);
	cmdline_free(&d->cmdline);
}

/* RUN/status.json: what the initramfs did, for whoever looks after switch_root. */
static void write_state(struct daemon *d)
{
	char path[PATH_MAX];
	size_t len = status_format(&d->engine, true, d->reply, sizeof(d->reply));
	int fd;

	if (len >= sizeof(d->reply) ||
	    (size_t)snprintf(path, sizeof(path), "%s/status.json", d->cli->run) >= sizeof(path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || write(fd, d->reply, len) != (ssize_t)len)
		log_msg(&d->cli->log, LOG_WARNING, "%s: cannot write the state", path);
	if (fd >= 0)
		close(fd);
}

/* The events in hand are done: state to RUN, answer, exec the holder. */
static int become_holder(struct daemon *d)
{
	struct cli *cli = d->cli;
	int nl = d->engine.gate.fd, client = d->handoff_fd, r;
	int timeout = d->cmdline.handoff_timeout_sec; /* -1: the holder's default */

	write_state(d);
	d->engine.gate.fd = -1; /* teardown must not close it */
	teardown(d);
	(void)control_send(client, "OK handing off");
	close(client);
	r = handoff_exec_holder("/proc/self/exe", nl, cli->run, timeout, &cli->log);
	log_msg(&cli->log, LOG_ERR, "handoff: cannot start the holder: %s; the events "
		"queued in the uevent socket are lost", strerror(-r));
	close(nl);
	return EXIT_FAIL;
}

static void init_daemon(struct daemon *d, struct cli *cli, bool until_settled)
{
	memset(d, 0, sizeof(*d));
	d->cli = cli;
	d->until_settled = until_settled;
	d->timeout_sec = -1;
	d->listen_fd = d->sig_fd = d->ready_fd = d->handoff_fd = -1;
	for (int i = 0; i < MAX_CLIENTS; i++)
		d->clients[i].fd = -1;
	d->cfg = (struct engine_config){ .sysfs = cli->sysfs, .dev = cli->dev, .coldplug = true };
	cmdline_init(&d->cmdline);
}

static void apply_cmdline(struct daemon *d)
{
	int r = cmdline_load(&d->cmdline, d->cli->cmdline, &d->cli->log);

	if (r < 0)
		log_msg(&d->cli->log, LOG_WARNING, "%s: %s; using defaults", d->cli->cmdline, strerror(-r));
	if (d->cmdline.debug && d->cli->log_level < 0)
		d->cli->log.max_level = LOG_DEBUG;
	if (d->timeout_sec < 0)
		d->timeout_sec = d->cmdline.timeout_sec >= 0 ? d->cmdline.timeout_sec :
				 d->until_settled ? DEFAULT_COLDPLUG_TIMEOUT : -1;
}

static int run_engine(struct daemon *d);

static int run(struct cli *cli, int argc, char **argv, bool until_settled)
{
	struct daemon *d = malloc(sizeof(*d));
	int r;

	if (!d)
		return EXIT_FAIL;
	init_daemon(d, cli, until_settled);
	r = parse_args(d, argc, argv);
	if (r <= 0) {
		free(d);
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	}
	r = run_engine(d);
	free(d);
	return r;
}

/* udevd's control socket: it answers while a device manager runs here. */
#define UDEV_CONTROL "/run/udev/control"

static bool udevd_running(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	bool up;

	if (fd < 0)
		return false;
	memcpy(sa.sun_path, UDEV_CONTROL, sizeof(UDEV_CONTROL));
	up = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return up;
}

/*
 * A full coldplug beside a running udevd re-triggers every device of a
 * live system (network interfaces included) and races udevd for /dev:
 * that is a mistake, not a use. --subtree, --no-coldplug or --force.
 */
static bool coldplug_refused(struct daemon *d)
{
	if (!d->cfg.coldplug || d->cfg.nsubtrees > 0 || d->force || !udevd_running())
		return false;
	log_msg(&d->cli->log, LOG_ERR, "another device manager serves %s (systemd-udevd?): "
		"a full coldplug would re-trigger every device of this running system; "
		"initdev belongs in the initramfs. Limit it with --subtree, or use "
		"--no-coldplug or --force", UDEV_CONTROL);
	return true;
}

/* Bind, set up, loop, tear down. The exit code; frees nothing of d itself. */
static int run_engine(struct daemon *d)
{
	struct cli *cli = d->cli;
	bool until_settled = d->until_settled;
	int r;

	if (coldplug_refused(d)) {
		cmdline_free(&d->cmdline);
		return EXIT_FAIL;
	}
	if (already_running(cli->run)) {
		log_msg(&cli->log, LOG_ERR, "a daemon already serves %s/control", cli->run);
		cmdline_free(&d->cmdline);
		return EXIT_FAIL;
	}
	/* the socket first: from here on no kernel event is missed */
	r = engine_open(&d->engine, &d->cfg, &d->cmdline, &cli->log);
	if (r == 0) {
		apply_cmdline(d);
		if (!d->foreground && !until_settled)
			r = daemonize(d);
	}
	if (r == 0)
		r = setup(d);
	if (r == 0) {
		signal_ready(d);
		run_loop(d);
	}
	if (r == 0 && d->handoff)
		return become_holder(d);
	teardown(d);
	return r < 0 ? EXIT_FAIL : d->exit_code;
}

int cmd_daemon(struct cli *cli, int argc, char **argv)
{
	return run(cli, argc, argv, false);
}

static void print_line(void *u, const char *line)
{
	fprintf(stderr, "  %s\n", line);
}

/* With a running daemon: ask it. Returns an exit code, or -1 if there is none. */
static int wait_with_daemon(struct daemon *d)
{
	static char reply[CONTROL_MSG_MAX];
	char req[WAIT_NAME_MAX + 8];
	int fd = control_connect(d->cli->run), r;

	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req), "wait %s", d->wait_name);
	r = control_send(fd, req);
	if (r == 0)
		/* --timeout 0 is a look: the daemon answers at once if it is there */
		r = control_recv(fd, reply, sizeof(reply),
				 d->timeout_sec ? d->timeout_sec * 1000 : WAIT_LOOK_MS);
	close(fd);
	if (r > 0 && strncmp(reply, "OK ", 3) == 0) {
		printf("%s/%s\n", d->cli->dev, reply + 3);
		return EXIT_OK;
	}
	print_not_found(d);
	fd = control_connect(d->cli->run);
	if (fd >= 0 && control_send(fd, "devices") == 0 &&
	    control_recv(fd, reply, sizeof(reply), 5000) > 0) {
		char *body = strchr(reply, '\n');

		for (char *line = body ? strtok(body + 1, "\n") : NULL; line; line = strtok(NULL, "\n"))
			print_line(NULL, line);
	}
	if (fd >= 0)
		close(fd);
	return EXIT_FAIL;
}

int cmd_wait(struct cli *cli, int argc, char **argv)
{
	struct daemon *d = malloc(sizeof(*d));
	const char *why;
	int r;

	if (!d)
		return EXIT_FAIL;
	init_daemon(d, cli, true);
	d->until_found = "";
	r = parse_args(d, argc, argv);
	if (r > 0 && !d->until_found[0]) {
		fprintf(stderr, "usage: initdev wait [--timeout S] /dev/PATH|UUID=|LABEL=|PARTUUID=|PARTLABEL=|MAJ:MIN\n");
		r = -1;
	}
	if (r > 0) {
		d->wait_spec = d->until_found;
		if (wait_spec_name(d->wait_spec, d->wait_name, sizeof(d->wait_name), &why) < 0) {
			fprintf(stderr, "initdev wait: bad spec: %s\n", why);
			r = -1;
		}
	}
	if (r <= 0) {
		cmdline_free(&d->cmdline);
		free(d);
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	}
	d->until_found = d->wait_name;
	if (d->timeout_sec < 0)
		d->timeout_sec = DEFAULT_COLDPLUG_TIMEOUT;
	r = wait_with_daemon(d);
	if (r >= 0) {
		cmdline_free(&d->cmdline);
		free(d);
		return r;
	}
	/* no daemon: run the engine here until the device is there */
	r = run_engine(d);
	if (r == EXIT_OK && d->found[0])
		printf("%s/%s\n", cli->dev, d->found);
	free(d);
	return r;
}

int cmd_coldplug(struct cli *cli, int argc, char **argv)
{
	return run(cli, argc, argv, true);
}
