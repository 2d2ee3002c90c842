/* SPDX-License-Identifier: MIT */
/*
 * initdev daemon / initdev coldplug: bind the socket first, then coldplug,
 * then serve events and the control socket until told to stop (daemon) or
 * until settled (coldplug).
 */
#include "cli/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff/handoff.h"
#include "util/number.h"
#include "util/sigfd.h"

/* ---- options ---- */

static void usage(FILE *f, bool coldplug)
{
	fprintf(f, "usage: initdev %s [--timeout S]%s [--no-coldplug] [--no-devtmpfs]\n"
		   "         [--subtree /devices/...]... [--workers N] [--modules DIR]\n"
		   "         [--force]\n",
		coldplug ? "coldplug" : "daemon", coldplug ? "" : " [--foreground]");
}

static int parse_option(struct daemon *d, int c, const char *arg)
{
	uint64_t v;

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
	case 'M': d->cfg.modules_dir = arg; return 0;
	case 'U': d->cfg.test_unpaced = true; return 0;
	case 'S':
		if (number_parse_str(arg, 10000, &v) < 0)
			break;
		d->cfg.test_delay_ms = (unsigned int)v;
		return 0;
	case 't':
		if (number_parse_str(arg, CMDLINE_TIMEOUT_MAX, &v) < 0)
			break;
		d->timeout_sec = (int)v;
		return 0;
	case 'w':
		if (number_parse_str(arg, CMDLINE_WORKERS_MAX, &v) < 0 || v == 0)
			break;
		d->cfg.workers = (unsigned int)v;
		return 0;
	case 'b':
		if (number_parse_str(arg, INT_MAX, &v) < 0)
			break;
		d->cfg.rcvbuf = (int)v;
		return 0;
	default:
		return -1;
	}
	fprintf(stderr, "initdev: bad value '%s' for an option\n", arg);
	return -1;
}

int daemon_parse_args(struct daemon *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		{ "no-coldplug", no_argument, NULL, 'C' },
		{ "no-devtmpfs", no_argument, NULL, 'D' },
		{ "timeout", required_argument, NULL, 't' },
		{ "subtree", required_argument, NULL, 's' },
		{ "workers", required_argument, NULL, 'w' },
		{ "modules", required_argument, NULL, 'M' },
		{ "rcvbuf", required_argument, NULL, 'b' },       /* test seam */
		{ "test-unpaced", no_argument, NULL, 'U' },       /* test seam */
		{ "test-delay-ms", required_argument, NULL, 'S' }, /* test seam */
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

void daemon_init(struct daemon *d, struct cli *cli, bool until_settled)
{
	memset(d, 0, sizeof(*d));
	d->cli = cli;
	d->until_settled = until_settled;
	d->timeout_sec = -1;
	d->listen_fd = d->sig_fd = d->ready_fd = d->handoff_fd = d->caller_fd = d->self_fd = -1;
	d->pid1_control_fd = d->udev_conn_fd = -1;
	d->notify.fd = -1;
	for (int i = 0; i < MAX_CLIENTS; i++)
		d->clients[i].fd = -1;
	d->cfg = (struct engine_config){ .sysfs = cli->sysfs, .dev = cli->dev, .coldplug = true,
					 .udev_run = cli->udev_run };
	for (unsigned int i = 0; i < cli->nrules_dirs && i < ENGINE_RULES_DIRS_MAX; i++)
		d->cfg.rules_dirs[d->cfg.nrules_dirs++] = cli->rules_dirs[i];
	cmdline_init(&d->cmdline);
}

void daemon_print_not_found(const struct daemon *d)
{
	if (d->timeout_sec == 0)
		fprintf(stderr, "initdev: %s is not there; block devices seen:\n", d->wait_spec);
	else
		fprintf(stderr, "initdev: %s did not appear within %d s; block devices seen:\n",
			d->wait_spec, d->timeout_sec);
}

/* ---- start and stop ---- */

static void apply_cmdline(struct daemon *d)
{
	int r = cmdline_load(&d->cmdline, d->cli->cmdline, &d->cli->log);

	if (r < 0)
		log_msg(&d->cli->log, LOG_WARNING, "%s: %s; using defaults", d->cli->cmdline,
			errno_text(r));
	if (d->cmdline.debug && d->cli->log_level < 0)
		d->cli->log.max_level = LOG_DEBUG;
	if (d->timeout_sec < 0)
		d->timeout_sec = d->cmdline.timeout_sec >= 0 ? d->cmdline.timeout_sec :
				 d->until_settled ? DEFAULT_COLDPLUG_TIMEOUT : -1;
}

static int setup(struct daemon *d)
{
	int r;

	d->sig_fd = sigfd_open(true);
	d->listen_fd = control_listen(d->cli->run);
	if (d->listen_fd < 0)
		return log_errno(&d->cli->log, LOG_ERR, d->listen_fd,
				 "%s: cannot create the control socket", d->cli->run);
	r = write_pid_file(d->cli->run);
	if (r < 0)
		log_errno(&d->cli->log, LOG_WARNING, r, "%s/pid", d->cli->run);
	/*
	 * A daemon is udev to the tools from now on: libdevmapper then waits
	 * for the rules (udev-control.h). Before anything can run them: the
	 * caller returns only once this is done (signal_ready). PID 1's
	 * control socket (LISTEN_FDS) is that path already.
	 */
	if (!d->until_settled && d->pid1_control_fd < 0)
		(void)udev_presence_start(&d->udev, d->cli->udev_run, &d->cli->log);
	r = engine_start(&d->engine);
	if (r < 0)
		return r;
	if (d->timeout_sec >= 0)
		d->deadline = now_monotonic_usec() + (uint64_t)d->timeout_sec * 1000000u;
	return 0;
}

static void teardown(struct daemon *d)
{
	/* events in hand are done: no cookie is left for initdev to release */
	udev_presence_stop(&d->udev);
	udev_queue_update(d, true);
	server_close(d);
	if (d->listen_fd >= 0) {
		close(d->listen_fd);
		remove_state(d->cli->run);
	}
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	if (d->pid1_control_fd >= 0)
		close(d->pid1_control_fd);
	d->pid1_control_fd = d->udev_conn_fd = -1;
	engine_close(&d->engine);
	cmdline_free(&d->cmdline);
	notify_close(&d->notify);
}

/*
 * Workers still run, and exec would wait for them (a module load can take
 * as long as the kernel's asynchronous probing): the holder is exec'd in a
 * child instead, while the initramfs is still there, and this process ends
 * at once, its workers with it. 0 once the holder runs (this process then
 * exits), or -errno: the caller goes the slow way.
 */
static int spawn_holder(struct daemon *d, const struct handoff_holder_args *a)
{
	int p[2], err = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		/* only exec, write and _exit here: another thread may hold any lock */
		err = handoff_exec_holder(d->self_fd, a, &d->cli->log);
		(void)!write(p[1], &err, sizeof(err));
		_exit(EXIT_FAIL);
	}
	err = pid < 0 ? -errno : 0;
	close(p[1]);
	/* end of file: the exec happened (the pipe is CLOEXEC) */
	if (pid > 0 && read(p[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
		err = 0;
	close(p[0]);
	if (err < 0) {
		log_msg(&d->cli->log, LOG_WARNING, "handoff: cannot start the holder beside the "
			"running workers: %s; waiting for them", errno_text(err));
		return err;
	}
	log_msg(&d->cli->log, LOG_NOTICE, "handoff: holder started as pid %d; this process "
		"ends with %llu events still running", (int)pid,
		(unsigned long long)d->engine.abandoned);
	udev_presence_stop(&d->udev); /* the real root's udevd binds that path */
	udev_queue_update(d, true);
	(void)control_send(d->handoff_fd, "OK handing off");
	remove_state(d->cli->run);
	_exit(EXIT_OK); /* kills the workers; none returns to touch /dev */
}

/*
 * The events in hand are done (or the grace ran out: spawn_holder): state
 * to RUN, answer, exec the holder. If that fails nothing of initdev stays
 * behind: this process exits.
 */
static int become_holder(struct daemon *d)
{
	struct cli *cli = d->cli;
	int client = d->handoff_fd, r;
	struct handoff_holder_args a = {
		.run_dir = cli->run,
		.timeout_sec = d->cmdline.handoff_timeout_sec, /* -1: the holder's default */
		.untriggered = engine_stop_reading(&d->engine),
	};

	if (engine_done_fd(&d->engine) >= 0)
		engine_on_done(&d->engine); /* what the workers finished meanwhile */
	if (engine_in_hand(&d->engine) > 0)
		engine_give_back(&d->engine);
	a.given_back = d->engine.given_back;
	a.abandoned = d->engine.abandoned;
	a.uevent_fd = engine_take_socket(&d->engine);
	write_state(d);
	(void)write_trace(d);
	if (engine_in_hand(&d->engine) > 0)
		(void)spawn_holder(d, &a); /* returns only if it failed */
	teardown(d);
	(void)control_send(client, "OK handing off");
	close(client);
	r = handoff_exec_holder(d->self_fd, &a, &cli->log);
	log_msg(&cli->log, LOG_ERR, "handoff: cannot start the holder: %s; the events "
		"queued in the uevent socket are lost; initdev exits", errno_text(r));
	close(a.uevent_fd);
	return EXIT_FAIL;
}

/*
 * A full coldplug beside a running udevd re-triggers every device of a
 * live system (network interfaces included) and races udevd for /dev:
 * that is a mistake, not a use. --subtree, --no-coldplug or --force.
 */
static bool coldplug_refused(struct daemon *d)
{
	/* a control socket from PID 1 is ours: its answer is no other udevd */
	if (!d->cfg.coldplug || d->cfg.nsubtrees > 0 || d->force || d->pid1_control_fd >= 0 ||
	    !udev_control_answers(d->cli->udev_run))
		return false;
	log_msg(&d->cli->log, LOG_ERR, "another device manager serves %s/control "
		"(systemd-udevd?): a full coldplug would re-trigger every device of this "
		"running system; initdev belongs in the initramfs. Limit it with --subtree, or "
		"use --no-coldplug or --force", d->cli->udev_run);
	return true;
}

/* Refusals before anything is bound. EXIT_OK to go on. */
static int preflight(struct daemon *d)
{
	if (coldplug_refused(d))
		return EXIT_FAIL;
	if (already_running(d->cli->run)) {
		log_msg(&d->cli->log, LOG_ERR, "a daemon already serves %s/control", d->cli->run);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int daemon_run(struct daemon *d)
{
	struct cli *cli = d->cli;
	int r;

	/* until start-up is over, errors also reach the command that started us */
	cli->log.echo_fd = STDERR_FILENO;
	daemon_notify_init(d);
	if (daemon_take_listen_fds(d) != EXIT_OK || preflight(d) != EXIT_OK) {
		if (d->pid1_control_fd >= 0)
			close(d->pid1_control_fd);
		if (d->cfg.uevent_fd > 0)
			close(d->cfg.uevent_fd);
		cmdline_free(&d->cmdline);
		notify_close(&d->notify);
		return EXIT_FAIL;
	}
	/* the socket first: from here on no kernel event is missed */
	r = engine_open(&d->engine, &d->cfg, &d->cmdline, &cli->log);
	/* the holder's program, while the initramfs is still there to open */
	d->self_fd = handoff_open_self();
	if (r == 0) {
		apply_cmdline(d);
		if (!d->foreground && !d->until_settled)
			r = daemonize(d);
	}
	if (r == 0)
		r = setup(d);
	if (r == 0) {
		signal_ready(d);
		daemon_notify_ready(d);
		daemon_loop(d);
	}
	if (r == 0 && d->stopping && !d->handoff)
		daemon_finish_stop(d);
	if (r == 0 && d->handoff) {
		r = become_holder(d);
	} else {
		/* initdev wait without a daemon only looked: its trace would
		 * replace the one of the run that did the work */
		if (r == 0 && !d->until_found)
			(void)write_trace(d);
		teardown(d);
	}
	if (d->self_fd >= 0)
		close(d->self_fd);
	return r < 0 ? EXIT_FAIL : r > 0 ? r : d->exit_code;
}

static int run(struct cli *cli, int argc, char **argv, bool until_settled)
{
	struct daemon *d = malloc(sizeof(*d));
	int r;

	if (!d)
		return EXIT_FAIL;
	daemon_init(d, cli, until_settled);
	r = daemon_parse_args(d, argc, argv);
	if (r <= 0) {
		cmdline_free(&d->cmdline);
		free(d);
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	}
	r = daemon_run(d);
	free(d);
	return r;
}

int cmd_daemon(struct cli *cli, int argc, char **argv)
{
	return run(cli, argc, argv, false);
}

int cmd_coldplug(struct cli *cli, int argc, char **argv)
{
	return run(cli, argc, argv, true);
}
