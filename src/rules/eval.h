/* SPDX-License-Identifier: MIT */
/* Shared by the parts of rules evaluation (eval.c, probe.c, assign.c, event.c). */
#pragma once

#include "rules/rules.h"

enum { ESC_UNSET, ESC_NONE, ESC_REPLACE };

struct evstate {
	const struct rules *r;
	const struct rules_ctx *ctx;
	struct rules_event *ev;
	const struct rules_line *line;
};

__attribute__((format(printf, 3, 4))) void ev_log(const struct evstate *s, int prio,
						  const char *fmt, ...);

/* s made safe for a log line (escape_log): event, file and program text can hold any byte. */
#define EV_ESC_MAX 256
const char *ev_esc(char out[EV_ESC_MAX], const char *s);

/*
 * Substitute str into buf; false (logged, naming what) if it did not fit: a
 * match then does not match (debug, as udev), an assignment is refused (warning).
 */
bool ev_format(const struct evstate *s, const char *str, char *buf, size_t size, const char *what,
	       bool is_match);

/*
 * DEVLINKS, TAGS and CURRENT_TAGS are rebuilt lazily: a change of links or
 * tags marks them stale (ev_lists_changed), and whatever reads properties
 * (ENV match, $env{}, ENV+=, a program's environment, rules_event_finish)
 * calls ev_sync_lists first. Rebuilding them after every TAG+= made a
 * device with 10,000 tags (udev's own suite) quadratic: 18 s an event.
 */
static inline int ev_lists_changed(struct rules_event *ev)
{
	ev->lists_stale = true;
	return 0;
}
/* Rebuild the three if stale. 0 or -ENOMEM. */
int ev_sync_lists(struct rules_event *ev);

/*
 * Run cmd (already substituted) with the event's properties as environment.
 * out (may be NULL) receives stdout. Returns 0 on success, the exit code
 * (> 0) or 255 if killed, -errno if it could not run; logs the failure
 * (accept_failure: a failing exit is only debug, as udev does for PROGRAM).
 */
int ev_spawn(const struct evstate *s, const char *cmd, char *out, size_t size, bool *truncated,
	     bool accept_failure);

/* Matches that look outside the event: TEST, SYSCTL, CONST, PROGRAM, IMPORT{}. 1/0/-errno. */
int probe_token(struct evstate *s, const struct rules_token *t);

/* Assignments. 0, or -ENOMEM/-E2BIG (the event cannot go on). */
int assign_token(struct evstate *s, const struct rules_token *t);
