/* SPDX-License-Identifier: MIT */
/*
 * The kernel command line, as far as initdev cares. Hostile input: every
 * value is bounded and checked; a malformed value gets a warning naming it
 * and the default stays.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/log.h"

#define CMDLINE_MAX 4096        /* bytes read from /proc/cmdline */
#define CMDLINE_LIST_MAX 256    /* entries kept per module list */
#define CMDLINE_TIMEOUT_MAX 86400
#define CMDLINE_WORKERS_MAX 64

struct cmdline {
	bool debug;              /* rd.initdev.debug (or rd.initdev.debug=1) */
	bool handoff;            /* rd.initdev.handoff=0 turns it off; default on */
	bool root_first;         /* rd.initdev.root_first=0 turns it off; default on */
	bool has_root;           /* root= names a root device (dracut waits for it) */
	int timeout_sec;         /* rd.initdev.timeout=S; -1 unset */
	int workers;             /* rd.initdev.workers=N; 0 unset */
	int handoff_timeout_sec; /* rd.initdev.handoff_timeout=S; -1 unset */
	int event_timeout_sec;   /* rd.initdev.event_timeout=S (udev rules programs); -1 unset */
	int broadcast;           /* rd.initdev.broadcast=0|1 (udev's netlink group 2); -1 unset */
	char text[CMDLINE_MAX + 1]; /* the text parsed (for the rules' IMPORT{cmdline}) */
	/* module names from modprobe.blacklist= and rd.driver.blacklist=,
	 * comma separated, may repeat; '-' normalised to '_' as the kernel does */
	char **blacklist;
	size_t nblacklist;
	char **pre;              /* rd.driver.pre=, likewise */
	size_t npre;
};

void cmdline_init(struct cmdline *c);
void cmdline_free(struct cmdline *c);

/*
 * Parse text (need not be NUL-terminated; at most CMDLINE_MAX bytes are
 * looked at). Words are separated by spaces, tabs or newlines; double quotes
 * group ("rd.x=a b" or rd.x="a b"). Unknown rd.initdev.* keys and malformed
 * values are warned about through log (may be NULL), never fatal.
 * Returns 0, or -ENOMEM.
 */
int cmdline_parse(struct cmdline *c, const char *text, size_t len,
		  const struct logger *log);

/* Read path (normally /proc/cmdline) and parse it. -errno if unreadable. */
int cmdline_load(struct cmdline *c, const char *path, const struct logger *log);

/* True if name (after '-' -> '_') is on the blacklist. */
bool cmdline_blacklisted(const struct cmdline *c, const char *name);
