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

/* A handler that holds each event until the test lets it go (no sleeps). */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int allowed, started;
	uint64_t seq[16];
};

static void gated(void *ctx, struct queue_worker *w, const struct uevent *ev)
{
	struct gate *g = ctx;

	pthread_mutex_lock(&g->lock);
	if (g->started < 16)
		g->seq[g->started] = ev->seqnum;
	g->started++;
	pthread_cond_broadcast(&g->cond);
	while (g->allowed < g->started)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void gate_wait_started(struct gate *g, unsigned int n)
{
	pthread_mutex_lock(&g->lock);
	while (g->started < n)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void gate_allow(struct gate *g, unsigned int n)
{
	pthread_mutex_lock(&g->lock);
	g->allowed = n;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* Take the list, note the SEQNUMs (at most max), free it; how many. */
static unsigned int take_seqs(struct queue *q, unsigned int *seqs, unsigned int max)
{
	unsigned int n = 0;

	for (struct queued_event *e = queue_take_waiting(q), *next; e; e = next) {
		next = e->next;
		ATF_CHECK(!e->running);
		if (n < max)
			seqs[n] = (unsigned int)e->ev.seqnum;
		n++;
		free(e);
	}
	return n;
}

/* A handoff takes back what no worker started; the running event stays. */
ATF_TC_WITHOUT_HEAD(take_waiting);
ATF_TC_BODY(take_waiting, tc)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, { 0 } };
	struct queue q;
	unsigned int seqs[4], n;

	ATF_REQUIRE_EQ(queue_init(&q, gated, &g), 0);
	ATF_REQUIRE_EQ(queue_start(&q, 1, NULL), 0);
	push(&q, "add", "/devices/a", 1, "0");
	gate_wait_started(&g, 1); /* the one worker holds it */
	push(&q, "add", "/devices/b", 2, "0");
	push_ranked(&q, "add", "/devices/c", 3, "0", false);
	push(&q, "change", "/devices/b", 4, "0");
	n = take_seqs(&q, seqs, 4);
	ATF_REQUIRE_EQ(n, 3);
	ATF_CHECK(seqs[0] == 2 && seqs[1] == 3 && seqs[2] == 4); /* oldest first */
	ATF_CHECK_EQ(queue_pending(&q), 1);
	ATF_CHECK(queue_take_waiting(&q) == NULL);
	ATF_CHECK_EQ(q.queued_root, 1); /* the running one */
	gate_allow(&g, 16);
	wait_idle(&q);
	ATF_CHECK_EQ(g.started, 1); /* only the running one was handled */
	ATF_CHECK_EQ(q.queued_root, 0);
	queue_stop(&q);
}

static void note_kept(void *u, const struct queued_event *e, const struct queued_event *behind)
{
	char *out = u;
	size_t len = strlen(out);

	snprintf(out + len, 256 - len, "%llu<%llu ", (unsigned long long)e->ev.seqnum,
		 behind ? (unsigned long long)behind->ev.seqnum : 0ULL);
}

/*
 * A remove (or any event) ordered behind its device's running add, or
 * behind a child's or parent's, is not taken: given back beside the add it
 * would be handled while the add still makes links. It stays, with what
 * followed it on the same device, and no worker starts it afterwards.
 */
ATF_TC_WITHOUT_HEAD(take_waiting_keeps_device_order);
ATF_TC_BODY(take_waiting_keeps_device_order, tc)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, { 0 } };
	struct queue q;
	unsigned int seqs[8], n;
	char kept[256] = "";

	ATF_REQUIRE_EQ(queue_init(&q, gated, &g), 0);
	ATF_REQUIRE_EQ(queue_start(&q, 1, NULL), 0);
	push(&q, "add", "/devices/a", 1, "0");
	gate_wait_started(&g, 1);
	push(&q, "add", "/devices/b", 2, "0");
	push(&q, "remove", "/devices/a", 3, "0");       /* behind 1, same device */
	push(&q, "add", "/devices/a/child", 4, "0");    /* behind 1, its parent */
	push(&q, "add", "/devices/c", 5, "0");
	push(&q, "remove", "/devices/b", 6, "0");       /* behind 2, which is taken */
	push(&q, "move", "/devices/d", 7, "0");
	n = take_seqs(&q, seqs, 8);
	ATF_REQUIRE_EQ_MSG(n, 4, "%u taken", n);
	ATF_CHECK(seqs[0] == 2 && seqs[1] == 5 && seqs[2] == 6 && seqs[3] == 7);
	ATF_CHECK_EQ(queue_pending(&q), 3); /* 1 running, 3 and 4 kept */
	queue_each_waiting(&q, note_kept, kept);
	ATF_CHECK_STREQ(kept, "3<1 4<1 ");
	/* the running one finishes; the kept ones are never started */
	gate_allow(&g, 16);
	for (int i = 0; i < 500 && queue_pending(&q) > 2; i++)
		usleep(10000);
	ATF_CHECK_EQ(queue_pending(&q), 2);
	queue_stop(&q);
	ATF_CHECK_EQ_MSG(g.started, 1, "%u events started", g.started);
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
	ATF_TP_ADD_TC(tp, take_waiting_keeps_device_order);
	ATF_TP_ADD_TC(tp, devpaths_related);
	return atf_no_error();
}
