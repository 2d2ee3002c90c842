/* SPDX-License-Identifier: MIT */
/*
 * initdev's implementations of udev's builtins for the rules: blkid (the
 * native probe, udev's property names), path_id (the native by-path code),
 * kmod load (through a loader the caller supplies). The others udev has
 * (hwdb, input_id, net_id, keyboard, usb_id, ...) fail as a failing
 * builtin fails in udev, each logged once.
 */
#pragma once

#include <stdbool.h>

#include "rules/rules.h"

struct rules_builtins {
	const char *sysfs;
	const char *dev;        /* the --dev root: where DEVNAME's node is */
	const struct logger *log;
	/* kmod load: name is a module (alias false) or a MODALIAS; NULL: fails */
	int (*load)(void *u, const char *name, bool alias);
	void *load_u;
	unsigned int warned;    /* builtins whose absence was logged (atomic) */
};

/* A rules_builtin_fn: pass a struct rules_builtins * as u. */
int rules_builtins_run(void *u, struct rules_event *ev, enum rules_builtin b, int argc, char **argv);
