/* SPDX-License-Identifier: MIT */
/*
 * The daemon process behind `initdev daemon`, `initdev coldplug` and
 * `initdev wait` without a daemon: one engine, the control socket and its
 * clients, a poll loop. Internal to src/cli:
 *   daemon.c          options, start-up order, stop, handoff
 *   daemon-loop.c     the poll loop and the deadline
 *   control-server.c  clients of the control socket: requests and replies
 *   daemonize.c       fork, the ready pipe, run-dir state files
 *   daemon-notify.c   the service manager: READY=1, STATUS=, WATCHDOG=1, STOPPING=1
 *   daemon-listen.c   the sockets PID 1 passed (LISTEN_FDS)
 *   daemon-udev-ctrl.c udev's control protocol on PID 1's control socket
 *   wait.c            initdev wait
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli/cli.h"
#include "cli/udev-control.h"
#include "engine/cmdline.h"
#include "engine/engine.h"
#include "names/wait-spec.h"
#include "util/control.h"
#include "util/notify.h"

#define MAX_CLIENTS 16
#define DEFAULT_COLDPLUG_TIMEOUT 180
/*
 * How long a handoff waits for the events in hand. Past it, what no worker
 * has started goes back to the kernel and the holder starts beside the
 * workers still running (engine_give_back, docs/handoff.md): a worker can
 * be held in a module load for as long as the kernel probes asynchronously.
 */
#define HANDOFF_GRACE_MS 250

struct client {
	int fd;
	bool awaits_settle;
	bool awaits_root;     /* "settle root": the root path is enough */
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
	int pid1_control_fd;  /* systemd-udevd-control.socket from PID 1; -1 */
	int udev_conn_fd;     /* its one connected peer (udev's protocol); -1 */
	bool udev_queue_made; /* UDEV_RUN/queue made (not settled) */
	int self_fd;          /* our program, for the holder's exec (handoff_open_self) */
	struct udev_presence udev; /* /run/udev/control while the daemon runs */
	int caller_fd;        /* the starting command's stderr, until ready; -1 */
	struct client clients[MAX_CLIENTS];
	bool stop;
	bool handoff;         /* stop reading; once idle, become the holder */
	int handoff_fd;       /* the client answered just before that */
	uint64_t handoff_deadline; /* monotonic usec: stop waiting for the events in hand */
	bool stopping;        /* SIGTERM: reading nothing more, finishing what is in hand */
	uint64_t stop_deadline; /* monotonic usec: then the rest goes back to the kernel */
	int exit_code;
	struct notifier notify;  /* NOTIFY_SOCKET: fd -1 if none */
	int notify_settled;      /* the settled state last told (-1: none yet) */
	uint64_t status_at;      /* monotonic usec of the last STATUS= change */
	bool notify_failed;      /* a send failed (logged once) */
	uint64_t watchdog_due;   /* monotonic usec of the next WATCHDOG=1; 0 none */
	char reply[CONTROL_MSG_MAX];
};

/* daemon.c */
void daemon_init(struct daemon *d, struct cli *cli, bool until_settled);
/* 1 to go on, 0 after --help, -1 on a usage error (printed). */
int daemon_parse_args(struct daemon *d, int argc, char **argv);
/* Bind, set up, loop, tear down. The exit code; frees nothing of d itself. */
int daemon_run(struct daemon *d);
/* initdev wait gave up: the line before the list of block devices seen */
void daemon_print_not_found(const struct daemon *d);

/* daemon-loop.c */
void daemon_loop(struct daemon *d);
/*
 * SIGTERM or udev's EXIT: STOPPING=1, read nothing more from the socket,
 * write no more triggers, let the loop finish the events in hand (a second
 * call stops at once, as before). daemon_finish_stop once the loop ended.
 */
void daemon_begin_stop(struct daemon *d, const char *why);
/* After the loop of a stop: what is in hand and not started goes back. */
void daemon_finish_stop(struct daemon *d);

/* control-server.c */
void server_accept(struct daemon *d);
void server_serve(struct daemon *d, struct client *c);
/* Answer the clients waiting for settle or for a device that is now there. */
void server_notify(struct daemon *d);
void server_close(struct daemon *d);

/* daemon-notify.c */
/* Read NOTIFY_SOCKET and WATCHDOG_* (then removed from the environment). */
void daemon_notify_init(struct daemon *d);
void daemon_notify_ready(struct daemon *d);
/* STOPPING=1 with a status saying what happens now. */
void daemon_notify_stopping(struct daemon *d, const char *what);
/*
 * SIGHUP: parse the udev rules again, as `udevadm control --reload` does,
 * told to the service manager as Type=notify-reload wants it (systemd
 * 257's systemd-udevd.service): RELOADING=1 with MONOTONIC_USEC first,
 * READY=1 once done.
 */
void daemon_reload(struct daemon *d);
/* Each turn of the loop: WATCHDOG=1 when due, STATUS= when settled changed. */
void daemon_notify_tick(struct daemon *d);
/* Milliseconds until the next WATCHDOG=1 is due, -1 if none. */
int daemon_notify_timeout(const struct daemon *d);

/* daemon-listen.c */
/*
 * Take the sockets PID 1 passed (LISTEN_FDS for this pid; the variables are
 * then unset): the kernel socket into cfg.uevent_fd, the control socket into
 * pid1_control_fd. EXIT_OK, or EXIT_FAIL (logged) for a socket refused.
 */
int daemon_take_listen_fds(struct daemon *d);

/* daemon-udev-ctrl.c */
/* pid1_control_fd is readable: take the peer (root only). */
void udev_ctrl_accept(struct daemon *d);
/* udev_conn_fd is readable: one message, carried out, or a hang-up. */
void udev_ctrl_serve(struct daemon *d);
/* UDEV_RUN/queue while not settled, as udevd's; stopping: removed. */
void udev_queue_update(struct daemon *d, bool stopping);

/* daemonize.c */
/* Fork; the parent returns (exits) once the child says it is ready, or
 * with the child's failure, whose reason went to the caller's stderr. */
int daemonize(struct daemon *d);
/* Start-up is over: the caller returns, errors go only to the log. */
void signal_ready(struct daemon *d);
int write_pid_file(const char *run_dir);
void remove_state(const char *run_dir);
/* RUN/status.json: what the initramfs did, for whoever looks after switch_root. */
void write_state(struct daemon *d);
/* RUN/trace: where the time went, for initdev report. 0 or -errno (logged). */
int write_trace(struct daemon *d);
bool already_running(const char *run_dir);
