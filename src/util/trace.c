/* SPDX-License-Identifier: MIT */
#include "util/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

#define WORDS (sizeof(struct trace_rec) / sizeof(uint64_t))
_Static_assert(sizeof(struct trace_rec) % sizeof(uint64_t) == 0, "records are whole words");

/*
 * A record is copied in and out word by word with relaxed atomics, between
 * the stamp's stores and loads (a seqlock per slot): no data race, and on
 * x86 plain moves. A writer stalled while the ring laps it entirely (cap -
 * keep records written meanwhile) could still mix two records; the file's
 * reader treats every field as hostile, so that costs a wrong line, no more.
 */
struct trace_slot {
	_Atomic uint64_t stamp; /* record index + 1 once complete; 0 while written */
	_Atomic uint64_t word[WORDS];
};

int trace_init(struct trace *t, size_t slots, uint64_t start_usec)
{
	memset(t, 0, sizeof(*t));
	t->start = start_usec;
	if (slots < 4)
		return -EINVAL;
	/* calloc of this size maps fresh pages: memory is used as records come */
	t->slots = calloc(slots, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->cap = slots;
	t->keep = slots / 4;
	return 0;
}

void trace_fini(struct trace *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->keep = 0;
}

static bool on(const struct trace *t)
{
	return t && t->slots;
}

uint64_t trace_now(const struct trace *t)
{
	uint64_t now;

	if (!on(t))
		return 0;
	now = now_monotonic_usec();
	return now > t->start ? now - t->start : 0;
}

static size_t slot_of(const struct trace *t, uint64_t i)
{
	return i < t->keep ? (size_t)i : t->keep + (size_t)((i - t->keep) % (t->cap - t->keep));
}

static void put(struct trace *t, const struct trace_rec *r)
{
	uint64_t w[WORDS], i = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
	struct trace_slot *s = &t->slots[slot_of(t, i)];

	memcpy(w, r, sizeof(w));
	atomic_store_explicit(&s->stamp, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (size_t k = 0; k < WORDS; k++)
		atomic_store_explicit(&s->word[k], w[k], memory_order_relaxed);
	atomic_store_explicit(&s->stamp, i + 1, memory_order_release);
}

/* Record i, if it is complete and still there. */
static bool get(const struct trace *t, uint64_t i, struct trace_rec *r)
{
	struct trace_slot *s = &t->slots[slot_of(t, i)];
	uint64_t w[WORDS];

	if (atomic_load_explicit(&s->stamp, memory_order_acquire) != i + 1)
		return false;
	for (size_t k = 0; k < WORDS; k++)
		w[k] = atomic_load_explicit(&s->word[k], memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&s->stamp, memory_order_relaxed) != i + 1)
		return false;
	memcpy(r, w, sizeof(*r));
	return true;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Copy src, or "..." and its tail if it does not fit. True if cut. */
static bool copy_tail(char *dst, size_t size, const char *src)
{
	size_t len = strlen(src);

	if (len < size) {
		memcpy(dst, src, len + 1);
		return false;
	}
	memcpy(dst, "...", 3);
	memcpy(dst + 3, src + len - (size - 4), size - 4);
	dst[size - 1] = '\0';
	return true;
}

/* Copy src, cut at the end if it does not fit. True if cut. */
static bool copy_head(char *dst, size_t size, const char *src)
{
	size_t len = strnlen(src, size);

	memcpy(dst, src, len < size ? len : size - 1);
	dst[len < size ? len : size - 1] = '\0';
	return len >= size;
}

void trace_trigger(struct trace *t, const char *devpath)
{
	struct trace_rec r = { .kind = TRACE_TRIGGER };

	if (!on(t))
		return;
	r.t = trace_now(t);
	if (copy_tail(r.u.dev.devpath, sizeof(r.u.dev.devpath), devpath))
		r.flags |= TRACE_CUT;
	put(t, &r);
}

void trace_event(struct trace *t, uint64_t seqnum, const char *action, const char *subsystem,
		 const char *devpath)
{
	struct trace_rec r = { .kind = TRACE_EVENT, .seqnum = seqnum };
	bool cut;

	if (!on(t))
		return;
	r.t = trace_now(t);
	cut = copy_head(r.u.dev.action, sizeof(r.u.dev.action), action);
	cut |= copy_head(r.u.dev.subsystem, sizeof(r.u.dev.subsystem), subsystem);
	cut |= copy_tail(r.u.dev.devpath, sizeof(r.u.dev.devpath), devpath);
	r.flags = cut ? TRACE_CUT : 0;
	put(t, &r);
}

void trace_mark(struct trace *t, const char *name)
{
	if (!on(t))
		return;
	if (t->nmarks == TRACE_MARKS_MAX) {
		/* the first ones and the newest are what a reader needs */
		t->marks_dropped++;
		t->nmarks--;
	}
	t->marks[t->nmarks++] = (struct trace_mark){ trace_now(t), name };
}

void trace_name_handler(struct trace *t, unsigned int i, const char *name)
{
	if (!on(t) || i >= TRACE_HANDLERS_MAX)
		return;
	(void)copy_head(t->handler[i], sizeof(t->handler[i]), name);
	if (i >= t->nhandlers)
		t->nhandlers = i + 1;
}

void trace_span_begin(const struct trace *t, struct trace_span *s)
{
	s->n = 0;
	if (on(t))
		s->start = s->last = now_monotonic_usec();
}

void trace_span_step(const struct trace *t, struct trace_span *s, unsigned int i)
{
	uint64_t now;

	if (!on(t) || i >= TRACE_HANDLERS_MAX)
		return;
	now = now_monotonic_usec();
	while (s->n < i)
		s->dur[s->n++] = 0;
	s->dur[i] = clamp32(now - s->last);
	s->last = now;
	if (s->n <= i)
		s->n = i + 1;
}

void trace_span_end(struct trace *t, const struct trace_span *s, uint64_t seqnum, bool worker)
{
	struct trace_rec r = { .kind = TRACE_HANDLED, .seqnum = seqnum };

	if (!on(t))
		return;
	r.t = s->start > t->start ? s->start - t->start : 0;
	r.dur = clamp32(s->last - s->start);
	r.flags = worker ? TRACE_WORKER : 0;
	r.nhandlers = (uint8_t)s->n;
	memcpy(r.u.hdur, s->dur, s->n * sizeof(s->dur[0]));
	put(t, &r);
}

void trace_module(struct trace *t, uint64_t start, const char *name, uint64_t seqnum, int result)
{
	struct trace_rec r = { .kind = TRACE_MODULE, .seqnum = seqnum, .result = result };
	uint64_t now;

	if (!on(t))
		return;
	now = trace_now(t);
	r.t = start;
	r.dur = clamp32(now > start ? now - start : 0);
	if (copy_head(r.u.module, sizeof(r.u.module), name))
		r.flags |= TRACE_CUT;
	put(t, &r);
}

void trace_foreach(const struct trace *t, void (*fn)(void *u, const struct trace_rec *r), void *u,
		   struct trace_totals *tot)
{
	uint64_t n, ring, head_end, tail;
	struct trace_rec r;

	*tot = (struct trace_totals){ 0 };
	if (!on(t))
		return;
	n = atomic_load_explicit(&t->next, memory_order_acquire);
	ring = t->cap - t->keep;
	head_end = n < t->keep ? n : t->keep;
	tail = n > t->keep + ring ? n - ring : t->keep;
	tot->written = n;
	tot->dropped = tail - t->keep;
	for (uint64_t i = 0; i < n; i = i + 1 == head_end ? tail : i + 1) {
		if (!get(t, i, &r)) {
			tot->dropped++;
			continue;
		}
		tot->kept++;
		fn(u, &r);
	}
}
