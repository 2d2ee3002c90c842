/* SPDX-License-Identifier: MIT */
/* initdev report --json: the report as one JSON object (documented in initdev(8)). */
#include "cli/report.h"

#include <string.h>

#include "util/escape.h"

static void str(FILE *f, const char *s)
{
	char buf[4 * TRACE_LINE_MAX]; /* a name of the trace, every byte escaped */

	escape_json(buf, sizeof(buf), s, strlen(s));
	fputs(buf, f);
}

static void key_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, "\"%s\":", key);
	str(f, s);
}

static void print_phases(const struct trace_log *log, FILE *f)
{
	fputs("\"phases\":[", f);
	for (unsigned int i = 0; i < log->nphases; i++) {
		fprintf(f, "%s{", i ? "," : "");
		key_str(f, "name", log->phase[i].name);
		fprintf(f, ",\"at_us\":%llu}", (unsigned long long)log->phase[i].t);
	}
	fputs("],\"handlers\":[", f);
	for (unsigned int i = 0; i < log->nhandlers; i++) {
		fputs(i ? "," : "", f);
		str(f, log->handler[i]);
	}
	fputs("]", f);
}

static void print_opt(FILE *f, const char *key, const struct trace_entry *e, uint64_t v)
{
	if (e)
		fprintf(f, ",\"%s\":%llu", key, (unsigned long long)v);
	else
		fprintf(f, ",\"%s\":null", key);
}

static const char *thread(const struct trace_entry *handled)
{
	if (!handled)
		return "null";
	return handled->worker ? "\"worker\"" : "\"main\"";
}

static void print_event(const struct report *r, const struct report_event *e, FILE *f)
{
	const struct trace_entry *h = e->handled;

	fprintf(f, "{\"seqnum\":%llu,", (unsigned long long)e->ev->seqnum);
	key_str(f, "action", e->ev->action);
	print_opt(f, "trigger_us", e->trigger, e->trigger ? e->trigger->t : 0);
	fprintf(f, ",\"received_us\":%llu", (unsigned long long)e->ev->t);
	print_opt(f, "handled_us", h, h ? h->t : 0);
	print_opt(f, "done_us", h, h ? h->t + h->dur : 0);
	fprintf(f, ",\"thread\":%s,\"pending\":%s,\"handlers\":{", thread(h),
		e->pending ? "true" : "false");
	for (unsigned int i = 0; h && i < h->nh && i < r->log->nhandlers; i++) {
		fprintf(f, "%s\"%s\":%u", i ? "," : "", r->log->handler[i], h->hdur[i]);
	}
	fputs("}}", f);
}

static void print_device(const struct report *r, const struct report_device *d, FILE *f)
{
	fputs("{", f);
	key_str(f, "devpath", d->devpath);
	fputs(",", f);
	key_str(f, "subsystem", d->subsystem);
	fprintf(f, ",\"first_us\":%llu,\"last_us\":%llu,\"handling_us\":%llu,\"pending\":%s",
		(unsigned long long)d->first, (unsigned long long)d->last,
		(unsigned long long)d->handling, d->pending ? "true" : "false");
	print_opt(f, "no_reply_trigger_us", d->no_reply_pending ? d->no_reply : NULL,
		  d->no_reply ? d->no_reply->t : 0);
	fputs(",\"events\":[", f);
	for (size_t i = 0; i < d->nev; i++) {
		fputs(i ? "," : "", f);
		print_event(r, &d->ev[i], f);
	}
	fputs("]}", f);
}

static void print_module(const struct report_module *m, FILE *f)
{
	char buf[TRACE_RESULT_MAX];
	const char *result = trace_module_result(m->e->result, buf);

	fputs("{", f);
	key_str(f, "name", m->e->name);
	fprintf(f, ",\"start_us\":%llu,\"duration_us\":%llu,\"seqnum\":%llu,",
		(unsigned long long)m->e->t, (unsigned long long)m->e->dur,
		(unsigned long long)m->e->seqnum);
	key_str(f, "result", strncmp(result, "error:", 6) == 0 ? "error" : result);
	fprintf(f, ",\"errno\":%d,\"devpath\":", m->e->result < 0 ? -m->e->result : 0);
	if (m->dev)
		str(f, m->dev->devpath);
	else
		fputs("null", f);
	fputs("}", f);
}

static void print_slowest(const struct report *r, FILE *f)
{
	fputs(",\"slowest_devices\":[", f);
	for (size_t i = 0; i < r->nslow_dev; i++) {
		fputs(i ? "," : "", f);
		str(f, r->dev[r->slow_dev[i]].devpath);
	}
	fputs("],\"slowest_modules\":[", f);
	for (size_t i = 0; i < r->nslow_mod; i++) {
		fputs(i ? "," : "", f);
		str(f, r->mod[r->slow_mod[i]].e->name);
	}
	fputs("]", f);
}

void report_print_json(const struct report *r, FILE *f)
{
	const struct trace_log *log = r->log;

	fprintf(f,
		"{\"version\":%u,\"start_monotonic_us\":%llu,\"end_us\":%llu,"
		"\"capacity\":%llu,\"dropped\":%llu,",
		log->version, (unsigned long long)log->start_monotonic_us,
		(unsigned long long)log->end, (unsigned long long)log->capacity,
		(unsigned long long)log->dropped);
	if (r->coldplug)
		fprintf(f, "\"coldplug_us\":%llu,", (unsigned long long)r->coldplug_at);
	else
		fputs("\"coldplug_us\":null,", f);
	if (r->settled)
		fprintf(f, "\"settled_us\":%llu,", (unsigned long long)r->settled_at);
	else
		fputs("\"settled_us\":null,", f);
	print_phases(log, f);
	fputs(",\"devices\":[", f);
	for (size_t i = 0; i < r->ndev; i++) {
		fputs(i ? "," : "", f);
		print_device(r, &r->dev[i], f);
	}
	fputs("],\"modules\":[", f);
	for (size_t i = 0; i < r->nmod; i++) {
		fputs(i ? "," : "", f);
		print_module(&r->mod[i], f);
	}
	fputs("]", f);
	print_slowest(r, f);
	fprintf(f,
		",\"triggers\":%zu,\"pending_triggers\":%zu,\"pending_events\":%zu,"
		"\"orphans\":%zu}\n",
		r->triggers, r->pending_triggers, r->pending_events, r->orphans);
}
