/* SPDX-License-Identifier: MIT */
/*
 * The control socket: AF_UNIX SOCK_SEQPACKET at RUN/control, in a 0700
 * directory, serving only uid 0 peers (SO_PEERCRED). One request per
 * message ("ping", "status", "status json", "settle", "pending", "exit",
 * "trace": write RUN/trace now),
 * one reply per message, starting "OK" or "ERR".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CONTROL_MSG_MAX 65536

/* Create run_dir (0700) and listen. Returns the fd or -errno. */
int control_listen(const char *run_dir);

/*
 * Accept one client; *peer_uid says who it is (SO_PEERCRED). Returns its fd
 * or -errno. Serve it only if the uid is 0; else control_refuse() it.
 */
int control_accept(int listen_fd, uid_t *peer_uid);

/* Read the peer's request, answer "ERR permission denied ...", close. */
void control_refuse(int fd, uid_t uid);

/* Connect to a running daemon. -ENOENT/-ECONNREFUSED if none. */
int control_connect(const char *run_dir);

int control_send(int fd, const char *msg);

/* Receive one message (NUL-terminated). timeout_ms < 0 waits forever.
 * Returns its length, -ETIMEDOUT, -ECONNRESET on EOF, or -errno. */
int control_recv(int fd, char *buf, size_t size, int timeout_ms);

/*
 * The one client round trip: connect to the daemon at run_dir, send req,
 * receive one reply into reply (NUL-terminated). Returns the reply's length
 * or -errno (-ETIMEDOUT after timeout_ms). *connected (may be NULL) tells
 * whether a daemon took the connection, so callers can say "no daemon".
 * A daemon that refuses the peer answers and hangs up at once: its reply is
 * read even when sending the request failed.
 */
int control_request(const char *run_dir, const char *req, char *reply, size_t size,
		    int timeout_ms, bool *connected);

/* Path of the control socket under run_dir into buf. 0 or -ENAMETOOLONG. */
int control_path(const char *run_dir, char *buf, size_t size);
