/* SPDX-License-Identifier: MIT */
#include "engine/queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

bool queue_devpaths_related(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	const char *shorter = la <= lb ? a : b, *longer = la <= lb ? b : a;
	size_t n = la <= lb ? la : lb;

	return strncmp(shorter, longer, n) == 0 &&
	       (longer[n] == '\0' || longer[n] == '/');
}

/* Same device, ancestor or descendant; a move ties the old name to the new one. */
static bool events_related(const struct uevent *a, const struct uevent *b)
{
	return queue_devpaths_related(a->devpath, b->devpath) ||
	       (a->devpath_old && queue_devpaths_related(a->devpath_old, b->devpath)) ||
	       (b->devpath_old && queue_devpaths_related(b->devpath_old, a->devpath));
}

/*
 * The oldest waiting event that no older event is related to, of the class
 * root (any if all).
 */
static struct queued_event *oldest_runnable(struct queue *q, bool root, bool all)
{
	for (struct queued_event *e = q->head; e; e = e->next) {
		bool blocked = false;

		if (e->running || (!all && e->root != root))
			continue;
		for (struct queued_event *o = q->head; o != e && !blocked; o = o->next)
			blocked = events_related(&o->ev, &e->ev);
		if (!blocked)
			return e;
	}
	return NULL;
}

/*
 * The root path first; another event only while reserve_root workers stay
 * free for the root path. NULL if nothing may run now.
 */
static struct queued_event *next_runnable(struct queue *q)
{
	struct queued_event *e;

	if (q->frozen) /* a handoff gave the workers up */
		return NULL;
	if (!q->reserve_root) /* no root awaited: the kernel's order */
		return oldest_runnable(q, true, true);
	e = q->queued_root ? oldest_runnable(q, true, false) : NULL;
	if (e)
		return e;
	if (q->running_other + q->reserve_root >= q->maxworkers && q->maxworkers > q->reserve_root)
		return NULL;
	return oldest_runnable(q, false, false);
}

static void unlink_event(struct queue *q, struct queued_event *e)
{
	struct queued_event **pp = &q->head, *prev = NULL;

	while (*pp != e) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = e->next;
	if (q->tail == e)
		q->tail = prev;
	e->next = NULL;
}

static void finish(struct queue *q, struct queued_event *e)
{
	uint64_t one = 1;
	bool wake_main;

	pthread_mutex_lock(&q->lock);
	unlink_event(q, e);
	q->queued--;
	q->running--;
	if (e->root)
		q->queued_root--;
	else
		q->running_other--;
	/* the main loop drains the whole list: wake it only for the first */
	wake_main = q->done_head == NULL;
	if (q->done_tail)
		q->done_tail->next = e;
	else
		q->done_head = e;
	q->done_tail = e;
	/* a finished event may unblock its relatives */
	if (q->queued > q->running)
		pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	if (wake_main)
		(void)write(q->done_fd, &one, sizeof(one));
}

static void *worker_main(void *arg)
{
	struct queue_worker *w = arg;
	struct queue *q = w->q;

	if (q->warm)
		q->warm(q->ctx, w);
	for (;;) {
		struct queued_event *e = NULL;

		pthread_mutex_lock(&q->lock);
		while (!q->stopping && !(e = next_runnable(q)))
			pthread_cond_wait(&q->cond, &q->lock);
		if (q->stopping) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		e->running = true;
		q->running++;
		q->running_other += !e->root;
		pthread_mutex_unlock(&q->lock);
		q->handle(q->ctx, w, &e->ev);
		finish(q, e);
	}
}

int queue_init(struct queue *q, queue_handler_fn handle, void *ctx)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->handle = handle;
	q->ctx = ctx;
	q->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return q->done_fd < 0 ? -errno : 0;
}

/* One more thread; main thread only (it alone changes nworkers). */
static int spawn_worker(struct queue *q)
{
	struct queue_worker *w = &q->workers[q->nworkers];

	if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
		return -EAGAIN;
	q->nworkers++;
	return 0;
}

int queue_start(struct queue *q, unsigned int n, void *const *worker_data)
{
	q->workers = calloc(n, sizeof(*q->workers));
	if (!q->workers)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		struct queue_worker *w = &q->workers[i];

		w->q = q;
		w->index = i;
		w->data = worker_data ? worker_data[i] : NULL;
	}
	q->maxworkers = n;
	/* the rest start when there is work waiting for them (queue_push) */
	return n == 0 ? 0 : spawn_worker(q);
}

static void free_list(struct queued_event *e)
{
	while (e) {
		struct queued_event *next = e->next;

		free(e);
		e = next;
	}
}

void queue_stop(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->stopping = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	for (unsigned int i = 0; i < q->nworkers; i++)
		pthread_join(q->workers[i].thread, NULL);
	q->nworkers = 0;
	free(q->workers);
	q->workers = NULL;
	free_list(q->head);
	free_list(q->done_head);
	q->head = q->tail = q->done_head = q->done_tail = NULL;
	q->queued = q->running = q->queued_root = q->running_other = 0;
	if (q->done_fd >= 0)
		close(q->done_fd);
	q->done_fd = -1;
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
}

int queue_push(struct queue *q, const struct uevent *ev, bool root)
{
	struct queued_event *e = malloc(sizeof(*e));
	bool grow;

	if (!e)
		return -ENOMEM;
	e->next = NULL;
	e->running = false;
	e->root = root;
	uevent_copy(&e->ev, ev);
	pthread_mutex_lock(&q->lock);
	q->queued_root += root;
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	q->queued++;
	/* one new event needs one worker, not all of them */
	pthread_cond_signal(&q->cond);
	/* more waiting than idle workers (queued - running > nworkers -
	 * running): grow; a thread costs as much as handling several events,
	 * so none is made before it is needed */
	grow = q->queued > q->nworkers && q->nworkers < q->maxworkers;
	pthread_mutex_unlock(&q->lock);
	if (grow)
		(void)spawn_worker(q); /* fewer workers still work */
	return 0;
}

bool queue_has_related(struct queue *q, const struct uevent *ev)
{
	bool related = false;

	pthread_mutex_lock(&q->lock);
	for (struct queued_event *e = q->head; e && !related; e = e->next)
		related = events_related(&e->ev, ev);
	pthread_mutex_unlock(&q->lock);
	return related;
}

/* The oldest event ahead of e that e is related to; NULL if none. */
static struct queued_event *ahead_of(struct queue *q, const struct queued_event *e)
{
	for (struct queued_event *o = q->head; o != e; o = o->next)
		if (events_related(&o->ev, &e->ev))
			return o;
	return NULL;
}

struct queued_event *queue_take_waiting(struct queue *q)
{
	struct queued_event *head = NULL, **tail = &head;

	pthread_mutex_lock(&q->lock);
	q->frozen = true;
	/* what is taken leaves the list, so every older event still in it is
	 * running or kept: e stays if any of them is related to it */
	for (struct queued_event *e = q->head, *next; e; e = next) {
		next = e->next;
		if (e->running || ahead_of(q, e))
			continue;
		unlink_event(q, e);
		q->queued--;
		if (e->root)
			q->queued_root--;
		*tail = e;
		tail = &e->next;
	}
	pthread_mutex_unlock(&q->lock);
	return head;
}

void queue_each_waiting(struct queue *q,
			void (*fn)(void *u, const struct queued_event *e,
				   const struct queued_event *behind),
			void *u)
{
	pthread_mutex_lock(&q->lock);
	for (struct queued_event *e = q->head; e; e = e->next)
		if (!e->running)
			fn(u, e, ahead_of(q, e));
	pthread_mutex_unlock(&q->lock);
}

struct queued_event *queue_take_done(struct queue *q)
{
	struct queued_event *e;
	uint64_t n;

	(void)read(q->done_fd, &n, sizeof(n));
	pthread_mutex_lock(&q->lock);
	e = q->done_head;
	q->done_head = q->done_tail = NULL;
	pthread_mutex_unlock(&q->lock);
	return e;
}

/* A counter of q, read under its lock. */
static size_t locked_read(struct queue *q, const size_t *counter)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = *counter;
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t queue_pending_root(struct queue *q)
{
	return locked_read(q, &q->queued_root);
}

size_t queue_pending(struct queue *q)
{
	return locked_read(q, &q->queued);
}
