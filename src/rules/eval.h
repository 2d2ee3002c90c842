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

/* Refresh DEVLINKS, TAGS and CURRENT_TAGS after a change of links or tags. */
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
