/* SPDX-License-Identifier: MIT */
/*
 * The populator engine: one context for everything the daemon does.
 * Data flows one way: gate (socket, verify, parse) -> queue -> handlers on
 * worker threads (devnode, modload) -> done list -> settle bookkeeping.
 * Coldplug writes triggers in paced batches from the main loop.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "engine/cmdline.h"
#include "engine/coldplug.h"
#include "handlers/devnode.h"
#include "handlers/disk.h"
#include "gate/gate.h"
#include "handlers/disk-links.h"
#include "util/log.h"
#include "handlers/modload.h"
#include "engine/queue.h"
#include "handlers/perms.h"
#include "engine/settle.h"
#include "util/map.h"

#define ENGINE_SUBTREES_MAX 64

struct engine_config {
	const char *sysfs;        /* default /sys */
	const char *dev;          /* default /dev */
	const char *rules_path;   /* default /etc/initdev/rules */
	const char *modules_dir;  /* NULL: running kernel's */
	const char *const *modprobe_d; /* NULL: libkmod defaults (test seam) */
	/* coldplug only below these (each "/devices/..."); none: all of /devices */
	const char *subtrees[ENGINE_SUBTREES_MAX];
	unsigned int nsubtrees;
	bool coldplug;            /* false: --no-coldplug */
	bool no_devtmpfs;         /* create nodes with mknod */
	bool test_unpaced;        /* test seam: write all triggers before reading */
	unsigned int workers;     /* 0: rd.initdev.workers or 2 x CPUs */
	int rcvbuf;               /* 0: default (test seam for overflow) */
};

enum engine_phase {
	PHASE_STARTUP,   /* socket bound, handlers being set up */
	PHASE_PRELOAD,   /* rd.driver.pre modules */
	PHASE_COLDPLUG,  /* writing triggers */
	PHASE_SETTLING,  /* waiting for replies, handlers, module loads */
	PHASE_SETTLED,
	PHASE_COUNT,
};

struct engine {
	struct engine_config cfg;
	const struct logger *log;
	const struct cmdline *cmdline;
	struct gate gate;
	struct perms perms;  
	struct devnode devnode;
	bool devtmpfs;            /* the kernel manages nodes */
	struct disk_links links;       /* /dev/disk/by-* */
	struct disk_ctx disk;
	bool links_ready;
	struct modload modload;
	struct modload_worker *mworkers;
	unsigned int nmworkers;
	struct queue queue;
	bool queue_started;       /* queue_init done (handlers set up) */
	bool workers_started;     /* threads run (started on first need) */
	struct settle settle;
	struct map devices;    /* devpaths added and not removed */

	struct coldplug_list cp;  /* what is left to trigger */
	size_t cp_next;
	unsigned int cp_batch;
	bool cp_active;
	struct coldplug_uuids uuids; /* tags for our triggers */
	bool synth_ok;            /* kernel takes "add UUID" (4.13+) */
	bool synth_proven;        /* at least one UUID write succeeded */
	uint64_t triggers, trigger_errors, rescans;
	uint64_t events_handled;

	bool settled;
	enum engine_phase phase;
	uint64_t phase_since;
	uint64_t phase_usec[PHASE_COUNT];
	uint64_t start_usec;
};

/*
 * Bind the uevent socket: the very first thing, so no event is missed.
 * cmdline must outlive the engine. Returns 0 or -errno (logged).
 */
int engine_open(struct engine *e, const struct engine_config *cfg,
		const struct cmdline *cmdline, const struct logger *log);

/* /dev mode, rules, workers, rd.driver.pre, then coldplug begins. 0 or -errno. */
int engine_start(struct engine *e);

void engine_close(struct engine *e);

/* Trigger every device now (udevadm trigger); 0 or -errno (logged). */
int engine_coldplug(struct engine *e);

/*
 * Append the block-device properties (ID_FS_*, ID_PART_ENTRY_*,
 * ID_PART_TABLE_*) known for devpath as KEY=VALUE lines to buf, advancing
 * *len. Nothing if devpath is not a probed block device.
 */
void engine_block_properties(struct engine *e, const char *devpath, char *buf,
			     size_t size, size_t *len);

/* The socket is readable: take in what the kernel sent. */
void engine_on_socket(struct engine *e);
/* queue.done_fd is readable: account for finished events. */
void engine_on_done(struct engine *e);
/* Work the main loop does every turn: pace coldplug, check settle. */
void engine_step(struct engine *e);
/* True if the engine has more triggers to write right now (poll without sleeping). */
bool engine_has_work(const struct engine *e);

const char *engine_phase_name(enum engine_phase p);

/* Print pending work (triggers without reply, queued events, module loads). */
void engine_describe_pending(struct engine *e, void (*emit)(void *u, const char *line), void *u);
