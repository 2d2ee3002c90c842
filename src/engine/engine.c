/* SPDX-License-Identifier: MIT */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/rank.h"
#include "handlers/devtmpfs.h"
#include "util/number.h"

static const char *const phase_names[PHASE_COUNT] = {
	[PHASE_STARTUP] = "startup",
	[PHASE_PRELOAD] = "preload",
	[PHASE_COLDPLUG] = "coldplug",
	[PHASE_SETTLING] = "settling",
	[PHASE_SETTLED] = "settled",
};

const char *engine_phase_name(enum engine_phase p)
{
	return (unsigned int)p < PHASE_COUNT ? phase_names[p] : "unknown";
}

static void enter_phase(struct engine *e, enum engine_phase p)
{
	uint64_t now = now_monotonic_usec();

	if (p == e->phase)
		return;
	e->phase_usec[e->phase] += now - e->phase_since;
	e->phase_since = now;
	e->phase = p;
	trace_mark(&e->trace, engine_phase_name(p));
	log_msg(e->log, LOG_DEBUG, "phase %s", engine_phase_name(p));
}

/* ---- lifetime ---- */

void engine_init(struct engine *e, const struct engine_config *cfg,
		 const struct cmdline *cmdline, const struct logger *log)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	e->log = log;
	e->cmdline = cmdline;
	e->gate.fd = -1;
	e->reading = true;
	e->in_hand_max = ENGINE_IN_HAND_MIN; /* until engine_start knows the workers */
	e->start_usec = e->phase_since = now_monotonic_usec();
	settle_init(&e->settle);
	coldplug_run_init(&e->coldplug, e->cfg.sysfs, cfg->test_unpaced, log);
	/* without memory for it, the trace records nothing: not worth failing for */
	(void)trace_init(&e->trace, TRACE_SLOTS_DEFAULT, e->start_usec);
	trace_mark(&e->trace, engine_phase_name(PHASE_STARTUP));
	e->coldplug.trace = &e->trace;
}

int engine_open(struct engine *e, const struct engine_config *cfg,
		const struct cmdline *cmdline, const struct logger *log)
{
	struct uevent_socket_options so = { .rcvbuf = cfg->rcvbuf };
	int r;

	engine_init(e, cfg, cmdline, log);
	if (cfg->uevent_fd > 0)
		r = gate_adopt(&e->gate, log, cfg->uevent_fd, &so);
	else
		r = gate_open(&e->gate, log, &so);
	if (r < 0)
		return log_errno(log, LOG_ERR, r, cfg->uevent_fd > 0 ?
				 "cannot use the kernel uevent socket from LISTEN_FDS" :
				 "cannot open the kernel uevent socket");
	e->gate.discard_after_loss = true; /* the rescan stands for them */
	return 0;
}

static unsigned int worker_count(const struct engine *e)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (e->cfg.workers)
		return e->cfg.workers;
	if (e->cmdline->workers > 0)
		return (unsigned int)e->cmdline->workers;
	if (cpus < 1)
		cpus = 1;
	return cpus * 2 > CMDLINE_WORKERS_MAX ? CMDLINE_WORKERS_MAX : (unsigned int)cpus * 2;
}

static void handle_event(void *ctx, struct queue_worker *w, const struct uevent *ev);

static void warm_worker(void *ctx, struct queue_worker *w)
{
	struct engine *e = ctx;

	handler_set_workers_warm(&e->handlers, w->data);
}

/*
 * Threads start with the first event that needs one (a module to load):
 * a coldplug that only makes nodes never pays for them. Each worker has
 * its own state for every handler that keeps some (a libkmod context).
 */
static int start_workers(struct engine *e)
{
	unsigned int n = worker_count(e);
	void **data = calloc(n, sizeof(*data));
	int r;

	e->workers = calloc((size_t)n * HANDLERS_MAX, sizeof(*e->workers));
	e->workers_started = true;
	if (!data || !e->workers) {
		free(data);
		free(e->workers);
		e->workers = NULL;
		return log_errno(e->log, LOG_ERR, -ENOMEM, "up to %u workers", n);
	}
	e->nworkers = n;
	for (unsigned int i = 0; i < n; i++) {
		data[i] = e->workers + (size_t)i * HANDLERS_MAX;
		handler_set_workers_new(&e->handlers, data[i]);
	}
	r = queue_start(&e->queue, n, data);
	free(data);
	if (r < 0)
		return log_errno(e->log, LOG_ERR, r, "up to %u workers", n);
	log_msg(e->log, LOG_DEBUG, "up to %u workers", n);
	return 0;
}

static void free_workers(struct engine *e)
{
	for (unsigned int i = 0; i < e->nworkers; i++)
		handler_set_workers_free(&e->handlers, e->workers + (size_t)i * HANDLERS_MAX);
	free(e->workers);
	e->workers = NULL;
	e->nworkers = 0;
}

/* rd.driver.pre: loaded before coldplug, in order. */
static void preload(struct engine *e)
{
	if (e->cmdline->npre == 0)
		return;
	enter_phase(e, PHASE_PRELOAD);
	modload_preload(&e->handlers.modload, e->cmdline->pre, e->cmdline->npre);
}

static int begin_coldplug(struct engine *e)
{
	int r;

	e->coldplug.root_first = e->root_first;
	r = coldplug_run_begin(&e->coldplug, e->cfg.subtrees, e->cfg.nsubtrees);
	if (r < 0)
		return r;
	e->settled = false;
	e->root_settled = false;
	enter_phase(e, PHASE_COLDPLUG);
	return 0;
}

int engine_coldplug(struct engine *e)
{
	return begin_coldplug(e);
}

int engine_reload(struct engine *e)
{
	return e->handlers_up ? handler_set_reload(&e->handlers) : -EAGAIN;
}

int engine_set_property(struct engine *e, const char *assignment)
{
	return e->handlers_up ? handler_set_property(&e->handlers, assignment) : -EAGAIN;
}

/* ---- test seam: a handler that takes its time (--test-delay-ms) ---- */

static bool delay_may_block(void *ctx, const struct uevent *ev)
{
	return true;
}

static void delay_handle(void *ctx, const struct handler_call *call)
{
	const unsigned int *ms = ctx;

	usleep(*ms * 1000u);
}

static const struct handler_ops delay_handler = {
	.name = "test-delay", .may_block = delay_may_block, .handle = delay_handle,
};

/*
 * udevd's broadcast to netlink group 2 (udev-broadcast.h): what PID 1 and
 * libudev monitors in a systemd initrd wait for. rd.initdev.broadcast=0|1
 * decides; unset, it is on in an initrd (/etc/initrd-release, systemd's
 * own test) and off elsewhere, where the listeners are the host's and the
 * devices may be a test's.
 */
static bool broadcast_wanted(const struct engine *e)
{
	if (e->cmdline->broadcast >= 0)
		return e->cmdline->broadcast == 1;
	return access("/etc/initrd-release", F_OK) == 0;
}

static int start_handlers(struct engine *e)
{
	struct handler_set_config hc = {
		.sysfs = e->cfg.sysfs,
		.dev = e->cfg.dev,
		.modules_dir = e->cfg.modules_dir,
		.modprobe_d = e->cfg.modprobe_d,
		.blacklist = e->cmdline->blacklist,
		.nblacklist = e->cmdline->nblacklist,
		.rules_dirs = e->cfg.nrules_dirs ? e->cfg.rules_dirs : NULL,
		.cmdline = e->cmdline->text,
		.udev_run = e->cfg.udev_run,
		.broadcast = broadcast_wanted(e),
		.event_timeout = e->cmdline->event_timeout_sec > 0 ?
				 (unsigned int)e->cmdline->event_timeout_sec : 0,
		.trace = &e->trace,
	};
	int r;

	e->devtmpfs = devtmpfs_choose(e->cfg.dev, e->cfg.no_devtmpfs, e->log);
	hc.mknod = !e->devtmpfs;
	e->handlers_up = true; /* fini undoes a partial set */
	r = handler_set_init(&e->handlers, &hc, e->log);
	if (r == 0 && e->cfg.test_delay_ms)
		r = handler_set_add(&e->handlers, &delay_handler, &e->cfg.test_delay_ms);
	return r;
}

/*
 * A root initdev works below: a directory it can search, and write where it
 * writes (triggers into sysfs, nodes and links into /dev). 0 or -errno,
 * logged with the path and the reason, before anything is done.
 */
static int check_root(const struct logger *log, const char *what, const char *path, bool write)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return log_errno(log, LOG_ERR, errno, "%s %s", what, path);
	if (!S_ISDIR(st.st_mode))
		return log_errno(log, LOG_ERR, ENOTDIR, "%s %s", what, path);
	if (access(path, R_OK | X_OK | (write ? W_OK : 0)) < 0)
		return log_errno(log, LOG_ERR, errno, "%s %s", what, path);
	return 0;
}

int engine_start(struct engine *e)
{
	int r = check_root(e->log, "sysfs root", e->cfg.sysfs, e->cfg.coldplug);

	if (r == 0)
		r = check_root(e->log, "/dev root", e->cfg.dev, true);
	if (r == 0)
		r = start_handlers(e);
	if (r < 0)
		return r;
	r = queue_init(&e->queue, handle_event, e);
	if (r < 0)
		return log_errno(e->log, LOG_ERR, r, "cannot set up the event queue");
	e->queue_up = true;
	e->queue.warm = warm_worker;
	e->in_hand_max = 2 * (size_t)worker_count(e);
	if (e->in_hand_max < ENGINE_IN_HAND_MIN)
		e->in_hand_max = ENGINE_IN_HAND_MIN;
	if (e->in_hand_max > ENGINE_IN_HAND_MAX)
		e->in_hand_max = ENGINE_IN_HAND_MAX;
	if (e->cmdline->has_root)
		engine_await_root(e);
	preload(e);
	/* modules to load: a worker readies its libkmod context while the walk runs */
	if (modload_has_modules(&e->handlers.modload))
		(void)start_workers(e);
	if (e->cfg.coldplug)
		return begin_coldplug(e);
	enter_phase(e, PHASE_SETTLING);
	return 0;
}

void engine_close(struct engine *e)
{
	if (e->queue_up)
		queue_stop(&e->queue);
	e->queue_up = false;
	free_workers(e);
	if (e->handlers_up)
		handler_set_fini(&e->handlers);
	e->handlers_up = false;
	coldplug_run_fini(&e->coldplug);
	settle_fini(&e->settle);
	map_clear(&e->devices, NULL);
	map_clear(&e->root_paths, NULL);
	gate_close(&e->gate);
	trace_fini(&e->trace);
}

/* ---- events ---- */

/* On a worker (w) or on the main thread (w NULL). */
static void handle_event(void *ctx, struct queue_worker *w, const struct uevent *ev)
{
	struct engine *e = ctx;

	handler_set_run(&e->handlers, w ? w->data : NULL, ev);
}

static void track_device(struct engine *e, const struct uevent *ev)
{
	if (ev->action == UEVENT_REMOVE) {
		map_remove(&e->devices, ev->devpath, NULL);
		return;
	}
	if (ev->action == UEVENT_MOVE && ev->devpath_old)
		map_remove(&e->devices, ev->devpath_old, NULL);
	if (map_add(&e->devices, ev->devpath, NULL) < 0)
		log_msg(e->log, LOG_ERR, "out of memory tracking %s", ev->devpath);
}

static void event_done(struct engine *e, const char *synth_uuid)
{
	if (synth_uuid && synth_uuid[0] && strcmp(synth_uuid, "0") != 0)
		(void)settle_replied(&e->settle, synth_uuid);
	e->events_handled++;
}

void engine_await_root(struct engine *e)
{
	if (e->root_first || !e->cmdline->root_first)
		return;
	e->root_first = true;
	e->root_settled = false;
	e->queue.reserve_root = 1; /* a worker stays free for the root path */
	log_msg(e->log, LOG_DEBUG, "root first: storage and input go ahead");
}

/* Below a device already on the root path: the devpath's ancestors, nearest first. */
static bool below_root_path(const struct engine *e, const char *devpath)
{
	char path[UEVENT_MSG_MAX];
	char *slash;

	if (e->root_paths.n == 0 || strlen(devpath) >= sizeof(path))
		return false;
	memcpy(path, devpath, strlen(devpath) + 1);
	while ((slash = strrchr(path, '/')) != NULL && slash != path) {
		*slash = '\0';
		if (map_contains(&e->root_paths, path))
			return true;
	}
	return false;
}

/*
 * Is ev on the root path? Ranked whether or not a root is awaited yet: a
 * wait that comes later finds the queue already sorted out.
 */
static bool on_root_path(struct engine *e, const struct uevent *ev)
{
	bool root = rank_of(ev->subsystem, ev->modalias) == RANK_ROOT ||
		    below_root_path(e, ev->devpath);

	if (ev->action == UEVENT_REMOVE)
		map_remove(&e->root_paths, ev->devpath, NULL);
	else if (root && map_add(&e->root_paths, ev->devpath, NULL) < 0)
		log_msg(e->log, LOG_ERR, "out of memory ranking %s", ev->devpath);
	return root;
}

void engine_feed(struct engine *e, const struct uevent *ev)
{
	bool blocks = handler_set_may_block(&e->handlers, ev);
	bool root = on_root_path(e, ev);

	trace_event(&e->trace, ev->seqnum, uevent_action_name(ev->action), ev->subsystem,
		    ev->devpath);
	track_device(e, ev);
	e->settled = false;
	if (root) {
		e->events_root++;
		e->root_settled = false;
	}
	if (blocks && !e->workers_started)
		(void)start_workers(e);
	/* before any worker sees it: a handoff that gives it up releases its cookie */
	if (e->handlers.ready && dm_cookie_book_note(&e->handlers.rules.cookies, ev) < 0)
		log_msg(e->log, LOG_WARNING, "%s: out of memory noting its device-mapper cookie; "
			"a handoff could not release it", ev->devpath);
	/*
	 * The queue with immediate dispatch: an event that only touches /dev
	 * and has no related event ahead of it is handled right here, in
	 * SEQNUM order, without a round trip through a worker thread.
	 * (Without any thread, modules cannot be loaded: logged at start.)
	 */
	if ((!blocks && !queue_has_related(&e->queue, ev)) || e->queue.nworkers == 0) {
		handle_event(e, NULL, ev);
		event_done(e, ev->synth_uuid);
		return;
	}
	if (queue_push(&e->queue, ev, root) < 0)
		log_msg(e->log, LOG_ERR, "out of memory queueing event %llu; dropped",
			(unsigned long long)ev->seqnum);
}

static void on_gate_event(void *userdata, const struct uevent *ev)
{
	struct engine *e = userdata;

	if (!e->first_seqnum)
		e->first_seqnum = ev->seqnum;
	e->last_seqnum = ev->seqnum;
	log_msg(e->log, LOG_DEBUG, "event %llu %s %s%s%s", (unsigned long long)ev->seqnum,
		uevent_action_name(ev->action), ev->devpath, ev->synth_uuid ? " " : "",
		ev->synth_uuid ? ev->synth_uuid : "");
	engine_feed(e, ev);
}

static bool forget_gone(void *userdata, const char *devpath, void *value)
{
	struct engine *e = userdata;
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s%s", e->cfg.sysfs, devpath) < sizeof(path) &&
	    lstat(path, &st) < 0 && errno == ENOENT)
		map_remove(&e->devices, devpath, NULL); /* safe: tombstones keep iteration */
	return true;
}

void engine_events_lost(struct engine *e)
{
	int pruned;

	e->rescans++;
	settle_forget_all(&e->settle);
	pruned = devnode_prune(&e->handlers.devnode, e->cfg.sysfs);
	map_foreach(&e->devices, forget_gone, e);
	coldplug_run_slow_down(&e->coldplug);
	log_msg(e->log, LOG_WARNING, "events were lost: removed %d stale nodes, "
		"re-triggering every device (batch %u)", pruned > 0 ? pruned : 0,
		e->coldplug.batch);
	(void)begin_coldplug(e);
}

/*
 * Read only as far as the backpressure bound (in_hand_max) allows; events handled at once on
 * the main thread leave room for more, so a drain goes on (a bounded number
 * of rounds, for fairness to the rest of the loop) while there is room.
 */
static bool read_socket(struct engine *e)
{
	for (int round = 0; round < 16 && e->gate.fd >= 0 && e->reading; round++) {
		size_t hand = engine_in_hand(e);
		unsigned int room = hand < e->in_hand_max ? (unsigned int)(e->in_hand_max - hand) : 0;
		int r = room ? gate_read(&e->gate, on_gate_event, e, room) : 0;

		if (r == -ENOBUFS) {
			engine_events_lost(e);
			return false;
		}
		if (r < 0) {
			log_errno(e->log, LOG_ERR, r, "uevent socket");
			return false;
		}
		if (room == 0)
			return false; /* the hand is full: the rest waits */
		if ((unsigned int)r < room)
			return true;
	}
	return e->gate.fd < 0; /* no socket: nothing to drain */
}

void engine_on_socket(struct engine *e)
{
	(void)read_socket(e);
}

void engine_on_done(struct engine *e)
{
	struct queued_event *ev = queue_take_done(&e->queue);

	while (ev) {
		struct queued_event *next = ev->next;

		event_done(e, ev->ev.synth_uuid);
		free(ev);
		ev = next;
	}
}

/* ---- settling ---- */

static bool busy(struct engine *e)
{
	return e->coldplug.active || settle_pending(&e->settle) > 0 ||
	       queue_pending(&e->queue) > 0;
}

static void log_settled(struct engine *e, uint64_t seqnum)
{
	/*
	 * The one line a normal boot logs: what was done, and how fast. Once:
	 * every later settle (each udevadm trigger of a systemd initrd ends in
	 * one) is info, or the console would repeat it where udevd says nothing.
	 */
	int level = !e->gate.stats.accepted ? LOG_DEBUG : e->settle_told ? LOG_INFO : LOG_NOTICE;

	e->settle_told |= level == LOG_NOTICE;
	log_msg(e->log, level, "settled at kernel SEQNUM %llu after %.3f s: "
		"%zu devices, %llu events, %llu rejected",
		(unsigned long long)seqnum,
		(double)(now_monotonic_usec() - e->start_usec) / 1e6, e->devices.n,
		(unsigned long long)e->gate.stats.accepted,
		(unsigned long long)gate_rejected_total(&e->gate.stats));
}

/*
 * Nothing pending: read the kernel's counter, then drain the socket. If the
 * drain brought nothing, every event up to that SEQNUM that can reach us has
 * been handled.
 */
static void check_settled(struct engine *e)
{
	uint64_t seqnum = 0, before = e->events_handled;

	if (e->settled || e->phase < PHASE_SETTLING || busy(e))
		return;
	if (settle_read_kernel_seqnum(e->cfg.sysfs, &seqnum) < 0)
		seqnum = 0;
	engine_on_socket(e);
	if (e->events_handled != before || busy(e))
		return;
	e->settled = true;
	enter_phase(e, PHASE_SETTLED);
	log_settled(e, seqnum);
}

static bool root_busy(struct engine *e)
{
	return coldplug_run_root_left(&e->coldplug) > 0 || settle_pending_root(&e->settle) > 0 ||
	       queue_pending_root(&e->queue) > 0;
}

/*
 * As check_settled, for the root path only: its work done, then the
 * kernel's counter read and the socket drained; nothing new on the path.
 */
static void check_root_settled(struct engine *e)
{
	uint64_t seqnum, before = e->events_root;

	if (e->root_settled || !e->root_first || e->phase < PHASE_COLDPLUG || root_busy(e))
		return;
	if (settle_read_kernel_seqnum(e->cfg.sysfs, &seqnum) < 0)
		seqnum = 0;
	if (!read_socket(e) || e->events_root != before || root_busy(e))
		return;
	e->root_settled = true;
	if (!e->root_settled_usec)
		e->root_settled_usec = now_monotonic_usec() - e->start_usec;
	log_msg(e->log, LOG_INFO, "root path settled at kernel SEQNUM %llu after %.3f s",
		(unsigned long long)seqnum, (double)(now_monotonic_usec() - e->start_usec) / 1e6);
}

void engine_step(struct engine *e)
{
	if (coldplug_run_step(&e->coldplug, &e->settle))
		enter_phase(e, PHASE_SETTLING);
	if (!e->coldplug.active && !e->settled && e->phase == PHASE_SETTLED)
		enter_phase(e, PHASE_SETTLING);
	check_root_settled(e);
	check_settled(e);
}

bool engine_has_work(const struct engine *e)
{
	return coldplug_run_ready(&e->coldplug, &e->settle);
}

/* ---- what the daemon asks ---- */

int engine_socket_fd(struct engine *e)
{
	if (!e->reading || engine_in_hand(e) >= e->in_hand_max)
		return -1;
	return e->gate.fd;
}

size_t engine_stop_reading(struct engine *e)
{
	if (!e->reading)
		return e->untriggered;
	e->reading = false;
	e->untriggered = coldplug_run_left(&e->coldplug);
	coldplug_run_fini(&e->coldplug);
	if (e->untriggered)
		log_msg(e->log, LOG_NOTICE, "handoff: %zu devices were never triggered here",
			e->untriggered);
	return e->untriggered;
}

int engine_done_fd(const struct engine *e)
{
	return e->queue_up ? e->queue.done_fd : -1;
}

bool engine_settled(const struct engine *e)
{
	return e->settled;
}

bool engine_root_settled(const struct engine *e)
{
	return e->settled || (e->root_first && e->root_settled);
}

size_t engine_in_hand(struct engine *e)
{
	return e->queue_up ? queue_pending(&e->queue) : 0;
}

/* Have the kernel send ev again; 0 or -errno (-ENOENT: the device is gone). */
static int send_again(const struct engine *e, const struct uevent *ev)
{
	const char *uuid = ev->synth_uuid;

	if (uuid && (!uuid[0] || strcmp(uuid, "0") == 0))
		uuid = NULL; /* a plain write, or none: the copy carries none either */
	return coldplug_trigger(e->cfg.sysfs, ev->devpath, uevent_action_name(ev->action), uuid);
}

/* A given-back event's cookie: the kernel's new event carries none. */
static void give_back_cookie(struct engine *e, const struct uevent *ev)
{
	int r;
	enum dm_cookie_outcome o;

	if (!e->handlers.ready)
		return;
	o = dm_cookie_book_give_back(&e->handlers.rules.cookies, ev, &r);

	if (o == DM_COOKIE_BY_US) {
		e->cookies_released++;
		log_msg(e->log, LOG_NOTICE, "handoff: device-mapper cookie of event %llu (%s) "
			"released: the event is given back", (unsigned long long)ev->seqnum,
			ev->devpath);
	} else if (o == DM_COOKIE_FAILED && r != -ENOENT)
		log_errno(e->log, LOG_WARNING, r, "handoff: event %llu (%s): device-mapper cookie",
			  (unsigned long long)ev->seqnum, ev->devpath);
}

/* Send ev again (add, change) or handle it here (the rest: they touch /dev only). */
static void give_back_one(struct engine *e, const struct uevent *ev)
{
	int r;

	if (ev->action != UEVENT_ADD && ev->action != UEVENT_CHANGE) {
		handle_event(e, NULL, ev); /* releases its cookie as any event does */
		event_done(e, ev->synth_uuid);
		return;
	}
	r = send_again(e, ev);
	if (r == 0) {
		e->given_back++;
		log_msg(e->log, LOG_DEBUG, "handoff: event %llu %s %s sent again%s%s",
			(unsigned long long)ev->seqnum, uevent_action_name(ev->action), ev->devpath,
			ev->synth_uuid ? " " : "", ev->synth_uuid ? ev->synth_uuid : "");
	} else { /* gone since: its remove follows in the socket */
		log_msg(e->log, LOG_INFO, "handoff: cannot send event %llu (%s) again: %s",
			(unsigned long long)ev->seqnum, ev->devpath, errno_text(r));
	}
	give_back_cookie(e, ev);
}

/*
 * An event kept behind a running relative. An add or change goes back to
 * the kernel all the same: its new copy is handled only in the real root,
 * after this process and its workers are gone, so the order holds. The
 * rest would be handled here beside the running event: abandoned with it.
 */
static void give_back_kept(void *u, const struct queued_event *q,
			   const struct queued_event *behind)
{
	struct engine *e = u;
	bool resend = q->ev.action == UEVENT_ADD || q->ev.action == UEVENT_CHANGE;

	log_msg(e->log, q->ev.action == UEVENT_REMOVE ? LOG_WARNING : LOG_INFO,
		"handoff: event %llu %s %s waits behind event %llu (%s), still running: %s",
		(unsigned long long)q->ev.seqnum, uevent_action_name(q->ev.action),
		q->ev.devpath, behind ? (unsigned long long)behind->ev.seqnum : 0ULL,
		behind ? behind->ev.devpath : "?",
		resend ? "sent again, for the real root only" :
			 "abandoned with it, not handled out of order");
	if (resend) {
		give_back_one(e, &q->ev);
		e->kept_sent++;
	} else {
		e->kept++;
	}
}

static void log_abandoned_cookie(void *u, const struct dm_cookie_note *n, int r)
{
	struct engine *e = u;

	if (r == 0)
		log_msg(e->log, LOG_NOTICE, "handoff: device-mapper cookie %u of event %llu "
			"released: the event is abandoned", n->cookie, (unsigned long long)n->seqnum);
	else if (r != -ENOENT)
		log_errno(e->log, LOG_WARNING, r, "handoff: device-mapper cookie %u of event %llu",
			  n->cookie, (unsigned long long)n->seqnum);
}

void engine_give_back(struct engine *e)
{
	struct queued_event *q = e->queue_up ? queue_take_waiting(&e->queue) : NULL;
	uint64_t handled = e->events_handled;

	while (q) {
		struct queued_event *next = q->next;

		give_back_one(e, &q->ev);
		free(q);
		q = next;
	}
	e->kept = e->kept_sent = 0;
	if (e->queue_up)
		queue_each_waiting(&e->queue, give_back_kept, e);
	/* what is still in hand is never completed here: no tool may wait on it */
	if (e->handlers.ready)
		e->cookies_released += dm_cookie_book_close(&e->handlers.rules.cookies,
							    log_abandoned_cookie, e);
	e->abandoned = engine_in_hand(e) - e->kept_sent;
	log_msg(e->log, LOG_NOTICE, "handoff: events in hand not done in time: %llu sent again "
		"by the kernel, %llu handled here, %llu abandoned to a worker (%llu of them "
		"waiting behind a running event of the same device; the real root's trigger "
		"covers them), %llu device-mapper cookies released",
		(unsigned long long)e->given_back,
		(unsigned long long)(e->events_handled - handled), (unsigned long long)e->abandoned,
		(unsigned long long)e->kept, (unsigned long long)e->cookies_released);
}

int engine_take_socket(struct engine *e)
{
	int fd = e->gate.fd;

	e->gate.fd = -1; /* engine_close must not close it */
	return fd;
}

/* VmHWM from /proc/self/status, in KiB; 0 if it cannot be read. */
static uint64_t peak_rss_kib(void)
{
	char buf[4096], *p;
	uint64_t kib = 0;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	if (p)
		p += strlen("\nVmHWM:");
	while (p && (*p == ' ' || *p == '\t'))
		p++;
	if (p)
		(void)number_parse(p, strspn(p, "0123456789"), UINT64_MAX, &kib);
	return kib;
}

void engine_stats(struct engine *e, struct engine_stats *s)
{
	uint64_t now = now_monotonic_usec();
	struct handler_set *hs = &e->handlers;

	memset(s, 0, sizeof(*s));
	s->phase = e->phase;
	s->settled = e->settled;
	s->devtmpfs = e->devtmpfs;
	s->uptime_usec = now - e->start_usec;
	memcpy(s->phase_usec, e->phase_usec, sizeof(s->phase_usec));
	s->phase_usec[e->phase] += now - e->phase_since;
	s->gate = e->gate.stats;
	s->handled = e->events_handled;
	s->rescans = e->rescans;
	s->in_hand = engine_in_hand(e);
	s->in_hand_max = e->in_hand_max;
	s->present = e->devices.n;
	s->triggers = e->coldplug.triggers;
	s->trigger_errors = e->coldplug.errors;
	s->awaiting_reply = settle_pending(&e->settle);
	s->untriggered = e->untriggered;
	s->given_back = e->given_back;
	s->abandoned = e->abandoned;
	s->first_seqnum = e->first_seqnum;
	s->last_seqnum = e->last_seqnum;
	s->peak_rss_kib = peak_rss_kib();
	s->log_dropped = log_dropped(e->log);
	s->root_first = e->root_first;
	s->root_settled = engine_root_settled(e);
	s->root_settled_usec = e->root_settled_usec;
	s->events_root = e->events_root;
	s->root_left = coldplug_run_root_left(&e->coldplug);
	if (!hs->ready) /* not started: the handlers have nothing to say */
		return;
	s->nodes = devnode_count(&hs->devnode);
	devnode_snapshot(&hs->devnode, &s->devnode);
	disk_links_snapshot(&hs->links, &s->disk_links);
	modload_snapshot(&hs->modload, &s->modules, &s->modules_loading);
	rules_handler_snapshot(&hs->rules, &s->rules);
}

struct emit_ctx {
	void (*emit)(void *u, const char *line);
	void *u;
};

static void emit_pending_device(void *userdata, const char *devpath)
{
	struct emit_ctx *c = userdata;
	char line[PATH_MAX + 64];

	snprintf(line, sizeof(line), "no reply to trigger: %s", devpath);
	c->emit(c->u, line);
}

void engine_describe_pending(struct engine *e, void (*emit)(void *u, const char *line), void *u)
{
	struct emit_ctx c = { emit, u };
	struct engine_stats s;
	char line[256];
	size_t n;

	engine_stats(e, &s);
	if (e->coldplug.active) {
		snprintf(line, sizeof(line), "triggers not yet written: %zu",
			 coldplug_run_left(&e->coldplug));
		emit(u, line);
	}
	n = settle_list_pending(&e->settle, 50, emit_pending_device, &c);
	if (n > 50) {
		snprintf(line, sizeof(line), "... and %zu more without reply", n - 50);
		emit(u, line);
	}
	if (s.modules_loading) {
		snprintf(line, sizeof(line), "modules loading: %u", s.modules_loading);
		emit(u, line);
	}
	if (s.in_hand) {
		snprintf(line, sizeof(line), "events queued or running: %zu", s.in_hand);
		emit(u, line);
	}
}
