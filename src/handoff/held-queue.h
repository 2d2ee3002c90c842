/* SPDX-License-Identifier: MIT */
/*
 * What is queued in a held uevent socket, measured without reading it: for
 * the holder's log lines and for adopt's, so the handoff says what it passed.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct held_queue {
	unsigned int rmem;  /* receive memory in use: skb truesize, not payload */
	unsigned int drops; /* datagrams the kernel could not queue, ever */
	bool overflow;      /* ENOBUFS pending: the next reader must rescan */
	unsigned long long first; /* SEQNUM of the oldest queued event; 0 unknown */
	unsigned long long last;  /* last SEQNUM the kernel issued; 0 unknown */
};

/* Measure nl_fd; seqnum_fd is /sys/kernel/uevent_seqnum open (or -1). */
void held_queue_measure(int nl_fd, int seqnum_fd, struct held_queue *q);

/*
 * "about N events (SEQNUM a..b), B bytes": the count assumes every uevent
 * since a reached this socket, so it is an upper bound.
 */
void held_queue_format(const struct held_queue *q, char *buf, size_t size);
