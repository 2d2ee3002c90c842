/* SPDX-License-Identifier: MIT */
/*
 * initdev report --svg FILE: the device phase as a timeline, one row per
 * device or module, like systemd-analyze plot. Time runs left to right in
 * ms from the daemon's start; a device's bar shows, for each of its events,
 * the wait for the kernel (trigger written to event received), the queue,
 * then each handler in its colour; a module's bar its insertion.
 *
 * Readable at thousands of devices: only the pending devices and the
 * slowest (at most REPORT_DEVICE_ROWS, each at least REPORT_FAST_US in
 * handlers) get rows of their own; every other device is a tick in one
 * row per subsystem. Every device and module is an element with a <title>
 * (its devpath or name and times), folded or not.
 */
#include "cli/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PAD 10
#define LABEL_W 320
#define ROW_H 16
#define BAR_H 10
#define WAIT_H 4
#define TOP 100      /* title, two lines of text, the legend, the axis */
#define PLOT_MIN 800 /* px */
#define PLOT_MAX 3000
#define PX_PER_MS 2.0 /* below PLOT_MAX */
#define LABEL_MAX 52  /* characters */

#define C_KERNEL "#bab0ac"  /* trigger written .. event received */
#define C_QUEUE "#f1ce63"   /* received .. a handler begins */
#define C_PENDING "url(#pending)" /* not done by the end: red stripes */
#define C_LOADED "#f28e2b"
#define C_FAILED "#b2182b"
#define C_OTHER "#c9b4d9" /* already, blacklisted, no device */

struct svg {
	FILE *f;
	const struct report *r;
	double scale; /* px per us */
	double plot_w;
	double y;      /* the current row's top */
	uint64_t span; /* us shown */
};

/* A row: a device, a module, or the folded devices of one subsystem. */
struct row {
	uint64_t first;
	const struct report_device *dev;
	const struct report_module *mod;
	const size_t *fold; /* a fold row: indexes of devices (dev: the first), or of
			     * modules (mod set) */
	size_t nfold;
};

static const struct {
	const char *name, *color;
} known[] = {
	{ "devnode", "#4e79a7" },
	{ "disk", "#59a14f" },
	{ "modload", "#76b7b2" },
	{ "rules", "#b07aa1" },
};
static const char *const palette[] = { "#9c755f", "#ff9da7", "#79706e", "#d37295" };

static const char *handler_color(const char *name, unsigned int i)
{
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (strcmp(known[k].name, name) == 0)
			return known[k].color;
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

static const char *phase_color(const char *name)
{
	static const struct {
		const char *name, *color;
	} phases[] = {
		{ "startup", "#eeeeee" },  { "preload", "#e6dcf2" }, { "coldplug", "#d9e7f5" },
		{ "settling", "#fbeacd" }, { "settled", "#dcefd6" },
	};

	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++)
		if (strcmp(phases[i].name, name) == 0)
			return phases[i].color;
	return "#f4f4f4";
}

static const char *module_color(int result)
{
	if (result == 0)
		return C_LOADED;
	if (result > 0 || result == -EEXIST || result == -ENODEV)
		return C_OTHER;
	return C_FAILED;
}

/* Text of the trace (printable ASCII) as XML character data, cut at max. */
static void xml(FILE *f, const char *s, size_t max)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n && i < max; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(s[i], f);
		}
	}
	if (n > max)
		fputs("...", f);
}

static double ms(uint64_t us)
{
	return (double)us / 1000.0;
}

static double x_of(const struct svg *s, uint64_t t)
{
	return PAD + LABEL_W + (double)(t > s->span ? s->span : t) * s->scale;
}

/* A bar from t0 to t1 in the current row, h px high, at least min_px wide. */
static void bar_h(struct svg *s, uint64_t t0, uint64_t t1, const char *color, double min_px, int h)
{
	double x = x_of(s, t0), w = x_of(s, t1) - x;

	if (w < min_px)
		w = min_px;
	if (w <= 0.01)
		return;
	fprintf(s->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>", x,
		s->y + (ROW_H - h) / 2.0, w, h, color);
}

static void bar(struct svg *s, uint64_t t0, uint64_t t1, const char *color, double min_px)
{
	bar_h(s, t0, t1, color, min_px, BAR_H);
}

/* Waiting (for the kernel, in the queue): thin, so that the work stands out. */
static void wait_bar(struct svg *s, uint64_t t0, uint64_t t1, const char *color)
{
	bar_h(s, t0, t1, color, 0, WAIT_H);
}

static void label(struct svg *s, const char *prefix, const char *text, const char *suffix,
		  const char *color)
{
	fprintf(s->f, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s", PAD, s->y + ROW_H - 4, color,
		prefix);
	xml(s->f, text, LABEL_MAX);
	xml(s->f, suffix, LABEL_MAX);
	fputs("</text>", s->f);
}

/* ---- one device: each event's wait for the kernel, queue, handlers ---- */

static void event_bars(struct svg *s, const struct report_event *e, bool folded)
{
	const struct trace_log *log = s->r->log;
	const struct trace_entry *h = e->handled;
	uint64_t t;

	if (e->trigger)
		wait_bar(s, e->trigger->t, e->ev->t, C_KERNEL);
	if (e->pending)
		bar(s, e->ev->t, log->end, C_PENDING, 1);
	if (!h)
		return;
	wait_bar(s, e->ev->t, h->t, C_QUEUE);
	t = h->t;
	for (unsigned int i = 0; i < h->nh && i < log->nhandlers; i++) {
		bar(s, t, t + h->hdur[i], handler_color(log->handler[i], i), 0);
		t += h->hdur[i];
	}
	/* however short, an event shows */
	bar(s, h->t + h->dur, h->t + h->dur, folded ? "#555555" : "#333333", 1);
}

static void device_title(struct svg *s, const struct report_device *d)
{
	fputs("<title>", s->f);
	xml(s->f, d->devpath, SIZE_MAX);
	fputs(" (", s->f);
	xml(s->f, d->subsystem, SIZE_MAX);
	fprintf(s->f, "): %.3f ms in handlers, %zu events, from %.3f to %.3f ms%s%s</title>",
		ms(d->handling), d->nev, ms(d->first), ms(d->last),
		d->pending ? ", pending at the end" : "",
		d->no_reply_pending ? " (no reply to its trigger)" : "");
}

static void device_row(struct svg *s, const struct report_device *d)
{
	fputs("<g class=\"device\">", s->f);
	device_title(s, d);
	label(s, "", report_device_label(d), "", d->pending ? C_FAILED : "#222222");
	fprintf(s->f, "<text x=\"%d\" y=\"%.1f\" fill=\"#888888\" text-anchor=\"end\">",
		PAD + LABEL_W - 6, s->y + ROW_H - 4);
	xml(s->f, d->subsystem, 16);
	fputs("</text>", s->f);
	if (d->no_reply_pending)
		bar(s, d->no_reply->t, s->r->log->end, C_PENDING, 1);
	for (size_t i = 0; i < d->nev; i++)
		event_bars(s, &d->ev[i], false);
	fputs("</g>\n", s->f);
}

static void module_row(struct svg *s, const struct report_module *m, bool folded)
{
	char buf[TRACE_RESULT_MAX];

	fprintf(s->f, "<g class=\"module%s\"><title>module ", folded ? " folded" : "");
	xml(s->f, m->e->name, SIZE_MAX);
	fprintf(s->f, ": %s, %.3f ms from %.3f ms", trace_module_result(m->e->result, buf),
		ms(m->e->dur), ms(m->e->t));
	if (m->dev) {
		fputs(", for ", s->f);
		xml(s->f, m->dev->devpath, SIZE_MAX);
	}
	fputs("</title>", s->f);
	if (!folded)
		label(s, "module ", m->e->name, "", "#7a3b00");
	bar(s, m->e->t, m->e->t + m->e->dur, module_color(m->e->result), 1);
	fputs("</g>\n", s->f);
}

/* Every device of one subsystem (or every module) that has no row of its own. */
static void fold_row(struct svg *s, const struct row *row)
{
	const struct report *r = s->r;
	bool modules = row->mod != NULL;
	uint64_t most = 0;
	char text[96];

	for (size_t i = 0; i < row->nfold; i++) {
		uint64_t v = modules ? r->mod[row->fold[i]].e->dur : r->dev[row->fold[i]].handling;

		most = v > most ? v : most;
	}
	if (row->nfold == 1)
		snprintf(text, sizeof(text), ": 1 %s, %.3f ms", modules ? "module" : "device",
			 ms(most));
	else
		snprintf(text, sizeof(text), ": %zu %s, each <= %.3f ms", row->nfold,
			 modules ? "modules" : "devices", ms(most));
	fputs("<g class=\"fold\">", s->f);
	label(s, "", modules ? "more modules" : row->dev->subsystem, text, "#555555");
	for (size_t i = 0; i < row->nfold; i++) {
		const struct report_device *d = &r->dev[row->fold[i]];

		if (modules) {
			module_row(s, &r->mod[row->fold[i]], true);
			continue;
		}
		fputs("<g class=\"device folded\">", s->f);
		device_title(s, d);
		for (size_t k = 0; k < d->nev; k++)
			event_bars(s, &d->ev[k], true);
		fputs("</g>", s->f);
	}
	fputs("</g>\n", s->f);
}

/* ---- the rows, in time order; the folds after them ---- */

static int by_first(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

static int by_subsystem(const void *a, const void *b, void *u)
{
	const struct report *r = u;
	const struct report_device *x = &r->dev[*(const size_t *)a];
	const struct report_device *y = &r->dev[*(const size_t *)b];
	int c = strcmp(x->subsystem, y->subsystem);

	return c ? c : x->first < y->first ? -1 : x->first > y->first;
}

struct rows {
	struct row *v;
	size_t n, nfolds;
	size_t *folded; /* device indexes by subsystem, then module indexes */
};

/* One fold row per run of folded devices with the same subsystem. */
static void add_folds(const struct report *r, struct rows *rs, size_t nfolded)
{
	size_t start = rs->n;

	for (size_t i = 0; i < nfolded;) {
		const struct report_device *d = &r->dev[rs->folded[i]];
		size_t j = i;

		while (j < nfolded && strcmp(r->dev[rs->folded[j]].subsystem, d->subsystem) == 0)
			j++;
		rs->v[rs->n++] = (struct row){ .first = d->first,
					       .dev = d,
					       .fold = rs->folded + i,
					       .nfold = j - i };
		i = j;
	}
	qsort(rs->v + start, rs->n - start, sizeof(*rs->v), by_first);
}

static int make_rows(const struct report *r, struct rows *rs)
{
	size_t nfolded = 0, nmods = 0;

	rs->v = calloc(r->ndev + r->nmod + 2, sizeof(*rs->v));
	rs->folded = calloc(r->ndev + r->nmod + 1, sizeof(*rs->folded));
	if (!rs->v || !rs->folded)
		return -ENOMEM;
	for (size_t i = 0; i < r->ndev; i++) {
		if (r->dev[i].row)
			rs->v[rs->n++] = (struct row){ .first = r->dev[i].first,
						       .dev = &r->dev[i] };
		else
			rs->folded[nfolded++] = i;
	}
	for (size_t i = 0; i < r->nmod; i++) {
		if (r->mod[i].row)
			rs->v[rs->n++] = (struct row){ .first = r->mod[i].e->t, .mod = &r->mod[i] };
		else
			rs->folded[nfolded + nmods++] = i;
	}
	qsort(rs->v, rs->n, sizeof(*rs->v), by_first);
	qsort_r(rs->folded, nfolded, sizeof(*rs->folded), by_subsystem, (void *)r);
	add_folds(r, rs, nfolded);
	if (nmods)
		rs->v[rs->n++] = (struct row){ .mod = &r->mod[rs->folded[nfolded]],
					       .fold = rs->folded + nfolded,
					       .nfold = nmods };
	return 0;
}

/* ---- the frame: title, legend, axis, phases ---- */

static void legend_item(struct svg *s, double *x, const char *color, const char *text)
{
	fprintf(s->f,
		"<rect x=\"%.1f\" y=\"66\" width=\"12\" height=\"10\" fill=\"%s\"/>"
		"<text x=\"%.1f\" y=\"75\">%s</text>",
		*x, color, *x + 16, text);
	*x += 26 + 5.8 * (double)strlen(text);
}

static void legend(struct svg *s)
{
	const struct trace_log *log = s->r->log;
	double x = PAD;

	legend_item(s, &x, C_KERNEL, "trigger written .. event received");
	legend_item(s, &x, C_QUEUE, "queued");
	for (unsigned int i = 0; i < log->nhandlers; i++)
		legend_item(s, &x, handler_color(log->handler[i], i), log->handler[i]);
	legend_item(s, &x, C_PENDING, "pending at the end");
	legend_item(s, &x, C_LOADED, "module loaded");
	legend_item(s, &x, C_OTHER, "module: no device, already, blacklisted");
	legend_item(s, &x, C_FAILED, "module failed");
}

static void header(struct svg *s, double width, double height)
{
	const struct report *r = s->r;

	fprintf(s->f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<defs><pattern id=\"pending\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<rect width=\"6\" height=\"6\" fill=\"#fbd4d4\"/>"
		"<rect width=\"3\" height=\"6\" fill=\"#e15759\"/></pattern></defs>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
		"<text x=\"%d\" y=\"22\" font-size=\"16\" font-weight=\"bold\">initdev: "
		"where the device phase's time went</text>\n",
		width, height, PAD);
	fprintf(s->f, "<text x=\"%d\" y=\"40\">%zu devices, %zu module insertions; ", PAD, r->ndev,
		r->nmod);
	if (r->settled)
		fprintf(s->f, "settled at %.3f ms; ", ms(r->settled_at));
	else
		fputs("not settled by the end; ", s->f);
	fprintf(s->f, "trace ends at %.3f ms; %llu records lost</text>\n", ms(r->log->end),
		(unsigned long long)r->log->dropped);
	fprintf(s->f,
		"<text x=\"%d\" y=\"56\">Time in ms from the daemon's start (%.3f s after "
		"boot). Devices under %.3f ms in handlers, and beyond the %d slowest, are "
		"ticks in one row per subsystem.</text>\n",
		PAD, (double)r->log->start_monotonic_us / 1e6, ms(REPORT_FAST_US),
		REPORT_DEVICE_ROWS);
	legend(s);
}

/* A tick every 1, 2 or 5 x 10^k us, at least 90 px apart. */
static uint64_t tick_step(const struct svg *s)
{
	for (uint64_t p = 1;; p *= 10) {
		static const unsigned int m[] = { 1, 2, 5 };

		for (size_t i = 0; i < 3; i++)
			if ((double)(p * m[i]) * s->scale >= 90 || p * m[i] >= s->span)
				return p * m[i];
	}
}

static void axis(struct svg *s, double bottom)
{
	uint64_t step = tick_step(s);

	for (uint64_t t = 0; t <= s->span; t += step) {
		double x = x_of(s, t);

		fprintf(s->f,
			"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"#dddddd\"/>"
			"<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%g ms</text>\n",
			x, TOP - 2, x, bottom, x, TOP - 6, ms(t));
		if (s->span - t < step)
			break;
	}
}

static void phase_band(struct svg *s)
{
	const struct trace_log *log = s->r->log;

	label(s, "", "phases", "", "#222222");
	for (unsigned int i = 0; i < log->nphases; i++) {
		uint64_t to = i + 1 < log->nphases ? log->phase[i + 1].t : log->end;
		double x = x_of(s, log->phase[i].t), w = x_of(s, to) - x;

		fprintf(s->f, "<g><title>%s: %.3f .. %.3f ms</title>", log->phase[i].name,
			ms(log->phase[i].t), ms(to));
		bar(s, log->phase[i].t, to, phase_color(log->phase[i].name), 1);
		if (w > 60)
			fprintf(s->f, "<text x=\"%.2f\" y=\"%.1f\" fill=\"#444444\">%s</text>",
				x + 3, s->y + ROW_H - 4, log->phase[i].name);
		fputs("</g>\n", s->f);
	}
	s->y += ROW_H;
}

static void settled_line(struct svg *s, double bottom)
{
	double x;

	if (!s->r->settled)
		return;
	x = x_of(s, s->r->settled_at);
	fprintf(s->f,
		"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"#2ca02c\" "
		"stroke-dasharray=\"4 3\"><title>settled at %.3f ms</title></line>\n",
		x, TOP, x, bottom, ms(s->r->settled_at));
}

static void draw(struct svg *s, const struct rows *rs)
{
	double bottom = TOP + (double)(rs->n + 1) * ROW_H;
	double width = 2 * PAD + LABEL_W + s->plot_w + 30; /* room for the last tick's label */

	header(s, width, bottom + PAD);
	axis(s, bottom);
	s->y = TOP;
	phase_band(s);
	for (size_t i = 0; i < rs->n; i++, s->y += ROW_H) {
		const struct row *row = &rs->v[i];

		if (i % 2)
			fprintf(s->f,
				"<rect x=\"0\" y=\"%.1f\" width=\"%.0f\" height=\"%d\" "
				"fill=\"#f7f7f7\" fill-opacity=\"0.6\"/>",
				s->y, width, ROW_H);
		if (row->fold)
			fold_row(s, row);
		else if (row->dev)
			device_row(s, row->dev);
		else
			module_row(s, row->mod, false);
	}
	settled_line(s, bottom);
	fputs("</svg>\n", s->f);
}

int report_write_svg(const struct report *r, const char *path)
{
	struct svg s = { .r = r };
	struct rows rs = { 0 };
	int e = make_rows(r, &rs);

	s.span = r->log->end > 1000 ? r->log->end : 1000;
	s.plot_w = ms(s.span) * PX_PER_MS;
	s.plot_w = s.plot_w < PLOT_MIN ? PLOT_MIN : s.plot_w > PLOT_MAX ? PLOT_MAX : s.plot_w;
	s.scale = s.plot_w / (double)s.span;
	if (e == 0 && !(s.f = fopen(path, "we")))
		e = -errno;
	if (e == 0) {
		draw(&s, &rs);
		if (ferror(s.f))
			e = -EIO;
		if (fclose(s.f) != 0 && e == 0)
			e = -errno;
	}
	free(rs.v);
	free(rs.folded);
	return e;
}
