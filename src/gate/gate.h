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
	void *userdata;
	struct uevent_raw *batch; /* UEVENT_BATCH_MAX slots, allocated once */
	struct uevent *ev;        /* parse target, allocated once */
};

/* Open the socket and buffers. Logs what it obtained. Returns 0 or -errno. */
int gate_open(struct gate *g, const struct logger *log,
	      const struct uevent_socket_options *opts);

void gate_close(struct gate *g);

#define GATE_EVENTS_LOST 1

/*
 * Drain what is pending (at most max_batches batches), calling on_event for
 * each accepted event. Returns 0 when the socket is drained or the batch
 * limit is reached, GATE_EVENTS_LOST if the kernel reported lost events
 * (the socket is then drained to empty, so a rescan started now cannot
 * lose events unnoticed), or -errno.
 */
int gate_read(struct gate *g, gate_event_fn on_event, void *userdata,
	      unsigned int max_batches);

uint64_t gate_rejected_total(const struct gate_stats *s);
