/* SPDX-License-Identifier: MIT */
/*
 * udev's broadcast of a handled event: what systemd-udevd 252 sends on
 * NETLINK_KOBJECT_UEVENT multicast group 2 ("udev") after each event, its
 * rules and RUN programs done, so that PID 1's device units, libudev and
 * sd-device monitors (systemd-cryptsetup's waits, plymouth, lvm) learn a
 * device is ready. The frame is libudev's monitor_netlink_header (systemd
 * src/libsystemd/sd-device/device-monitor.c):
 *     "libudev\0", magic 0xfeedcafe (network order), header_size,
 *     properties_off, properties_len (host order), MurmurHash2 (seed 0)
 *     of the subsystem and of the devtype, the tags' 64-bit bloom filter
 *     hi/lo (network order); then the properties, NUL-separated KEY=VALUE,
 *     in udevd's order: UDEV_DATABASE_VERSION=1, the event's, MAJOR and
 *     MINOR, the rules', USEC_INITIALIZED, DEVLINKS, TAGS, CURRENT_TAGS.
 *
 * The socket sends only: it is bound to no group (the kernel gives it a
 * port of its own), so nothing sent to group 2, by initdev or anyone, is
 * ever read by initdev; the gate's socket is bound to group 1 alone.
 * Receivers trust a group-2 message by its sender's credentials (uid 0),
 * so only a root daemon's broadcast is heard. Values come from rules and
 * devices (hostile): one holding a line end is left out (util/oneline.h),
 * as in the database; the frame is bounded (UDEV_BROADCAST_MAX).
 * Thread-safe: each send is one datagram.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules/props.h"

#define UDEV_BROADCAST_GROUP 2u
#define UDEV_BROADCAST_MAGIC 0xfeedcafeu
#define UDEV_BROADCAST_HEADER 40u /* sizeof libudev's monitor_netlink_header */
#define UDEV_BROADCAST_MAX (128u * 1024u) /* a frame; udevd has no bound, the socket has */

/* The device as udevd has it after the event. */
struct udev_broadcast_device {
	const char *subsystem;
	const char *devtype;             /* NULL: none */
	const struct props *props;       /* the event's, then the rules' (db-marked) */
	const struct strv *links;        /* DEVLINKS, "/dev/..." (NULL: none) */
	const struct strv *tags;         /* TAGS (NULL: none) */
	const struct strv *current_tags; /* CURRENT_TAGS (NULL: none) */
	uint64_t usec_initialized;       /* USEC_INITIALIZED; 0: none */
};

/* MurmurHash2 as libudev's filters compute it (host byte order reads). */
uint32_t udev_murmur2(const void *key, size_t len, uint32_t seed);

/* The bits one tag sets in the bloom filter. */
uint64_t udev_tag_bloom(const char *tag);

/*
 * d's frame into buf (size bytes). Its length, or -EINVAL (no subsystem),
 * -EMSGSIZE (it does not fit).
 */
ssize_t udev_broadcast_frame(const struct udev_broadcast_device *d, char *buf, size_t size);

struct udev_broadcast {
	int fd; /* -1: closed */
};

/* A send-only NETLINK_KOBJECT_UEVENT socket. 0 or -errno. */
int udev_broadcast_open(struct udev_broadcast *b);
void udev_broadcast_close(struct udev_broadcast *b);

/*
 * Send d to group 2. 0 (also when nobody listens), or -errno: -EMSGSIZE
 * past UDEV_BROADCAST_MAX, -ENOMEM, what sendto says.
 */
int udev_broadcast_send(struct udev_broadcast *b, const struct udev_broadcast_device *d);
