/* SPDX-License-Identifier: MIT */
/*
 * The kernel uevent socket: open it, and receive datagrams in batches with
 * everything the gate needs to judge where they came from.
 */
#pragma once

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "gate/uevent.h"

/* udevd's choice: enough for a coldplug burst of many thousands of events. */
#define UEVENT_RCVBUF_DEFAULT (128 * 1024 * 1024)
#define UEVENT_BATCH_MAX 16

/* One received datagram and its metadata, exactly as the kernel gave them. */
struct uevent_raw {
	unsigned char data[UEVENT_MSG_MAX];
	size_t len;               /* bytes stored in data */
	int flags;                /* msg_flags: MSG_TRUNC, MSG_CTRUNC */
	bool has_sender;          /* msg_name filled with a sockaddr_nl */
	struct sockaddr_nl sender;
	bool has_creds;           /* SCM_CREDENTIALS at SOL_SOCKET present */
	struct ucred creds;
};

struct uevent_socket_options {
	int rcvbuf;    /* bytes wanted; 0 means UEVENT_RCVBUF_DEFAULT */
	bool no_passcred; /* test seam only: leave SO_PASSCRED off */
};

struct uevent_socket_info {
	int rcvbuf;       /* what the kernel reports after setting (doubled) */
	bool forced;      /* SO_RCVBUFFORCE worked */
	unsigned int port; /* our port id */
};

/* Open, configure and bind. Returns the fd or -errno. */
int uevent_socket_open(const struct uevent_socket_options *opts,
		       struct uevent_socket_info *info);

/*
 * A socket someone else opened and bound (PID 1's systemd-udevd-kernel.socket),
 * which the caller checked is NETLINK_KOBJECT_UEVENT on group 1 alone: made
 * fit for the gate (uevent_socket_configure) and its port read. Its file
 * status flags are shared with the opener's copy, so they stay as they are
 * (uevent_socket_recv never blocks anyway). 0 or -errno; fd stays the caller's.
 */
int uevent_socket_adopt(int fd, const struct uevent_socket_options *opts,
			struct uevent_socket_info *info);

/*
 * Make an existing socket fit for the gate (SO_PASSCRED, buffer size).
 * Used for adopted sockets as well as by uevent_socket_open.
 */
int uevent_socket_configure(int fd, int rcvbuf, bool passcred,
			    struct uevent_socket_info *info);

/*
 * Receive up to n datagrams without blocking. Returns how many were stored,
 * 0 if none was pending, -ENOBUFS if the kernel dropped events since the last
 * call (the caller must rescan), or another -errno.
 */
int uevent_socket_recv(int fd, struct uevent_raw *raw, size_t n);
