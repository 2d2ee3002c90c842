/* SPDX-License-Identifier: MIT */
/*
 * The gate: the one way uevents enter initdev. It owns the kernel socket,
 * verifies every datagram, counts and logs rejections (rate limited), and
 * hands only kernel-originated, well-formed events to its caller.
 */
#pragma once

#include <stdint.h>

#include "util/log.h"
#include "gate/uevent-socket.h"
#include "gate/uevent-verify.h"

struct gate_stats {
	uint64_t accepted;
	uint64_t rejected[GATE_VERDICT_COUNT]; /* [GATE_ACCEPT] unused */
	uint64_t overflows;                    /* ENOBUFS: events were lost */
	uint64_t discarded;                    /* drained after a loss, not passed on */
};

struct gate;

/* Called for each accepted event; ev is valid only during the call. */
typedef void (*gate_event_fn)(void *userdata, const struct uevent *ev);
/* Called for each rejected datagram (after counting and logging). */
typedef void (*gate_reject_fn)(void *userdata, const struct uevent_raw *raw,
			       enum gate_verdict v, const char *why);

struct gate {
	int fd;
	struct uevent_socket_info info;
	struct gate_stats stats;
	const struct logger *log;
	struct ratelimit reject_rl;
	gate_reject_fn on_reject; /* optional */
	bool discard_after_loss;  /* see gate_read */
	void *userdata;
	struct uevent_raw *batch; /* UEVENT_BATCH_MAX slots, allocated once */
	struct uevent *ev;        /* parse target, allocated once */
};

/* Open the socket and buffers. Logs what it obtained. Returns 0 or -errno. */
int gate_open(struct gate *g, const struct logger *log,
	      const struct uevent_socket_options *opts);

/*
 * The same with a socket opened by someone else (uevent_socket_adopt: the
 * caller checked what it is). The gate owns fd from now on, also on failure.
 */
int gate_adopt(struct gate *g, const struct logger *log, int fd,
	       const struct uevent_socket_options *opts);

void gate_close(struct gate *g);

/*
 * Take in what is pending, at most max_events datagrams (the rest stay
 * queued in the kernel socket), calling on_event for each accepted event.
 * Returns how many datagrams were taken (fewer than max_events: the socket
 * is empty), -ENOBUFS if the kernel reported lost events, or another
 * -errno. After a loss the socket is drained to empty (the kernel reports the next overflow
 * only once the queue was empty, so a rescan started now cannot lose events
 * unnoticed); with discard_after_loss those drained events are counted but
 * not passed on: the caller's rescan stands for them.
 */
int gate_read(struct gate *g, gate_event_fn on_event, void *userdata,
	      unsigned int max_events);

uint64_t gate_rejected_total(const struct gate_stats *s);
