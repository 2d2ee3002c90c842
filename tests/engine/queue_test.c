/* SPDX-License-Identifier: MIT */
/* Ordering: related devices in SEQNUM order, unrelated ones in parallel. */
#include <atf-c.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "engine/queue.h"

struct record {
	pthread_mutex_t lock;
	int n;
	uint64_t seq[16];
	uint64_t start[16], end[16];
	int running, max_running;
};

static int find(struct record *r, uint64_t seq)
{
	for (int i = 0; i < r->n; i++)
		if (r->seq[i] == seq)
			return i;
	return -1;
}

static void handler(void *ctx, struct queue_worker *w, const struct uevent *ev)
{
	struct record *r = ctx;
	int i;

	pthread_mutex_lock(&r->lock);
	i = r->n++;
	r->seq[i] = ev->seqnum;
	r->start[i] = now_monotonic_usec();
	if (++r->running > r->max_running)
		r->max_running = r->running;
	pthread_mutex_unlock(&r->lock);
	usleep(100000);
	pthread_mutex_lock(&r->lock);
	r->end[i] = now_monotonic_usec();
	r->running--;
	pthread_mutex_unlock(&r->lock);
}

static void push_ranked(struct queue *q, const char *action, const char *devpath, unsigned seq,
			const char *uuid, bool root);

static void push(struct queue *q, const char *action, const char *devpath, unsigned seq,
		 const char *uuid)
{
	push_ranked(q, action, devpath, seq, uuid, true);
}

static void push_ranked(struct queue *q, const char *action, const char *devpath, unsigned seq,
			const char *uuid, bool root)
{
	static struct uevent ev;
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s@%s%cACTION=%s%cDEVPATH=%s%cSUBSYSTEM=test%c"
			 "SEQNUM=%u%cSYNTH_UUID=%s%c", action, devpath, 0, action, 0, devpath,
			 0, 0, seq, 0, uuid, 0);

	ATF_REQUIRE_EQ(uevent_parse(&ev, buf, (size_t)n, NULL, 0), UEVENT_PARSE_OK);
	ATF_REQUIRE_EQ(queue_push(q, &ev, root), 0);
}

static void wait_idle(struct queue *q)
{
	for (int i = 0; i < 500 && queue_pending(q) > 0; i++)
		usleep(10000);
	ATF_REQUIRE_EQ(queue_pending(q), 0);
}

ATF_TC_WITHOUT_HEAD(related_in_order_unrelated_parallel);
ATF_TC_BODY(related_in_order_unrelated_parallel, tc)
{
	struct record r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct queue q;
	int p1, c2, p3, u4;

	ATF_REQUIRE_EQ(queue_init(&q, handler, &r), 0);
	ATF_REQUIRE_EQ(queue_start(&q, 4, NULL), 0);
	push(&q, "add", "/devices/p", 1, "0");
	push(&q, "add", "/devices/p/c", 2, "0");
	push(&q, "change", "/devices/p", 3, "0");
	push(&q, "add", "/devices/q", 4, "0");
	wait_idle(&q);
	queue_stop(&q);
	p1 = find(&r, 1); c2 = find(&r, 2); p3 = find(&r, 3); u4 = find(&r, 4);
	ATF_REQUIRE(p1 >= 0 && c2 >= 0 && p3 >= 0 && u4 >= 0);
	/* parent before child before the parent's next event, never overlapping */
	ATF_CHECK(r.start[c2] >= r.end[p1]);
	ATF_CHECK(r.start[p3] >= r.end[c2]);
	/* the unrelated device did not wait for them */
	ATF_CHECK(r.start[u4] < r.end[p1]);
	ATF_CHECK(r.max_running >= 2);
}

/*
 * A root awaited: root-path events jump the queue, and one worker stays
 * free for them. Without: the kernel's order.
 */
ATF_TC_WITHOUT_HEAD(root_path_first);
ATF_TC_BODY(root_path_first, tc)
{
	struct record r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct queue q;

	ATF_REQUIRE_EQ(queue_init(&q, handler, &r), 0);
	q.reserve_root = 1;
	ATF_REQUIRE_EQ(queue_start(&q, 2, NULL), 0);
	/* the other class may use one of the two workers only */
	push_ranked(&q, "add", "/devices/o1", 1, "0", false);
	push_ranked(&q, "add", "/devices/o2", 2, "0", false);
	push_ranked(&q, "add", "/devices/o3", 3, "0", false);
	push_ranked(&q, "add", "/devices/r4", 4, "0", true);
	push_ranked(&q, "add", "/devices/r5", 5, "0", true);
	wait_idle(&q);
	queue_stop(&q);
	ATF_REQUIRE_EQ(r.n, 5);
	/* o1 started at once; r4 and r5 were taken before o2 and o3 */
	ATF_CHECK(r.start[find(&r, 4)] < r.start[find(&r, 2)]);
	ATF_CHECK(r.start[find(&r, 5)] < r.start[find(&r, 3)]);
	ATF_CHECK(r.start[find(&r, 4)] < r.end[find(&r, 1)]); /* the reserved worker */
	ATF_CHECK(r.start[find(&r, 2)] >= r.end[find(&r, 1)]); /* never two others at once */
}

ATF_TC_WITHOUT_HEAD(done_list_carries_uuid);
ATF_TC_BODY(done_list_carries_uuid, tc)
{
	struct record r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct queue q;
	struct queued_event *done, *e;
	int n = 0;

	ATF_REQUIRE_EQ(queue_init(&q, handler, &r), 0);
	ATF_REQUIRE_EQ(queue_start(&q, 2, NULL), 0);
	push(&q, "add", "/devices/a", 10, "12345678-1234-1234-1234-123456789abc");
	push(&q, "add", "/devices/b", 11, "0");
	wait_idle(&q);
	done = queue_take_done(&q);
	for (e = done; e; e = e->next, n++)
		if (e->ev.seqnum == 10)
			ATF_CHECK_STREQ(e->ev.synth_uuid, "12345678-1234-1234-1234-123456789abc");
	ATF_CHECK_EQ(n, 2);
	while (done) {
		e = done->next;
		free(done);
		done = e;
	}
	queue_stop(&q);
}

/* Threads start as work waits for them, never more than allowed. */
ATF_TC_WITHOUT_HEAD(workers_on_demand);
ATF_TC_BODY(workers_on_demand, tc)
{
	struct record r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct queue q;
	char path[32];

	ATF_REQUIRE_EQ(queue_init(&q, handler, &r), 0);
	ATF_REQUIRE_EQ(queue_start(&q, 3, NULL), 0);
	ATF_CHECK_EQ(q.nworkers, 1);
	push(&q, "add", "/devices/one", 1, "0");
	wait_idle(&q);
	ATF_CHECK_EQ(q.nworkers, 1); /* one event at a time: one thread is enough */
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/devices/d%d", i);
		push(&q, "add", path, 10 + (unsigned)i, "0");
	}
	wait_idle(&q);
	ATF_CHECK_EQ(q.nworkers, 3);
	ATF_CHECK(r.max_running >= 2);
	queue_stop(&q);
}

/* A handoff takes back what no worker started; the running event stays. */
ATF_TC_WITHOUT_HEAD(take_waiting);
ATF_TC_BODY(take_waiting, tc)
{
	struct record r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct queue q;
	struct queued_event *w;
	unsigned int seqs[4], n = 0;

	ATF_REQUIRE_EQ(queue_init(&q, handler, &r), 0);
	ATF_REQUIRE_EQ(queue_start(&q, 1, NULL), 0);
	push(&q, "add", "/devices/a", 1, "0");
	for (int i = 0; i < 50 && !r.running; i++) /* the one worker takes it */
		usleep(2000);
	push(&q, "add", "/devices/b", 2, "0");
	push_ranked(&q, "add", "/devices/c", 3, "0", false);
	push(&q, "change", "/devices/a", 4, "0");
	w = queue_take_waiting(&q);
	for (struct queued_event *e = w, *next; e; e = next) {
		next = e->next;
		ATF_CHECK(!e->running);
		if (n < 4)
			seqs[n++] = (unsigned int)e->ev.seqnum;
		free(e);
	}
	ATF_REQUIRE_EQ(n, 3);
	ATF_CHECK(seqs[0] == 2 && seqs[1] == 3 && seqs[2] == 4); /* oldest first */
	ATF_CHECK_EQ(queue_pending(&q), 1);
	ATF_CHECK(queue_take_waiting(&q) == NULL);
	wait_idle(&q);
	ATF_CHECK_EQ(r.n, 1); /* only the running one was handled */
	ATF_CHECK_EQ(q.queued_root, 0);
	queue_stop(&q);
}

ATF_TC_WITHOUT_HEAD(devpaths_related);
ATF_TC_BODY(devpaths_related, tc)
{
	ATF_CHECK(queue_devpaths_related("/devices/a", "/devices/a"));
	ATF_CHECK(queue_devpaths_related("/devices/a", "/devices/a/b"));
	ATF_CHECK(queue_devpaths_related("/devices/a/b/c", "/devices/a"));
	ATF_CHECK(!queue_devpaths_related("/devices/a", "/devices/ab"));
	ATF_CHECK(!queue_devpaths_related("/devices/a-b", "/devices/a"));
	ATF_CHECK(!queue_devpaths_related("/devices/x", "/devices/y"));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, related_in_order_unrelated_parallel);
	ATF_TP_ADD_TC(tp, root_path_first);
	ATF_TP_ADD_TC(tp, done_list_carries_uuid);
	ATF_TP_ADD_TC(tp, workers_on_demand);
	ATF_TP_ADD_TC(tp, take_waiting);
	ATF_TP_ADD_TC(tp, devpaths_related);
	return atf_no_error();
}
