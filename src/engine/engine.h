/* SPDX-License-Identifier: MIT */
/*
 * The populator engine: one context for everything the daemon does.
 * Data flows one way: gate (socket, verify, parse) -> queue -> the handler
 * set, on the main thread or on worker threads -> done list -> settle
 * bookkeeping. Coldplug writes triggers in paced batches from the main loop.
 *
 * The engine can run without a socket (engine_init, then engine_feed): that
 * is how its unit test drives it. The daemon binds the socket first of all
 * (engine_open), so that no kernel event is missed.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "engine/cmdline.h"
#include "engine/coldplug.h"
#include "engine/queue.h"
#include "engine/settle.h"
#include "gate/gate.h"
#include "handlers/set.h"
#include "util/log.h"
#include "util/map.h"
#include "util/trace.h"

#define ENGINE_SUBTREES_MAX 64
#define ENGINE_RULES_DIRS_MAX 8
/*
 * Backpressure: events taken from the socket and not yet handled (queued or
 * running) never exceed twice the workers (at least ENGINE_IN_HAND_MIN, at
 * most ENGINE_IN_HAND_MAX). The rest wait in the kernel socket, which is
 * what a handoff passes on; so a handoff finishes at most two rounds of
 * work, however many devices there are (a slow disk's probe takes a while:
 * 64 of them in hand made a handoff take seconds). Twice the workers keeps
 * each worker's next event ready.
 */
#define ENGINE_IN_HAND_MIN 8
#define ENGINE_IN_HAND_MAX 64

struct engine_config {
	const char *sysfs;        /* default /sys */
	const char *dev;          /* default /dev */
	/* udev rules directories (rising precedence); none: udev's own */
	const char *rules_dirs[ENGINE_RULES_DIRS_MAX + 1];
	unsigned int nrules_dirs;
	const char *modules_dir;  /* NULL: running kernel's */
	const char *const *modprobe_d; /* NULL: libkmod defaults (test seam) */
	/* udev's runtime directory (/run/udev): the database entries of
	 * db_persist devices go there; NULL: none are written */
	const char *udev_run;
	/* coldplug only below these (each "/devices/..."); none: all of /devices */
	const char *subtrees[ENGINE_SUBTREES_MAX];
	unsigned int nsubtrees;
	bool coldplug;            /* false: --no-coldplug */
	bool no_devtmpfs;         /* create nodes with mknod */
	bool test_unpaced;        /* test seam: write all triggers before reading */
	unsigned int workers;     /* 0: rd.initdev.workers or 2 x CPUs */
	int rcvbuf;               /* 0: default (test seam for overflow) */
	/* the kernel socket PID 1 passed (LISTEN_FDS, checked by the caller):
	 * engine_open takes it instead of opening one; 0: open our own */
	int uevent_fd;
	unsigned int test_delay_ms; /* test seam: every event takes this long, on a worker */
};

enum engine_phase {
	PHASE_STARTUP,   /* socket bound, handlers being set up */
	PHASE_PRELOAD,   /* rd.driver.pre modules */
	PHASE_COLDPLUG,  /* writing triggers */
	PHASE_SETTLING,  /* waiting for replies, handlers, module loads */
	PHASE_SETTLED,
	PHASE_COUNT,
};

/* Everything `initdev status` reports, taken at one moment. */
struct engine_stats {
	enum engine_phase phase;
	bool settled;
	bool devtmpfs;
	uint64_t uptime_usec;
	uint64_t phase_usec[PHASE_COUNT];
	struct gate_stats gate;
	uint64_t handled, rescans;
	size_t in_hand;           /* events queued or running */
	size_t in_hand_max;       /* the backpressure bound */
	size_t present;           /* devices added and not removed */
	size_t nodes;
	struct devnode_stats devnode;
	struct disk_links_stats disk_links;
	uint64_t triggers, trigger_errors;
	size_t awaiting_reply;
	size_t untriggered;       /* devices never triggered (a handoff stopped coldplug) */
	uint64_t given_back;      /* events in hand at a handoff, sent again by the kernel */
	uint64_t abandoned;       /* events a worker still ran when the handoff gave up */
	uint64_t first_seqnum, last_seqnum; /* of the events taken from the socket; 0 none */
	struct modload_stats modules;
	unsigned int modules_loading;
	struct rules_handler_stats rules;
	uint64_t peak_rss_kib;    /* VmHWM of this process; 0 if unknown */
	uint64_t log_dropped;     /* log lines /dev/kmsg's rate limit kept out */
	bool root_first;          /* the root path is ranked first (rank.h) */
	bool root_settled;
	uint64_t root_settled_usec; /* when the root path settled (first time); 0 not yet */
	uint64_t events_root;     /* events on the root path taken in */
	size_t root_left;         /* root-path triggers not yet written */
};

struct engine {
	struct engine_config cfg;
	const struct logger *log;
	const struct cmdline *cmdline;
	struct gate gate;           /* fd -1: no socket (engine_init, or taken) */
	bool devtmpfs;              /* the kernel manages nodes */
	struct handler_set handlers;
	bool handlers_up;           /* handler_set_init done */
	void **workers;             /* per queue worker: HANDLERS_MAX states */
	unsigned int nworkers;
	bool workers_started;       /* threads run (started on first need) */
	size_t in_hand_max;         /* the backpressure bound (above) */
	struct queue queue;
	bool queue_up;
	struct settle settle;
	struct coldplug_run coldplug;
	struct map devices;         /* devpaths added and not removed */
	uint64_t rescans, events_handled;
	uint64_t first_seqnum, last_seqnum; /* taken from the socket */
	bool reading;               /* false once a handoff began: the socket is left alone */
	bool root_first;            /* rank the root path first (rank.h) */
	struct map root_paths;      /* devpaths on the root path: what is below them is too */
	uint64_t events_root;
	bool root_settled;          /* settled as far as the root path goes */
	uint64_t root_settled_usec;
	size_t untriggered;
	uint64_t given_back, abandoned; /* engine_give_back */
	uint64_t kept;             /* of the abandoned, waiting behind a running relative */
	uint64_t kept_sent;        /* waiting behind one, add or change: sent again all the same */
	uint64_t cookies_released; /* dm cookies of events given back or abandoned */
	bool settled;
	bool settle_told;           /* the first settle was logged at notice level */
	enum engine_phase phase;
	uint64_t phase_since;
	uint64_t phase_usec[PHASE_COUNT];
	uint64_t start_usec;
	struct trace trace;         /* for initdev report (util/trace.h) */
};

/* An engine without a socket. cmdline must outlive it. */
void engine_init(struct engine *e, const struct engine_config *cfg,
		 const struct cmdline *cmdline, const struct logger *log);

/*
 * engine_init, then bind the uevent socket (or take cfg->uevent_fd, with
 * the events queued in it): the very first thing a daemon does, so no
 * event is missed. Returns 0 or -errno (logged).
 */
int engine_open(struct engine *e, const struct engine_config *cfg,
		const struct cmdline *cmdline, const struct logger *log);

/* /dev mode, handlers, rd.driver.pre, then coldplug begins. 0 or -errno. */
int engine_start(struct engine *e);

void engine_close(struct engine *e);

/* An accepted event, from the gate or from a test. */
void engine_feed(struct engine *e, const struct uevent *ev);

/* The event source lost events (socket overflow): rescan and re-trigger. */
void engine_events_lost(struct engine *e);

/* Trigger every device now (udevadm trigger); 0 or -errno (logged). */
int engine_coldplug(struct engine *e);

/* Handlers read their configuration again (udev rules); 0 or -errno (logged). */
int engine_reload(struct engine *e);
/* A global property for the udev rules ("KEY=VALUE"; empty value removes). 0 or -errno. */
int engine_set_property(struct engine *e, const char *assignment);

/*
 * Poll these: the socket (-1 if none, after engine_stop_reading, or while
 * the backpressure bound's worth of events is in hand) and the done list's eventfd.
 */
int engine_socket_fd(struct engine *e);
int engine_done_fd(const struct engine *e);

/* The socket is readable: take in what the kernel sent. */
void engine_on_socket(struct engine *e);
/* The done fd is readable: account for finished events. */
void engine_on_done(struct engine *e);
/* Work the main loop does every turn: pace coldplug, check settle. */
void engine_step(struct engine *e);
/* True if the engine has more triggers to write right now (poll without sleeping). */
bool engine_has_work(const struct engine *e);

bool engine_settled(const struct engine *e);

/*
 * Settled as far as the root path goes (rank.h): every root-path trigger
 * written and its reply handled, no root-path event in hand, and the socket
 * read up to the kernel's SEQNUM. The rest may still be loading. Without
 * root first, the same as engine_settled.
 */
bool engine_root_settled(const struct engine *e);

/* A root is awaited (initdev wait): rank the root path first from now on. */
void engine_await_root(struct engine *e);
/* Events taken in and not yet handled (queued or running). */
size_t engine_in_hand(struct engine *e);

/*
 * A handoff that cannot wait any longer for the events in hand (a worker
 * may be in a module load that the kernel holds until all its asynchronous
 * probing is done: a long SCSI scan, say). Each queued event no worker has
 * started goes back to the kernel: its ACTION (add or change, with its
 * SYNTH_UUID if it had one) is written to its uevent file, and the kernel
 * sends it again, into the socket the holder passes on. Other queued
 * events (remove, move, ...) touch only /dev and are handled here and now.
 * Those a worker runs are abandoned: the real root's trigger covers their
 * devices; so are the removes (moves, ...) queued behind a running related
 * event (handled beside it, a remove could run before its device's add is
 * done), each logged; an add or change behind one is sent again (its copy
 * is handled only in the real root, after this process). No worker starts an event afterwards. The device-mapper
 * cookie of every event given back or abandoned is released, once
 * (dm-cookie.h's book): nobody would, and its tool waits without a timeout.
 * Counted in status (handoff.given_back, handoff.abandoned).
 * Main thread, after engine_stop_reading.
 */
void engine_give_back(struct engine *e);

/*
 * A handoff begins: read nothing more from the socket (what is in it goes to
 * the holder) and write no more triggers. The events in hand are still
 * handled. Returns how many devices were never triggered.
 */
size_t engine_stop_reading(struct engine *e);

/* For the handoff: the socket leaves the engine, unread, still bound. Its fd. */
int engine_take_socket(struct engine *e);

void engine_stats(struct engine *e, struct engine_stats *s);
const char *engine_phase_name(enum engine_phase p);

/* Print pending work (triggers without reply, queued events, module loads). */
void engine_describe_pending(struct engine *e, void (*emit)(void *u, const char *line), void *u);
