/* SPDX-License-Identifier: MIT */
/*
 * The event queue and its worker threads. Events enter in SEQNUM order (the
 * kernel's order). A worker takes the oldest event that no older queued or
 * running event is related to (same devpath, or parent/child), so one
 * device's events and a parent's and child's run in SEQNUM order while
 * unrelated devices run in parallel. While reserve_root is set (a root is
 * awaited), events on the root path (rank.h) are taken before the others,
 * and reserve_root workers are kept for them. Finished events go to a done list that
 * the main loop drains when done_fd (an eventfd) becomes readable.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gate/uevent.h"

struct queue_worker;

/* Runs on a worker thread; ev is the queued event, parsed once at the gate. */
typedef void (*queue_handler_fn)(void *ctx, struct queue_worker *w,
				 const struct uevent *ev);

struct queued_event {
	struct queued_event *next;
	bool running;
	bool root;             /* on the root path (rank.h): taken first */
	struct uevent ev;      /* a copy owning its bytes (uevent_copy) */
};

struct queue_worker {
	struct queue *q;
	pthread_t thread;
	unsigned int index;
	void *data;            /* per-worker handler state (e.g. kmod context) */
};

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct queued_event *head, *tail; /* waiting and running, oldest first */
	struct queued_event *done_head, *done_tail;
	size_t queued;         /* waiting + running */
	size_t running;
	size_t queued_root;    /* of the queued, on the root path */
	size_t running_other;  /* of the running, not on the root path */
	unsigned int reserve_root; /* workers other events leave free; 0: no root awaited,
				    * plain SEQNUM order */
	bool stopping;
	bool frozen;           /* queue_take_waiting: start nothing more */
	int done_fd;
	queue_handler_fn handle;
	void *ctx;
	/* optional: on each worker thread as it starts, before its first event */
	void (*warm)(void *ctx, struct queue_worker *w);
	struct queue_worker *workers;
	unsigned int nworkers;    /* started (main thread writes, under no lock) */
	unsigned int maxworkers;  /* allowed: started as work waits for them */
};

/* An empty queue without workers (done_fd ready for polling). 0 or -errno. */
int queue_init(struct queue *q, queue_handler_fn handle, void *ctx);
/*
 * Allow n workers, worker_data[i] (may be NULL) becoming workers[i].data.
 * One starts now; queue_push starts another whenever more events wait than
 * workers are idle. Returns 0 or -errno (not even one could start).
 */
int queue_start(struct queue *q, unsigned int n, void *const *worker_data);
/* Stop after the running events finish; waiting events are dropped. */
void queue_stop(struct queue *q);

/* Copy an accepted event in (root: on the root path). Returns 0 or -ENOMEM. */
int queue_push(struct queue *q, const struct uevent *ev, bool root);

/*
 * True if an event related to ev (same device, ancestor, descendant) is
 * queued or running: ev must then wait its turn in the queue.
 */
bool queue_has_related(struct queue *q, const struct uevent *ev);

/*
 * For a handoff that cannot wait for the running events: from now on no
 * worker starts an event (the running ones finish), and the waiting events
 * that no running event is ahead of are taken (oldest first), as a list the
 * caller frees with free(). An event ordered behind a running related
 * event (same device, parent or child), or behind one kept for that
 * reason, stays queued and is never started: handing it on before its
 * predecessor is done would run a remove beside its device's add.
 * queue_each_waiting names what stayed.
 */
struct queued_event *queue_take_waiting(struct queue *q);

/*
 * Call fn for each queued event no worker has started, oldest first, with
 * the running or waiting event ahead of it that it is related to (NULL if
 * none). Under the queue's lock: fn must not call the queue.
 */
void queue_each_waiting(struct queue *q,
			void (*fn)(void *u, const struct queued_event *e,
				   const struct queued_event *behind),
			void *u);

/* Take the finished events (oldest first); caller frees each with free(). */
struct queued_event *queue_take_done(struct queue *q);

/* Waiting + running, under the lock: all, or on the root path. */
size_t queue_pending(struct queue *q);
size_t queue_pending_root(struct queue *q);

/* True if a and b are the same device or one is an ancestor of the other. */
bool queue_devpaths_related(const char *a, const char *b);
