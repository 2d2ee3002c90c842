/* SPDX-License-Identifier: MIT */
/*
 * The socket handoff at switch_root: the kernel uevent socket, with the events
 * still queued in it, goes from initdev in the initramfs to the real root's
 * device daemon (systemd-udevd), so no event is lost in between.
 *
 *   daemon --exec--> @initdev-holder --SCM_RIGHTS--> initdev adopt --exec--> PROG
 *
 * The holder keeps the socket across switch_root (systemd spares processes
 * whose argv[0] starts with '@') and serves RUN/handoff, an AF_UNIX
 * SOCK_SEQPACKET socket, to root peers only. Protocol, one message each:
 *   peer "fetch"  -> holder "OK <what is queued>" + the socket (SCM_RIGHTS)
 *   peer "ack"    -> holder logs what it handed over and exits 0
 *   (peer closes without "ack": the holder keeps the socket and goes on)
 *   peer "status" -> holder "OK holding <what is queued>"
 *   non-root peer -> "ERR permission denied: uid N is not root"
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/log.h"

#define HANDOFF_HOLDER_ARGV0 "@initdev-holder" /* main: argv[0] equal -> cmd_holder */
#define HANDOFF_SOCKET_NAME "handoff"          /* under the run dir */
#define HANDOFF_KERNEL_FDNAME "systemd-udevd-kernel.socket"
#define HANDOFF_HOLD_DEFAULT_SEC 120
#define HANDOFF_ADOPT_DEFAULT_SEC 5
/* cmd_adopt when PROG cannot be executed (as env(1) and the shells do) */
#define HANDOFF_EXIT_NOEXEC 126
#define HANDOFF_EXIT_NOTFOUND 127
#define HANDOFF_MSG_MAX 512

/* RUN/handoff into buf. 0 or -ENAMETOOLONG (also if too long for sun_path). */
int handoff_path(const char *run_dir, char *buf, size_t size);

/*
 * Our own program, opened now as an O_PATH fd (CLOEXEC): after switch_root
 * the initramfs is deleted and /proc is moved into the new root, so neither
 * its path nor /proc/self/exe leads to it then, but this fd still does.
 * The fd, or -errno.
 */
int handoff_open_self(void);

struct handoff_holder_args {
	int uevent_fd;
	const char *run_dir;
	int timeout_sec;     /* 0 holds until fetched; < 0: HANDOFF_HOLD_DEFAULT_SEC */
	size_t untriggered;  /* devices never triggered (said in the holder's log) */
	size_t given_back;   /* events in hand sent again by the kernel (engine_give_back) */
	size_t abandoned;    /* events in hand left to running workers (said too) */
};

/*
 * Become the holder: clear FD_CLOEXEC on the uevent socket (every other fd
 * should be CLOEXEC already) and exec our program (self_fd from
 * handoff_open_self, with execveat; if -1, /proc/self/exe) as
 *   @initdev-holder --fd N --run DIR --timeout S --untriggered N
 *                   --given-back N --abandoned N
 *                   --log-target kmsg|stderr --log-level L
 * taking the log target and level from log. Returns only on failure:
 * -errno (FD_CLOEXEC is then restored).
 */
int handoff_exec_holder(int self_fd, const struct handoff_holder_args *a,
			const struct logger *log);

/*
 * The holder process (argv[0] == HANDOFF_HOLDER_ARGV0; argv as above; global
 * options are not parsed by main). Exit codes: 0 handed over, 1 timed out,
 * signalled or failed (the held events are dropped and logged), 2 usage.
 */
int cmd_holder(int argc, char **argv);

/*
 * For `initdev handoff`: wait until a holder answers on RUN/handoff.
 * 0, -ETIMEDOUT, or -errno of the last attempt.
 */
int handoff_wait_holder(const char *run_dir, int timeout_ms);

/*
 * initdev adopt [--timeout S] [--] PROG [ARGS...] (argv[0] is "adopt"):
 * fetch the socket from the holder, make it fit for udevd (SO_PASSCRED,
 * 128 MiB buffer), place it for sd_listen_fds() and exec PROG. Any failure
 * is logged and PROG is executed unchanged. Returns only if PROG could not
 * be executed (HANDOFF_EXIT_*) or on a usage error (2).
 */
int cmd_adopt(int argc, char **argv, const char *run_dir, const struct logger *log);

/* ---- shared by the holder, adopt and `initdev handoff` (src/handoff only) ---- */

/* AF_NETLINK, SOCK_RAW, NETLINK_KOBJECT_UEVENT? 0, or why not (-errno). */
int handoff_check_uevent_socket(int fd);
/* ... and bound to the kernel's group 1 and no other: -EADDRNOTAVAIL if not.
 * Only such a socket carries nothing but the kernel's own events. */
int handoff_check_bound_socket(int fd);
/* Why a socket failed those checks, for messages. */
const char *handoff_socket_why(int r);
/* Close every fd from first up (flags: CLOSE_RANGE_CLOEXEC to mark instead). */
void handoff_close_from(unsigned int first, unsigned int flags);
int handoff_set_cloexec(int fd, bool on);
/* Connect to RUN/handoff, every wait bounded by timeout_ms; the holder must
 * be root's. The fd, or -errno (-ETIMEDOUT). */
int handoff_connect_holder(const char *run_dir, int timeout_ms);
