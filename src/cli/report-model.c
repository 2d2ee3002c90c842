/* SPDX-License-Identifier: MIT */
/*
 * From trace records to devices and modules. A device is a devpath: its
 * events in time order, each with the trigger written before it (the
 * latest one since the device's previous event) and its handling (by
 * SEQNUM). A trigger after a device's last event got no reply; an event
 * without handling was still pending at the end. When the trace lost the
 * middle of the run, what may have been lost with it is not called pending.
 */
#include "cli/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef const struct trace_entry *entry_p;

static int by_name_time(const void *a, const void *b)
{
	entry_p x = *(const entry_p *)a, y = *(const entry_p *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line; /* file order */
}

static int by_seqnum(const void *a, const void *b)
{
	entry_p x = *(const entry_p *)a, y = *(const entry_p *)b;

	if (x->seqnum != y->seqnum)
		return x->seqnum < y->seqnum ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The first entry with this seqnum in v (sorted by_seqnum); NULL if none. */
static entry_p find_seqnum(entry_p *v, size_t n, uint64_t seqnum)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid]->seqnum < seqnum)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo]->seqnum == seqnum ? v[lo] : NULL;
}

/* Entries sorted for the walk: triggers and events by devpath, handled and
 * events by seqnum. */
struct sorted {
	entry_p *trig, *ev, *hand, *ev_seq;
	size_t ntrig, nev, nhand;
};

static void sorted_free(struct sorted *s)
{
	free(s->trig);
	free(s->ev);
	free(s->hand);
	free(s->ev_seq);
}

static int sort_entries(struct sorted *s, const struct trace_log *log)
{
	size_t n = log->n ? log->n : 1;

	*s = (struct sorted){ .trig = calloc(n, sizeof(entry_p)),
			      .ev = calloc(n, sizeof(entry_p)),
			      .hand = calloc(n, sizeof(entry_p)),
			      .ev_seq = calloc(n, sizeof(entry_p)) };
	if (!s->trig || !s->ev || !s->hand || !s->ev_seq)
		return -ENOMEM;
	for (size_t i = 0; i < log->n; i++) {
		entry_p e = &log->e[i];

		if (e->kind == TRACE_TRIGGER) {
			s->trig[s->ntrig++] = e;
		} else if (e->kind == TRACE_EVENT) {
			s->ev[s->nev] = e;
			s->ev_seq[s->nev++] = e;
		} else if (e->kind == TRACE_HANDLED) {
			s->hand[s->nhand++] = e;
		}
	}
	qsort(s->trig, s->ntrig, sizeof(entry_p), by_name_time);
	qsort(s->ev, s->nev, sizeof(entry_p), by_name_time);
	qsort(s->ev_seq, s->nev, sizeof(entry_p), by_seqnum);
	qsort(s->hand, s->nhand, sizeof(entry_p), by_seqnum);
	return 0;
}

/* Lost with the middle of the run? Only what happened before its end can be. */
static bool maybe_lost(const struct report *r, uint64_t t)
{
	return r->log->dropped > 0 && t < r->gap_to;
}

static void device_times(struct report *r, struct report_device *d)
{
	uint64_t end = r->log->end;

	d->first = UINT64_MAX;
	for (size_t i = 0; i < d->nev; i++) {
		struct report_event *e = &d->ev[i];
		uint64_t from = e->trigger ? e->trigger->t : e->ev->t;
		uint64_t to = e->handled ? e->handled->t + e->handled->dur : e->ev->t;

		if (!e->handled && !maybe_lost(r, e->ev->t)) {
			e->pending = true;
			to = end;
			d->pending = true;
			r->pending_events++;
		}
		/* an edited file may put a handling before its event: keep first <= last */
		to = to > from ? to : from;
		d->first = from < d->first ? from : d->first;
		d->last = to > d->last ? to : d->last;
		d->handling += e->handled ? e->handled->dur : 0;
	}
	if (d->no_reply && !maybe_lost(r, d->no_reply->t)) {
		d->pending = d->no_reply_pending = true;
		d->last = end;
		r->pending_triggers++;
	}
	if (d->no_reply && d->no_reply->t < d->first)
		d->first = d->no_reply->t;
	if (d->no_reply && d->no_reply->t > d->last)
		d->last = d->no_reply->t;
}

/* One devpath: its triggers trig[0..nt) and events ev[0..ne), by time. */
static void add_device(struct report *r, const struct sorted *s, entry_p *trig, size_t nt,
		       entry_p *ev, size_t ne)
{
	struct report_device *d = &r->dev[r->ndev++];
	size_t k = 0;

	*d = (struct report_device){ .devpath = nt ? trig[0]->name : ev[0]->name,
				     .subsystem = ne ? ev[ne - 1]->subsystem : "-",
				     .ev = r->events + r->nevents,
				     .nev = ne };
	for (size_t i = 0; i < ne; i++) {
		struct report_event *e = &r->events[r->nevents++];

		*e = (struct report_event){ .ev = ev[i] };
		r->owner[ev[i] - r->log->e] = d;
		/* the latest trigger since the previous event asked for this one */
		while (k < nt && trig[k]->t <= ev[i]->t)
			e->trigger = trig[k++];
		e->handled = find_seqnum(s->hand, s->nhand, ev[i]->seqnum);
	}
	if (k < nt)
		d->no_reply = trig[nt - 1];
	device_times(r, d);
}

/* The smaller of the devpaths at trig[i] and ev[j] (either may be at its end). */
static const char *next_devpath(const struct sorted *s, size_t i, size_t j)
{
	if (i == s->ntrig)
		return s->ev[j]->name;
	if (j == s->nev)
		return s->trig[i]->name;
	return strcmp(s->trig[i]->name, s->ev[j]->name) <= 0 ? s->trig[i]->name : s->ev[j]->name;
}

/* Walk triggers and events, both sorted by devpath, one device at a time. */
static void add_devices(struct report *r, const struct sorted *s)
{
	size_t i = 0, j = 0;

	while (i < s->ntrig || j < s->nev) {
		const char *name = next_devpath(s, i, j);
		size_t i2 = i, j2 = j;

		while (i2 < s->ntrig && strcmp(s->trig[i2]->name, name) == 0)
			i2++;
		while (j2 < s->nev && strcmp(s->ev[j2]->name, name) == 0)
			j2++;
		add_device(r, s, s->trig + i, i2 - i, s->ev + j, j2 - j);
		i = i2;
		j = j2;
	}
}

/* Which device's event (by SEQNUM) asked for a module; NULL if not kept. */
static const struct report_device *device_of_seqnum(const struct report *r, const struct sorted *s,
						    uint64_t seqnum)
{
	entry_p ev = seqnum ? find_seqnum(s->ev_seq, s->nev, seqnum) : NULL;

	return ev ? r->owner[ev - r->log->e] : NULL;
}

static void add_modules(struct report *r, const struct sorted *s)
{
	const struct trace_log *log = r->log;

	for (size_t i = 0; i < log->n; i++) {
		if (log->e[i].kind != TRACE_MODULE)
			continue;
		r->mod[r->nmod++] = (struct report_module){
			.e = &log->e[i],
			.dev = device_of_seqnum(r, s, log->e[i].seqnum)
		};
	}
}

/*
 * Time to settle: the first settle after the first coldplug began (a daemon
 * started without coldplug settles at once, before dracut's `udevadm
 * trigger`); without any coldplug, the first settle.
 */
static void phases(struct report *r)
{
	const struct trace_log *log = r->log;
	bool any_coldplug = false;

	for (unsigned int i = 0; i < log->nphases; i++)
		any_coldplug |= strcmp(log->phase[i].name, "coldplug") == 0;
	for (unsigned int i = 0; i < log->nphases; i++) {
		const char *name = log->phase[i].name;

		if (!r->coldplug && strcmp(name, "coldplug") == 0) {
			r->coldplug = true;
			r->coldplug_at = log->phase[i].t;
		}
		if (!r->settled && strcmp(name, "settled") == 0 && r->coldplug == any_coldplug) {
			r->settled = true;
			r->settled_at = log->phase[i].t;
		}
		r->last_phase = name;
	}
}

/* The records before the gap are the kept first quarter, in file order. */
static void find_gap(struct report *r)
{
	const struct trace_log *log = r->log;
	size_t keep = (size_t)(log->capacity / 4);

	if (log->dropped == 0)
		return;
	r->gap_to = log->end;
	for (size_t i = 0; i < log->n; i++) {
		uint64_t t = log->e[i].t;

		if (i < keep && t > r->gap_from)
			r->gap_from = t;
		if (i >= keep && t < r->gap_to)
			r->gap_to = t;
	}
}

static void count_orphans(struct report *r, const struct sorted *s)
{
	for (size_t i = 0; i < s->nhand; i++)
		if (!find_seqnum(s->ev_seq, s->nev, s->hand[i]->seqnum))
			r->orphans++;
}

/* ---- the slowest, and the rows of the picture ---- */

static int dev_slower(const void *a, const void *b, void *u)
{
	const struct report *r = u;
	const struct report_device *x = &r->dev[*(const size_t *)a];
	const struct report_device *y = &r->dev[*(const size_t *)b];

	if (x->pending != y->pending)
		return x->pending ? -1 : 1;
	if (x->handling != y->handling)
		return x->handling > y->handling ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int mod_slower(const void *a, const void *b, void *u)
{
	const struct report *r = u;
	const struct report_module *x = &r->mod[*(const size_t *)a];
	const struct report_module *y = &r->mod[*(const size_t *)b];

	if (x->e->dur != y->e->dur)
		return x->e->dur > y->e->dur ? -1 : 1;
	return x->e->t < y->e->t ? -1 : x->e->t > y->e->t;
}

static int rank(struct report *r)
{
	size_t n = r->ndev > r->nmod ? r->ndev : r->nmod;
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < r->ndev; i++)
		idx[i] = i;
	qsort_r(idx, r->ndev, sizeof(*idx), dev_slower, r);
	for (size_t i = 0, rows = 0; i < r->ndev; i++) {
		struct report_device *d = &r->dev[idx[i]];

		if ((d->pending || d->handling >= REPORT_FAST_US) && rows < REPORT_DEVICE_ROWS) {
			d->row = true;
			rows++;
		}
		if (d->handling > 0 && r->nslow_dev < REPORT_TOP)
			r->slow_dev[r->nslow_dev++] = idx[i];
	}
	for (size_t i = 0; i < r->nmod; i++)
		idx[i] = i;
	qsort_r(idx, r->nmod, sizeof(*idx), mod_slower, r);
	for (size_t i = 0; i < r->nmod; i++) {
		r->mod[idx[i]].row = i < REPORT_MODULE_ROWS;
		if (i < REPORT_TOP)
			r->slow_mod[r->nslow_mod++] = idx[i];
	}
	free(idx);
	return 0;
}

static int allocate(struct report *r, const struct sorted *s)
{
	size_t n = r->log->n ? r->log->n : 1;

	r->dev = calloc(s->ntrig + s->nev + 1, sizeof(*r->dev));
	r->events = calloc(s->nev + 1, sizeof(*r->events));
	r->mod = calloc(n, sizeof(*r->mod));
	r->owner = calloc(n, sizeof(*r->owner));
	return r->dev && r->events && r->mod && r->owner ? 0 : -ENOMEM;
}

int report_build(struct report *r, const struct trace_log *log)
{
	struct sorted s;
	int e;

	memset(r, 0, sizeof(*r));
	r->log = log;
	e = sort_entries(&s, log);
	if (e == 0)
		e = allocate(r, &s);
	if (e == 0) {
		r->triggers = s.ntrig;
		find_gap(r);
		add_devices(r, &s);
		add_modules(r, &s);
		count_orphans(r, &s);
		phases(r);
		e = rank(r);
	}
	sorted_free(&s);
	if (e < 0)
		report_free(r);
	return e;
}

void report_free(struct report *r)
{
	free(r->dev);
	free(r->events);
	free(r->mod);
	free(r->owner);
	memset(r, 0, sizeof(*r));
}

const char *report_device_label(const struct report_device *d)
{
	const char *slash = strrchr(d->devpath, '/');

	return slash && slash[1] ? slash + 1 : d->devpath;
}
