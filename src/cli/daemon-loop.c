/* SPDX-License-Identifier: MIT */
/* The daemon's poll loop: the engine's fds, the control socket, signals, a deadline. */
#include "cli/daemon.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "engine/lookup.h"

#define FIXED_FDS 6 /* socket, done, control, signals, udev control, its peer */

static void print_pending_line(void *u, const char *line)
{
	const struct logger *log = u;

	log_msg(log, LOG_WARNING, "pending: %s", line);
}

static void print_device_line(void *u, const char *line)
{
	fprintf(stderr, "  %s\n", line);
}

static void deadline_passed(struct daemon *d)
{
	if (d->deadline_reported)
		return;
	d->deadline_reported = true;
	if (d->until_found) {
		daemon_print_not_found(d);
		engine_describe_devices(&d->engine, print_device_line, NULL);
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

/* Milliseconds until the monotonic usec deadline (0: past). */
static int ms_until(uint64_t deadline)
{
	uint64_t now = now_monotonic_usec();

	return now >= deadline ? 0 : (int)((deadline - now) / 1000 + 1);
}

static int poll_timeout(struct daemon *d)
{
	int ms = daemon_notify_timeout(d); /* the watchdog: -1 if none */

	if (engine_has_work(&d->engine))
		return 0;
	if (d->deadline && !d->deadline_reported && (ms < 0 || ms_until(d->deadline) < ms))
		ms = ms_until(d->deadline);
	if (d->handoff && (ms < 0 || ms_until(d->handoff_deadline) < ms))
		ms = ms_until(d->handoff_deadline);
	if (d->stopping && (ms < 0 || ms_until(d->stop_deadline) < ms))
		ms = ms_until(d->stop_deadline);
	return ms;
}

static size_t build_pollset(struct daemon *d, struct pollfd *p, struct client **owner)
{
	size_t n = 0;
	/* handing off: the socket is left to the holder, unread */
	int fixed[FIXED_FDS] = { d->handoff ? -1 : engine_socket_fd(&d->engine),
				 engine_done_fd(&d->engine), d->listen_fd, d->sig_fd,
				 /* udevd takes one udev control peer at a time */
				 d->udev_conn_fd >= 0 ? -1 : d->pid1_control_fd, d->udev_conn_fd };

	for (size_t i = 0; i < FIXED_FDS; i++) {
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
		server_accept(d);
	if (p[3].revents) {
		struct signalfd_siginfo si;

		if (read(d->sig_fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			si.ssi_signo = 0; /* another reader took it: nothing to do */
		if (si.ssi_signo == SIGHUP) {
			daemon_reload(d);
		} else if (si.ssi_signo) {
			log_msg(&d->cli->log, LOG_INFO, "signal %u: exiting", si.ssi_signo);
			daemon_begin_stop(d, "Stopping");
		}
	}
	if (p[5].revents && d->udev_conn_fd >= 0)
		udev_ctrl_serve(d);
	else if (p[4].revents)
		udev_ctrl_accept(d);
	for (size_t i = FIXED_FDS; i < n; i++)
		if (p[i].revents && owner[i]->fd >= 0)
			server_serve(d, owner[i]);
}

/* The loop's own reasons to end: stopped, found, settled, handed off. */
static bool done(struct daemon *d)
{
	if (d->stopping)
		return engine_in_hand(&d->engine) == 0 || now_monotonic_usec() >= d->stop_deadline;
	if (d->until_found)
		return engine_found(&d->engine, d->until_found, d->found, sizeof(d->found));
	if (d->until_settled)
		return engine_settled(&d->engine);
	return d->handoff && (engine_in_hand(&d->engine) == 0 ||
			      now_monotonic_usec() >= d->handoff_deadline);
}

void daemon_loop(struct daemon *d)
{
	struct pollfd p[FIXED_FDS + MAX_CLIENTS];
	struct client *owner[FIXED_FDS + MAX_CLIENTS];

	while (!d->stop) {
		engine_step(&d->engine);
		server_notify(d);
		daemon_notify_tick(d);
		udev_queue_update(d, false);
		if (done(d))
			break;
		size_t n = build_pollset(d, p, owner);
		int r = poll(p, n, poll_timeout(d));

		if (r < 0 && errno != EINTR) {
			log_errno(&d->cli->log, LOG_ERR, errno, "poll");
			d->exit_code = EXIT_FAIL;
			break;
		}
		if (r > 0)
			dispatch(d, p, owner, n);
		if (d->deadline && now_monotonic_usec() >= d->deadline)
			deadline_passed(d);
	}
}

/*
 * Nothing read is dropped: the events in hand get the handoff's grace to
 * finish; what the kernel sent since stays in the socket (under systemd,
 * PID 1's copy keeps it for the next udevd).
 */
void daemon_begin_stop(struct daemon *d, const char *why)
{
	if (d->stopping || d->handoff) { /* asked twice, or a handoff ends it anyway */
		d->stop = true;
		return;
	}
	daemon_notify_stopping(d, why);
	d->stopping = true;
	d->stop_deadline = now_monotonic_usec() + HANDOFF_GRACE_MS * 1000ull;
	(void)engine_stop_reading(&d->engine);
}

/*
 * Past the grace, each event no worker started goes back to the kernel
 * (engine_give_back, as at a handoff); the running ones finish in
 * teardown, which waits for the workers.
 */
void daemon_finish_stop(struct daemon *d)
{
	if (engine_done_fd(&d->engine) >= 0)
		engine_on_done(&d->engine);
	if (engine_in_hand(&d->engine) > 0)
		engine_give_back(&d->engine);
}
