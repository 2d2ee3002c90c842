/* SPDX-License-Identifier: MIT */
/*
 * The service manager's notification protocol (sd_notify(3)), without
 * libsystemd: under systemd (Type=notify) PID 1 gives the daemon
 * NOTIFY_SOCKET, an AF_UNIX datagram socket, by path ("/run/...") or in
 * the abstract namespace ("@name"), and reads newline-separated
 * KEY=VALUE datagrams from it: READY=1, STATUS=..., WATCHDOG=1,
 * STOPPING=1. PID 1 learns who sent a datagram from the credentials the
 * kernel attaches (it sets SO_PASSCRED): nothing is added here, as
 * sd_notify adds nothing for its own pid.
 *
 * WATCHDOG_USEC (and WATCHDOG_PID, which must be ours when set) ask for
 * WATCHDOG=1 at least that often; they come from PID 1 but are parsed
 * strictly all the same (util/number.h). Without NOTIFY_SOCKET every call
 * is a no-op, so callers need not ask.
 *
 * Not thread-safe: the daemon's main thread alone notifies.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#define NOTIFY_MSG_MAX 1024 /* our longest datagram; STATUS= is cut to fit */

struct notifier {
	int fd;                  /* -1: not under a service manager */
	struct sockaddr_un addr;
	socklen_t addr_len;
	uint64_t watchdog_usec;  /* 0: no watchdog asked for */
};

/*
 * From the values of NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID (any may
 * be NULL), for process self. 0 (n->fd is -1 without a socket), or
 * -EINVAL with *why set when a value is malformed (nothing is sent then:
 * the caller says so and goes on, or stops).
 */
int notify_init(struct notifier *n, const char *socket, const char *wd_usec, const char *wd_pid,
		pid_t self, const char **why);
/*
 * The same from the environment; the variables are then removed, so that
 * programs the daemon runs (rules' RUN, the holder) never notify as it.
 */
int notify_init_env(struct notifier *n, const char **why);

/* Send one datagram ("READY=1\nSTATUS=..."). 0, or -errno; 0 with no socket. */
int notify_send(const struct notifier *n, const char *msg);

/* STATUS=<printf> (with extra lines, e.g. "READY=1", before it if pre is not NULL). */
int notify_status(const struct notifier *n, const char *pre, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Where the next WATCHDOG=1 is due after now (monotonic usec): half the interval. */
uint64_t notify_watchdog_next(const struct notifier *n, uint64_t now);

void notify_close(struct notifier *n);
