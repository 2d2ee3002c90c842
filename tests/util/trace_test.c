/* SPDX-License-Identifier: MIT */
/* The trace recorder: bounds, what a full ring keeps, threads, and the file round trip. */
#include <atf-c.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/log.h"
#include "util/trace-file.h"
#include "util/trace.h"

struct seen {
	struct trace_rec r[4096];
	size_t n;
};

static void collect(void *u, const struct trace_rec *r)
{
	struct seen *s = u;

	if (s->n < sizeof(s->r) / sizeof(s->r[0]))
		s->r[s->n++] = *r;
}

static struct seen *snapshot(const struct trace *t, struct trace_totals *tot)
{
	struct seen *s = calloc(1, sizeof(*s));

	ATF_REQUIRE(s);
	trace_foreach(t, collect, s, tot);
	return s;
}

ATF_TC_WITHOUT_HEAD(records_keep_their_fields);
ATF_TC_BODY(records_keep_their_fields, tc)
{
	struct trace t;
	struct trace_span span;
	struct trace_totals tot;
	struct seen *s;
	char longpath[300];

	ATF_REQUIRE_EQ(trace_init(&t, 64, now_monotonic_usec()), 0);
	trace_trigger(&t, "/devices/virtual/mem/null");
	trace_event(&t, 42, "add", "mem", "/devices/virtual/mem/null");
	trace_span_begin(&t, &span);
	trace_span_step(&t, &span, 0);
	usleep(3000);
	trace_span_step(&t, &span, 1);
	trace_span_end(&t, &span, 42, true);
	trace_module(&t, trace_now(&t), "virtio_blk", 42, -ENODEV);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 2] = 'Z'; /* the tail is what is kept */
	longpath[sizeof(longpath) - 1] = '\0';
	trace_trigger(&t, longpath);
	s = snapshot(&t, &tot);
	ATF_REQUIRE_EQ(s->n, 5);
	ATF_CHECK_EQ(tot.written, 5);
	ATF_CHECK_EQ(tot.kept, 5);
	ATF_CHECK_EQ(tot.dropped, 0);
	ATF_CHECK_EQ(s->r[0].kind, TRACE_TRIGGER);
	ATF_CHECK_STREQ(s->r[0].u.dev.devpath, "/devices/virtual/mem/null");
	ATF_CHECK_EQ(s->r[1].kind, TRACE_EVENT);
	ATF_CHECK_EQ(s->r[1].seqnum, 42);
	ATF_CHECK_STREQ(s->r[1].u.dev.action, "add");
	ATF_CHECK_STREQ(s->r[1].u.dev.subsystem, "mem");
	ATF_CHECK(s->r[1].t >= s->r[0].t);
	ATF_CHECK_EQ(s->r[2].kind, TRACE_HANDLED);
	ATF_CHECK_EQ(s->r[2].nhandlers, 2);
	ATF_CHECK(s->r[2].u.hdur[1] >= 3000);
	ATF_CHECK(s->r[2].dur >= s->r[2].u.hdur[0] + s->r[2].u.hdur[1]);
	ATF_CHECK(s->r[2].flags & TRACE_WORKER);
	ATF_CHECK_EQ(s->r[3].kind, TRACE_MODULE);
	ATF_CHECK_EQ(s->r[3].result, -ENODEV);
	ATF_CHECK_STREQ(s->r[3].u.module, "virtio_blk");
	ATF_CHECK(s->r[4].flags & TRACE_CUT);
	ATF_CHECK_EQ(strlen(s->r[4].u.dev.devpath), TRACE_DEVPATH_MAX - 1);
	ATF_CHECK(strncmp(s->r[4].u.dev.devpath, "...", 3) == 0);
	ATF_CHECK_EQ(s->r[4].u.dev.devpath[TRACE_DEVPATH_MAX - 2], 'Z');
	free(s);
	trace_fini(&t);
}

/* seqnum i for record i: what is kept says which records survived. */
static void write_events(struct trace *t, uint64_t from, uint64_t n)
{
	for (uint64_t i = from; i < from + n; i++)
		trace_event(t, i, "add", "test", "/devices/x");
}

ATF_TC_WITHOUT_HEAD(full_ring_keeps_first_quarter_and_newest);
ATF_TC_BODY(full_ring_keeps_first_quarter_and_newest, tc)
{
	struct trace t;
	struct trace_totals tot;
	struct seen *s;

	ATF_REQUIRE_EQ(trace_init(&t, 16, now_monotonic_usec()), 0);
	write_events(&t, 0, 16); /* exactly full: nothing lost */
	s = snapshot(&t, &tot);
	ATF_CHECK_EQ(tot.kept, 16);
	ATF_CHECK_EQ(tot.dropped, 0);
	for (size_t i = 0; i < s->n; i++)
		ATF_CHECK_EQ(s->r[i].seqnum, i);
	free(s);
	write_events(&t, 16, 84); /* 100 written: the first 4, then the newest 12 */
	s = snapshot(&t, &tot);
	ATF_CHECK_EQ(tot.written, 100);
	ATF_CHECK_EQ(tot.kept, 16);
	ATF_CHECK_EQ(tot.dropped, 84);
	ATF_REQUIRE_EQ(s->n, 16);
	for (size_t i = 0; i < 4; i++)
		ATF_CHECK_EQ(s->r[i].seqnum, i);
	for (size_t i = 4; i < 16; i++)
		ATF_CHECK_EQ(s->r[i].seqnum, 88 + (i - 4)); /* oldest of the ring first */
	free(s);
	trace_fini(&t);
}

ATF_TC_WITHOUT_HEAD(ring_wraps_many_times);
ATF_TC_BODY(ring_wraps_many_times, tc)
{
	struct trace t;
	struct trace_totals tot;
	struct seen *s;

	ATF_REQUIRE_EQ(trace_init(&t, 7, now_monotonic_usec()), 0); /* keep 1, ring 6 */
	write_events(&t, 0, 1003);
	s = snapshot(&t, &tot);
	ATF_REQUIRE_EQ(s->n, 7);
	ATF_CHECK_EQ(tot.dropped, 1003 - 7);
	ATF_CHECK_EQ(s->r[0].seqnum, 0);
	for (size_t i = 1; i < 7; i++)
		ATF_CHECK_EQ(s->r[i].seqnum, 1003 - 6 + (i - 1));
	free(s);
	trace_fini(&t);
}

ATF_TC_WITHOUT_HEAD(no_trace_records_nothing);
ATF_TC_BODY(no_trace_records_nothing, tc)
{
	struct trace t;
	struct trace_span span;
	struct trace_totals tot;

	/* every hook takes NULL: handlers and tests without a trace */
	trace_trigger(NULL, "/devices/x");
	trace_event(NULL, 1, "add", "x", "/devices/x");
	trace_mark(NULL, "startup");
	trace_name_handler(NULL, 0, "devnode");
	trace_span_begin(NULL, &span);
	trace_span_step(NULL, &span, 0);
	trace_span_end(NULL, &span, 1, false);
	trace_module(NULL, 0, "m", 1, 0);
	ATF_CHECK_EQ(trace_now(NULL), 0);
	/* a trace that could not be set up records nothing either */
	ATF_CHECK_EQ(trace_init(&t, 2, now_monotonic_usec()), -EINVAL);
	trace_event(&t, 1, "add", "x", "/devices/x");
	trace_foreach(&t, collect, NULL, &tot);
	ATF_CHECK_EQ(tot.written, 0);
	trace_fini(&t);
}

ATF_TC_WITHOUT_HEAD(marks_keep_first_and_newest);
ATF_TC_BODY(marks_keep_first_and_newest, tc)
{
	static const char *const names[] = { "startup", "coldplug", "settling", "settled" };
	struct trace t;

	ATF_REQUIRE_EQ(trace_init(&t, 16, now_monotonic_usec()), 0);
	for (int i = 0; i < TRACE_MARKS_MAX + 6; i++)
		trace_mark(&t, names[i % 4]);
	ATF_CHECK_EQ(t.nmarks, TRACE_MARKS_MAX);
	ATF_CHECK_EQ(t.marks_dropped, 6);
	ATF_CHECK_STREQ(t.marks[0].name, "startup");
	ATF_CHECK_STREQ(t.marks[TRACE_MARKS_MAX - 1].name, names[(TRACE_MARKS_MAX + 5) % 4]);
	trace_fini(&t);
}

/* ---- threads ---- */

#define THREADS 4
#define PER_THREAD 20000

struct writer {
	struct trace *t;
	unsigned int id;
};

/* Record (id, i) with its seqnum and its devpath saying the same. */
static void *write_many(void *arg)
{
	struct writer *w = arg;
	char path[64];

	for (unsigned int i = 0; i < PER_THREAD; i++) {
		snprintf(path, sizeof(path), "/devices/t%u/%u", w->id, i);
		trace_event(w->t, ((uint64_t)w->id << 32) | i, "add", "test", path);
	}
	return NULL;
}

struct check {
	uint64_t last[THREADS]; /* UINT64_MAX: none seen yet */
	bool ok;
};

/* Every record whole; each thread's records in its own order. */
static void check_record(void *u, const struct trace_rec *r)
{
	struct check *c = u;
	unsigned int id = (unsigned int)(r->seqnum >> 32), i = (unsigned int)r->seqnum;
	char want[64];

	snprintf(want, sizeof(want), "/devices/t%u/%u", id, i);
	if (r->kind != TRACE_EVENT || id >= THREADS || strcmp(r->u.dev.devpath, want) != 0) {
		c->ok = false;
		return;
	}
	if (c->last[id] != UINT64_MAX && i <= c->last[id])
		c->ok = false;
	c->last[id] = i;
}

static struct check check_all(const struct trace *t, struct trace_totals *tot)
{
	struct check c = { .ok = true };

	memset(c.last, 0xff, sizeof(c.last));
	trace_foreach(t, check_record, &c, tot);
	return c;
}

static void *read_while_written(void *arg)
{
	struct trace *t = arg;
	struct trace_totals tot;

	for (int k = 0; k < 200; k++) {
		struct check c = check_all(t, &tot);

		if (!c.ok || tot.kept + tot.dropped != tot.written)
			return (void *)1;
	}
	return NULL;
}

ATF_TC_WITHOUT_HEAD(threads_write_without_loss_or_tearing);
ATF_TC_BODY(threads_write_without_loss_or_tearing, tc)
{
	pthread_t th[THREADS], reader;
	struct writer w[THREADS];
	struct trace t;
	struct trace_totals tot;
	struct check c;
	void *bad;

	ATF_REQUIRE_EQ(trace_init(&t, 1024, now_monotonic_usec()), 0);
	ATF_REQUIRE_EQ(pthread_create(&reader, NULL, read_while_written, &t), 0);
	for (unsigned int i = 0; i < THREADS; i++) {
		w[i] = (struct writer){ &t, i };
		ATF_REQUIRE_EQ(pthread_create(&th[i], NULL, write_many, &w[i]), 0);
	}
	for (unsigned int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_join(reader, &bad);
	ATF_CHECK_MSG(bad == NULL, "a snapshot taken while threads wrote saw a torn record");
	c = check_all(&t, &tot);
	ATF_CHECK(c.ok);
	ATF_CHECK_EQ(tot.written, THREADS * PER_THREAD);
	ATF_CHECK_EQ(tot.kept, 1024);
	ATF_CHECK_EQ(tot.dropped, THREADS * PER_THREAD - 1024);
	trace_fini(&t);
}

/* ---- the file ---- */

static int file_of(const struct trace *t)
{
	int fd = memfd_create("trace", MFD_CLOEXEC);

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(trace_file_write(t, fd), 0);
	return fd;
}

static void parse_fd(int fd, struct trace_log *log)
{
	struct trace_error err;
	off_t len = lseek(fd, 0, SEEK_END);
	char *buf = malloc((size_t)len + 1);

	ATF_REQUIRE(buf);
	ATF_REQUIRE_EQ(pread(fd, buf, (size_t)len, 0), len);
	if (trace_log_parse(log, buf, (size_t)len, &err) != 0)
		atf_tc_fail("the written trace does not parse: %s", err.why);
	free(buf);
}

ATF_TC_WITHOUT_HEAD(file_round_trip);
ATF_TC_BODY(file_round_trip, tc)
{
	static const char hostile[] = "/devices/a b\\c\n\xff\"<&";
	struct trace t;
	struct trace_span span;
	struct trace_log log;
	int fd;

	ATF_REQUIRE_EQ(trace_init(&t, 64, 123456789), 0);
	trace_name_handler(&t, 0, "devnode");
	trace_name_handler(&t, 1, "disk");
	trace_mark(&t, "startup");
	trace_trigger(&t, hostile);
	trace_event(&t, 7, "change", "bl ock", hostile);
	trace_span_begin(&t, &span);
	trace_span_step(&t, &span, 0);
	trace_span_step(&t, &span, 1);
	trace_span_end(&t, &span, 7, false);
	trace_module(&t, 5, "snd-hda_intel", 7, -EIO);
	trace_module(&t, 5, "ext4", 0, 1);
	trace_mark(&t, "settled");
	fd = file_of(&t);
	parse_fd(fd, &log);
	close(fd);
	ATF_CHECK_EQ(log.version, 1);
	ATF_CHECK_EQ(log.start_monotonic_us, 123456789);
	ATF_CHECK_EQ(log.capacity, 64);
	ATF_CHECK_EQ(log.dropped, 0);
	ATF_CHECK_EQ(log.nphases, 2);
	ATF_CHECK_STREQ(log.phase[1].name, "settled");
	ATF_REQUIRE_EQ(log.n, 5);
	ATF_CHECK_EQ(log.e[0].kind, TRACE_TRIGGER);
	/* names come back in their escaped, printable form */
	ATF_CHECK_STREQ(log.e[0].name, "/devices/a\\x20b\\x5cc\\x0a\\xff\"<&");
	ATF_CHECK_STREQ(log.e[1].name, log.e[0].name);
	ATF_CHECK_STREQ(log.e[1].subsystem, "bl\\x20ock");
	ATF_CHECK_STREQ(log.e[1].action, "change");
	ATF_CHECK_EQ(log.e[1].seqnum, 7);
	ATF_CHECK_EQ(log.e[2].kind, TRACE_HANDLED);
	ATF_CHECK_EQ(log.e[2].nh, 2);
	ATF_CHECK_EQ(log.nhandlers, 2);
	ATF_CHECK_STREQ(log.handler[0], "devnode");
	ATF_CHECK_STREQ(log.handler[1], "disk");
	ATF_CHECK_EQ(log.e[3].kind, TRACE_MODULE);
	ATF_CHECK_EQ(log.e[3].result, -EIO);
	ATF_CHECK_STREQ(log.e[3].name, "snd-hda_intel");
	ATF_CHECK_EQ(log.e[4].result, 1); /* blacklisted */
	for (size_t i = 0; i < log.n; i++)
		ATF_CHECK(log.e[i].t + log.e[i].dur <= log.end);
	trace_log_free(&log);
	trace_fini(&t);
}

ATF_TC_WITHOUT_HEAD(file_of_a_full_ring_counts_the_loss);
ATF_TC_BODY(file_of_a_full_ring_counts_the_loss, tc)
{
	struct trace t;
	struct trace_log log;
	int fd;

	ATF_REQUIRE_EQ(trace_init(&t, 16, now_monotonic_usec()), 0);
	write_events(&t, 0, 50);
	fd = file_of(&t);
	parse_fd(fd, &log);
	close(fd);
	ATF_CHECK_EQ(log.n, 16);
	ATF_CHECK_EQ(log.dropped, 34);
	ATF_CHECK_EQ(log.e[3].seqnum, 3);
	ATF_CHECK_EQ(log.e[4].seqnum, 38);
	trace_log_free(&log);
	trace_fini(&t);
}

ATF_TC_WITHOUT_HEAD(file_save_replaces_atomically);
ATF_TC_BODY(file_save_replaces_atomically, tc)
{
	struct trace t;
	struct trace_log log;
	struct trace_error err;

	ATF_REQUIRE_EQ(trace_init(&t, 16, now_monotonic_usec()), 0);
	write_events(&t, 0, 3);
	ATF_REQUIRE_EQ(trace_file_save(&t, "."), 0);
	ATF_REQUIRE_EQ(trace_log_load(&log, "./trace", &err), 0);
	ATF_CHECK_EQ(log.n, 3);
	trace_log_free(&log);
	ATF_CHECK_EQ(access("./trace.new", F_OK), -1);
	ATF_CHECK_EQ(trace_file_save(&t, "./missing"), -ENOENT);
	trace_fini(&t);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, records_keep_their_fields);
	ATF_TP_ADD_TC(tp, full_ring_keeps_first_quarter_and_newest);
	ATF_TP_ADD_TC(tp, ring_wraps_many_times);
	ATF_TP_ADD_TC(tp, no_trace_records_nothing);
	ATF_TP_ADD_TC(tp, marks_keep_first_and_newest);
	ATF_TP_ADD_TC(tp, threads_write_without_loss_or_tearing);
	ATF_TP_ADD_TC(tp, file_round_trip);
	ATF_TP_ADD_TC(tp, file_of_a_full_ring_counts_the_loss);
	ATF_TP_ADD_TC(tp, file_save_replaces_atomically);
	return atf_no_error();
}
