/* SPDX-License-Identifier: MIT */
/*
 * Knowing when the system is settled, exactly: every trigger's reply (the
 * event carrying its SYNTH_UUID) has come back and been handled, nothing is
 * queued or running (module loads run inside handlers), and every event up
 * to the kernel's /sys/kernel/uevent_seqnum, read after all that, has been
 * received. The kernel broadcasts a uevent before the write or module load
 * that caused it returns, so once the counter is read and the socket is then
 * drained, every earlier event that can reach us is in hand.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/map.h"

struct settle {
	struct map pending;   /* uuid -> devpath (malloc'd) awaiting reply */
	uint64_t expected;       /* triggers written with a uuid */
	uint64_t replied;        /* of which the reply was handled */
	uint64_t forgotten;      /* dropped by a rescan or a failed write */
	size_t pending_root;     /* of the pending, those on the root path (rank.h) */
};

void settle_init(struct settle *s);
void settle_fini(struct settle *s);

/* A trigger with this uuid was written for devpath (root: on the root path).
 * 0 or -ENOMEM. */
int settle_expect(struct settle *s, const char *uuid, const char *devpath, bool root);
/* The event carrying uuid was handled. True if it was one we waited for. */
bool settle_replied(struct settle *s, const char *uuid);
/* Stop waiting for uuid (the write failed). */
void settle_forget(struct settle *s, const char *uuid);
/* Stop waiting for all (events were lost; a rescan re-triggers). */
void settle_forget_all(struct settle *s);

size_t settle_pending(const struct settle *s);
size_t settle_pending_root(const struct settle *s);

/* Call fn(devpath) for at most max pending devices; returns how many exist. */
size_t settle_list_pending(const struct settle *s, size_t max,
			   void (*fn)(void *userdata, const char *devpath),
			   void *userdata);

/* Read sysfs/kernel/uevent_seqnum. 0 or -errno. */
int settle_read_kernel_seqnum(const char *sysfs, uint64_t *seqnum);
