/* SPDX-License-Identifier: MIT */
#include "engine/status.h"

#include "util/strbuf.h"

struct out {
	struct strbuf b;
	bool json;
	bool in_group; /* text: keys of a group are indented */
	int items;     /* in the current JSON object, for commas */
};

static void num(struct out *o, const char *key, unsigned long long v)
{
	if (o->json)
		strbuf_printf(&o->b, "%s\"%s\":%llu", o->items++ ? "," : "", key, v);
	else
		strbuf_printf(&o->b, "%s%s: %llu\n", o->in_group ? "  " : "", key, v);
}

static void str(struct out *o, const char *key, const char *v)
{
	if (o->json)
		strbuf_printf(&o->b, "%s\"%s\":\"%s\"", o->items++ ? "," : "", key, v);
	else
		strbuf_printf(&o->b, "%s: %s\n", key, v);
}

static void open_group(struct out *o, const char *name)
{
	if (o->json)
		strbuf_printf(&o->b, "%s\"%s\":{", o->items++ ? "," : "", name);
	else
		strbuf_printf(&o->b, "%s:\n", name);
	o->items = 0;
	o->in_group = true;
}

static void close_group(struct out *o)
{
	if (o->json)
		strbuf_printf(&o->b, "}");
	o->items = 1;
	o->in_group = false;
}

static void events(struct out *o, const struct engine_stats *s)
{
	open_group(o, "events");
	num(o, "accepted", s->gate.accepted);
	num(o, "handled", s->handled);
	num(o, "rejected", gate_rejected_total(&s->gate));
	for (int v = GATE_ACCEPT + 1; v < GATE_VERDICT_COUNT; v++)
		num(o, gate_verdict_name(v), s->gate.rejected[v]);
	num(o, "overflows", s->gate.overflows);
	num(o, "rescans", s->rescans);
	num(o, "queued", s->in_hand);
	num(o, "in_hand_max", s->in_hand_max);
	num(o, "first_seqnum", s->first_seqnum);
	num(o, "last_seqnum", s->last_seqnum);
	close_group(o);
}

/* What a handoff did with the events in hand that outlasted its grace. */
static void handoff(struct out *o, const struct engine_stats *s)
{
	open_group(o, "handoff");
	num(o, "given_back", s->given_back);
	num(o, "abandoned", s->abandoned);
	close_group(o);
}

static void devices(struct out *o, const struct engine_stats *s)
{
	open_group(o, "devices");
	num(o, "present", s->present);
	num(o, "nodes", s->nodes);
	num(o, "nodes_created", s->devnode.nodes_created);
	num(o, "nodes_removed", s->devnode.nodes_removed);
	num(o, "links", s->devnode.links);
	num(o, "errors", s->devnode.errors);
	num(o, "triggers", s->triggers);
	num(o, "trigger_errors", s->trigger_errors);
	num(o, "awaiting_reply", s->awaiting_reply);
	num(o, "untriggered", s->untriggered);
	close_group(o);
}

static void disk(struct out *o, const struct engine_stats *s)
{
	open_group(o, "disk_links");
	num(o, "links", s->disk_links.links);
	num(o, "conflicts", s->disk_links.conflicts);
	num(o, "errors", s->disk_links.errors);
	close_group(o);
}

static void ranks(struct out *o, const struct engine_stats *s)
{
	open_group(o, "root_first");
	num(o, "active", s->root_first);
	num(o, "settled", s->root_settled);
	num(o, "settled_ms", s->root_settled_usec / 1000);
	num(o, "root_events", s->events_root);
	num(o, "other_events", s->handled > s->events_root ? s->handled - s->events_root : 0);
	num(o, "root_triggers_left", s->root_left);
	close_group(o);
}

static void modules(struct out *o, const struct engine_stats *s)
{
	open_group(o, "modules");
	num(o, "loaded", s->modules.loaded);
	num(o, "failed", s->modules.failed);
	num(o, "blacklisted", s->modules.blacklisted);
	num(o, "already", s->modules.already);
	num(o, "aliases", s->modules.aliases);
	num(o, "unresolved", s->modules.unresolved);
	num(o, "loading", s->modules_loading);
	close_group(o);
}

static void rules(struct out *o, const struct engine_stats *s)
{
	open_group(o, "rules");
	num(o, "events", s->rules.events);
	num(o, "runs", s->rules.runs);
	num(o, "run_failures", s->rules.run_failures);
	num(o, "reloads", s->rules.reloads);
	num(o, "db_entries", s->rules.db_entries);
	num(o, "cookies_rescued", s->rules.cookies_rescued);
	close_group(o);
}

/* The daemon's own log: lines /dev/kmsg's rate limit kept out (util/log.h). */
static void log_lines(struct out *o, const struct engine_stats *s)
{
	open_group(o, "log");
	num(o, "kmsg_dropped", s->log_dropped);
	close_group(o);
}

static void phases(struct out *o, const struct engine_stats *s)
{
	open_group(o, "phase_ms");
	for (int p = 0; p < PHASE_COUNT; p++)
		num(o, engine_phase_name(p), s->phase_usec[p] / 1000);
	close_group(o);
}

size_t status_format(const struct engine_stats *s, bool json, char *buf, size_t size)
{
	struct out o = { .json = json };

	strbuf_init(&o.b, buf, size);
	if (json)
		strbuf_printf(&o.b, "{");
	str(&o, "phase", engine_phase_name(s->phase));
	str(&o, "settled", s->settled ? "yes" : "no");
	str(&o, "dev_mode", s->devtmpfs ? "devtmpfs" : "mknod");
	num(&o, "uptime_ms", s->uptime_usec / 1000);
	num(&o, "peak_rss_kib", s->peak_rss_kib);
	events(&o, s);
	handoff(&o, s);
	devices(&o, s);
	disk(&o, s);
	ranks(&o, s);
	modules(&o, s);
	rules(&o, s);
	log_lines(&o, s);
	phases(&o, s);
	if (json)
		strbuf_printf(&o.b, "}\n");
	return o.b.needed;
}
