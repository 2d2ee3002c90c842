/* SPDX-License-Identifier: MIT */
#include "engine/status.h"

#include <stdarg.h>
#include <stdio.h>

struct out {
	char *buf;
	size_t size, len;
	bool json;
	bool in_group; /* text: keys of a group are indented */
	int items;     /* in the current JSON object, for commas */
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void num(struct out *o, const char *key, unsigned long long v)
{
	if (o->json)
		put(o, "%s\"%s\":%llu", o->items++ ? "," : "", key, v);
	else
		put(o, "%s%s: %llu\n", o->in_group ? "  " : "", key, v);
}

static void str(struct out *o, const char *key, const char *v)
{
	if (o->json)
		put(o, "%s\"%s\":\"%s\"", o->items++ ? "," : "", key, v);
	else
		put(o, "%s: %s\n", key, v);
}

static void open_group(struct out *o, const char *name)
{
	if (o->json)
		put(o, "%s\"%s\":{", o->items++ ? "," : "", name);
	else
		put(o, "%s:\n", name);
	o->items = 0;
	o->in_group = true;
}

static void close_group(struct out *o)
{
	if (o->json)
		put(o, "}");
	o->items = 1;
	o->in_group = false;
}

static void events(struct out *o, struct engine *e)
{
	const struct gate_stats *g = &e->gate.stats;

	open_group(o, "events");
	num(o, "accepted", g->accepted);
	num(o, "handled", e->events_handled);
	num(o, "rejected", gate_rejected_total(g));
	for (int v = GATE_ACCEPT + 1; v < GATE_VERDICT_COUNT; v++)
		num(o, gate_verdict_name(v), g->rejected[v]);
	num(o, "overflows", g->overflows);
	num(o, "rescans", e->rescans);
	num(o, "queued", queue_pending(&e->queue));
	close_group(o);
}

static void devices(struct out *o, struct engine *e)
{
	struct devnode_stats s;

	devnode_snapshot(&e->devnode, &s);
	open_group(o, "devices");
	num(o, "present", e->devices.n);
	num(o, "nodes", devnode_count(&e->devnode));
	num(o, "nodes_created", s.nodes_created);
	num(o, "nodes_removed", s.nodes_removed);
	num(o, "links", s.links);
	num(o, "errors", s.errors);
	num(o, "triggers", e->triggers);
	num(o, "trigger_errors", e->trigger_errors);
	num(o, "awaiting_reply", settle_pending(&e->settle));
	close_group(o);
}

static void modules(struct out *o, struct engine *e)
{
	struct modload_stats s;
	unsigned int inflight;

	modload_snapshot(&e->modload, &s, &inflight);
	open_group(o, "modules");
	num(o, "loaded", s.loaded);
	num(o, "failed", s.failed);
	num(o, "blacklisted", s.blacklisted);
	num(o, "already", s.already);
	num(o, "aliases", s.aliases);
	num(o, "unresolved", s.unresolved);
	num(o, "loading", inflight);
	close_group(o);
}

static void phases(struct out *o, struct engine *e)
{
	uint64_t now = now_monotonic_usec();

	open_group(o, "phase_ms");
	for (int p = 0; p < PHASE_COUNT; p++) {
		uint64_t us = e->phase_usec[p] + (p == (int)e->phase ? now - e->phase_since : 0);

		num(o, engine_phase_name(p), us / 1000);
	}
	close_group(o);
}

size_t status_format(struct engine *e, bool json, char *buf, size_t size)
{
	struct out o = { buf, size, 0, json, false, 0 };

	if (json)
		put(&o, "{");
	str(&o, "phase", engine_phase_name(e->phase));
	str(&o, "settled", e->settled ? "yes" : "no");
	str(&o, "dev_mode", e->devtmpfs ? "devtmpfs" : "mknod");
	num(&o, "uptime_ms", (now_monotonic_usec() - e->start_usec) / 1000);
	events(&o, e);
	devices(&o, e);
	modules(&o, e);
	phases(&o, e);
	if (json)
		put(&o, "}\n");
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}
