/* SPDX-License-Identifier: MIT */
/*
 * Applying compiled rules to one event, line by line as udev 252 does: a
 * line is skipped unless it can do something for this event (lines that
 * only name links or permissions are skipped for devices without a node
 * and on remove); its tokens run in type order and the first that does not
 * match ends the line; parent matches (KERNELS, SUBSYSTEMS, DRIVERS,
 * ATTRS, TAGS) must all hold on one device, the event's or an ancestor;
 * when everything matched, a GOTO jumps forward to its LABEL.
 */
#include "rules/eval.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rules/match.h"
#include "rules/subst.h"
#include "rules/sysfs.h"
#include "util/escape.h"

void ev_log(const struct evstate *s, int prio, const char *fmt, ...)
{
	char msg[1024], name[EV_ESC_MAX], file[EV_ESC_MAX];
	va_list ap;

	if (!s->ctx->log || prio > s->ctx->log->max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ev_esc(name, s->ev->sysname);
	if (s->line)
		log_msg(s->ctx->log, prio, "%s: %s:%u: %s", name,
			ev_esc(file, s->r->files[s->line->file]), s->line->lineno, msg);
	else
		log_msg(s->ctx->log, prio, "%s: %s", name, msg);
}

const char *ev_esc(char out[EV_ESC_MAX], const char *s)
{
	return escape_log(out, EV_ESC_MAX, s, strlen(s));
}

bool ev_format(const struct evstate *s, const char *str, char *buf, size_t size, const char *what,
	       bool is_match)
{
	char e[EV_ESC_MAX];
	bool trunc;

	subst_apply(s->ctx, s->ev, str, buf, size, false, &trunc);
	if (trunc)
		ev_log(s, is_match ? LOG_DEBUG : LOG_WARNING,
		       "%s '%s' is truncated while substituting, %s", what, ev_esc(e, str),
		       is_match ? "no match" : "refusing it");
	return !trunc;
}

/* The driver of devpath (the event's own from DRIVER= when it had one). */
static const char *driver_of(const struct evstate *s, const char *devpath,
			     char buf[SYSDEV_NAME_MAX])
{
	struct rules_event *ev = s->ev;

	if (strcmp(devpath, ev->devpath) == 0 && ev->driver_known)
		return ev->driver;
	if (rsys_driver(s->ctx->sys, devpath, buf) < 0)
		buf[0] = '\0';
	if (strcmp(devpath, ev->devpath) == 0) {
		snprintf(ev->driver, sizeof(ev->driver), "%s", buf);
		ev->driver_known = true;
	}
	return buf;
}

static bool match_attr(const struct evstate *s, const struct rules_token *t, const char *devpath)
{
	char name[RULES_NAME_MAX], v[SYSDEV_ATTR_MAX + 1];
	const char *n = t->attr;
	bool trunc;

	if (t->subst == RST_SUBSYS) {
		if (rsys_subsys_kernel(s->ctx->sys, s->ctx->sysfs, n, v, RULES_NAME_MAX, true) < 0)
			return false;
	} else {
		if (t->subst == RST_FORMAT) {
			subst_apply(s->ctx, s->ev, n, name, sizeof(name), false, &trunc);
			if (trunc)
				return false;
			n = name;
		}
		if (rsys_attr(s->ctx->sys, devpath, n, v, sizeof(v)) < 0)
			return false;
	}
	if (t->trim) {
		size_t len = strlen(v);

		v[len < RULES_NAME_MAX ? len : RULES_NAME_MAX - 1] = '\0';
		while ((len = strlen(v)) > 0 && strchr(" \t\n\r", v[len - 1]))
			v[len - 1] = '\0';
	}
	return match_string(t, v);
}

/* TAG/TAGS: any tag matching decides for ==, none matching for != */
static bool match_list(const struct rules_token *t, const struct strv *l, size_t skip)
{
	for (size_t i = 0; i < l->n; i++)
		if (match_string(t, l->v[i] + skip) == (t->op == ROP_MATCH))
			return t->op == ROP_MATCH;
	return t->op == ROP_NOMATCH;
}

static bool match_parent_tags(const struct evstate *s, const struct rules_token *t,
			      const char *devpath)
{
	struct rules_record rec = { 0 };
	bool m;

	if (strcmp(devpath, s->ev->devpath) == 0)
		return match_list(t, &s->ev->current_tags, 0);
	if (!s->ctx->record || !s->ctx->record(s->ctx->record_u, devpath, &rec))
		return t->op == ROP_NOMATCH;
	m = match_list(t, &rec.tags, 0);
	rules_record_free(&rec);
	return m;
}

/* One parent token against the device at devpath (the event's or an ancestor). */
static bool match_on(const struct evstate *s, const struct rules_token *t, const char *devpath)
{
	char buf[SYSDEV_NAME_MAX];
	bool self = strcmp(devpath, s->ev->devpath) == 0;

	switch (t->type) {
	case RTK_M_PARENTS_KERNEL: sysdev_sysname(devpath, buf); return match_string(t, buf);
	case RTK_M_PARENTS_SUBSYSTEM:
		if (self)
			return match_string(t, s->ev->subsystem);
		if (sysdev_subsystem(s->ctx->sys, devpath, buf) < 0)
			buf[0] = '\0';
		return match_string(t, buf);
	case RTK_M_PARENTS_DRIVER: return match_string(t, driver_of(s, devpath, buf));
	case RTK_M_PARENTS_ATTR: return match_attr(s, t, devpath);
	default: return match_parent_tags(s, t, devpath);
	}
}

static bool is_parent_token(const struct rules_token *t)
{
	return t->type >= RTK_M_PARENTS_KERNEL && t->type <= RTK_M_PARENTS_TAG;
}

/* All parent tokens from t on hold for one device, walking up from the event's. */
static bool match_parents(struct evstate *s, const struct rules_token *t,
			  const struct rules_token *end)
{
	char cur[SYSDEV_PATH_MAX];

	snprintf(cur, sizeof(cur), "%s", s->ev->devpath);
	for (;;) {
		const struct rules_token *i = t;

		snprintf(s->ev->parent, sizeof(s->ev->parent), "%s", cur);
		while (i < end && is_parent_token(i) && match_on(s, i, cur))
			i++;
		if (i == end || !is_parent_token(i))
			return true;
		if (sysdev_parent(s->ctx->sys, cur, cur, sizeof(cur)) < 0) {
			s->ev->parent[0] = '\0';
			return false;
		}
	}
}

/* Matches on the event itself. 1 match, 0 not. */
static int match_token(struct evstate *s, const struct rules_token *t)
{
	struct rules_event *ev = s->ev;
	char buf[SYSDEV_NAME_MAX];

	switch (t->type) {
	case RTK_M_ACTION: return match_string(t, ev->action);
	case RTK_M_DEVPATH: return match_string(t, ev->devpath);
	case RTK_M_KERNEL: return match_string(t, ev->sysname);
	case RTK_M_DEVLINK: return match_list(t, &ev->links, strlen("/dev/"));
	case RTK_M_NAME: return match_string(t, ev->name);
	case RTK_M_ENV: {
		const char *v = ev_sync_lists(ev) < 0 ? NULL : props_get(&ev->props, t->attr);

		/* udevd's global properties count for matches only, not for $env{} */
		if (!v && s->ctx->global)
			v = props_get(s->ctx->global, t->attr);
		return match_string(t, v);
	}
	case RTK_M_TAG: return match_list(t, &ev->current_tags, 0);
	case RTK_M_SUBSYSTEM: return match_string(t, ev->subsystem);
	case RTK_M_DRIVER: return match_string(t, driver_of(s, ev->devpath, buf));
	case RTK_M_ATTR: return match_attr(s, t, ev->devpath);
	case RTK_M_RESULT: return match_string(t, ev->program_result);
	default: return probe_token(s, t);
	}
}

static unsigned int line_mask(const struct rules_event *ev)
{
	unsigned int mask = RLINE_GOTO | RLINE_UPDATE;

	if (!ev->remove) {
		if (ev->has_devnum)
			mask |= RLINE_DEVLINK;
		if (ev->has_ifindex)
			mask |= RLINE_NAME;
	}
	return mask;
}

/* Returns 0 (next line, or *next set by a GOTO) or -errno to stop. */
static int apply_line(struct evstate *s, const struct rules_line *l, size_t *next)
{
	const struct rules_token *t = s->r->tokens ? &s->r->tokens[l->first] : NULL;
	const struct rules_token *end = t ? t + l->n : NULL;
	bool parents_done = false;

	if (!(l->type & line_mask(s->ev)))
		return 0;
	s->line = l;
	s->ev->esc = ESC_UNSET;
	for (; t < end; t++) {
		int m;

		if (is_parent_token(t)) {
			if (!parents_done && !match_parents(s, t, end))
				return 0;
			parents_done = true;
			continue;
		}
		if (t->type >= RTK_A_MIN) {
			m = assign_token(s, t);
			if (m < 0)
				return m;
			continue;
		}
		m = match_token(s, t);
		if (m < 0)
			return m;
		if (m == 0)
			return 0;
	}
	if (l->goto_line >= 0)
		*next = (size_t)l->goto_line;
	return 0;
}

int rules_apply(const struct rules *r, const struct rules_ctx *ctx, struct rules_event *ev)
{
	struct evstate s = { .r = r, .ctx = ctx, .ev = ev };

	for (size_t i = 0; i < r->nlines;) {
		size_t next = i + 1;
		int ret = apply_line(&s, &r->lines[i], &next);

		if (ret < 0)
			return ret;
		i = next;
	}
	return 0;
}
