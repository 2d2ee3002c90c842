/* SPDX-License-Identifier: MIT */
#include "engine/engine.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COLDPLUG_BATCH 64

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
	log_msg(e->log, LOG_DEBUG, "phase %s", engine_phase_name(p));
}

static void on_event(void *userdata, const struct uevent *ev);

int engine_open(struct engine *e, const struct engine_config *cfg,
		const struct cmdline *cmdline, const struct logger *log)
{
	struct uevent_socket_options so = { .rcvbuf = cfg->rcvbuf };
	int r;

	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	e->log = log;
	e->cmdline = cmdline;
	e->start_usec = e->phase_since = now_monotonic_usec();
	e->cp_batch = COLDPLUG_BATCH;
	e->synth_ok = true;
	settle_init(&e->settle);
	r = gate_open(&e->gate, log, &so);
	if (r < 0)
		log_msg(log, LOG_ERR, "cannot open the kernel uevent socket: %s", strerror(-r));
	return r;
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

/* devtmpfs if the kernel offers it and it was not declined; else mknod. */
static void choose_dev_mode(struct engine *e)
{
	int r;

	if (e->cfg.no_devtmpfs) {
		log_msg(e->log, LOG_INFO, "%s: creating nodes with mknod (--no-devtmpfs)", e->cfg.dev);
		return;
	}
	if (devnode_is_devtmpfs(e->cfg.dev)) {
		e->devtmpfs = true;
		return;
	}
	r = devnode_mount_devtmpfs(e->cfg.dev);
	if (r == 0) {
		e->devtmpfs = true;
		log_msg(e->log, LOG_INFO, "mounted devtmpfs on %s", e->cfg.dev);
	} else {
		log_msg(e->log, LOG_NOTICE, "%s: no devtmpfs (%s); creating nodes with mknod",
			e->cfg.dev, strerror(-r));
	}
}

static void handle_event(void *ctx, struct queue_worker *w, const struct uevent *ev);

/*
 * Threads start with the first event that needs one (a module to load):
 * a coldplug that only makes nodes never pays for them.
 */
static int start_workers(struct engine *e)
{
	unsigned int n = worker_count(e);
	void **data = calloc(n, sizeof(*data));
	int r;

	e->mworkers = calloc(n, sizeof(*e->mworkers));
	if (!data || !e->mworkers) {
		free(data);
		free(e->mworkers);
		e->mworkers = NULL;
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n; i++) {
		modload_worker_init(&e->mworkers[i], &e->modload);
		data[i] = &e->mworkers[i];
	}
	e->nmworkers = n;
	r = queue_start(&e->queue, n, data);
	free(data);
	e->workers_started = true;
	log_msg(e->log, r < 0 ? LOG_ERR : LOG_DEBUG, "up to %u workers%s%s", n,
		r < 0 ? ": " : "", r < 0 ? strerror(-r) : "");
	return r;
}

/* rd.driver.pre: loaded before coldplug, in order. */
static void preload(struct engine *e)
{
	struct modload_worker w;

	if (e->cmdline->npre == 0)
		return;
	enter_phase(e, PHASE_PRELOAD);
	modload_worker_init(&w, &e->modload);
	for (size_t i = 0; i < e->cmdline->npre; i++)
		(void)modload_name(&w, e->cmdline->pre[i]);
	modload_worker_fini(&w);
}

/* Append src's devices to dst (taking ownership of the strings). */
static int append_list(struct coldplug_list *dst, struct coldplug_list *src)
{
	if (dst->n + src->n > dst->cap) {
		size_t cap = dst->n + src->n;
		struct coldplug_device *v = realloc(dst->dev, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		dst->dev = v;
		dst->cap = cap;
	}
	if (src->n > 0) /* an empty walk may have no array at all */
		memcpy(dst->dev + dst->n, src->dev, src->n * sizeof(*src->dev));
	dst->n += src->n;
	free(src->dev);
	*src = (struct coldplug_list){ 0 };
	return 0;
}

static int scan_subtrees(struct engine *e)
{
	unsigned int n = e->cfg.nsubtrees ? e->cfg.nsubtrees : 1;

	for (unsigned int i = 0; i < n; i++) {
		const char *sub = e->cfg.nsubtrees ? e->cfg.subtrees[i] : "/devices";
		struct coldplug_list one = { 0 };
		int r = coldplug_scan(e->cfg.sysfs, sub, &one);

		if (r == 0)
			r = append_list(&e->cp, &one);
		if (r < 0) {
			coldplug_list_free(&one);
			log_msg(e->log, LOG_ERR, "coldplug: cannot walk %s%s: %s",
				e->cfg.sysfs, sub, strerror(-r));
			return r;
		}
	}
	return 0;
}

static int begin_coldplug(struct engine *e)
{
	int r = scan_subtrees(e);

	if (r < 0)
		return r;
	e->cp_next = 0;
	e->cp_active = true;
	e->settled = false;
	enter_phase(e, PHASE_COLDPLUG);
	log_msg(e->log, LOG_INFO, "coldplug: %zu devices to trigger", e->cp.n);
	return 0;
}

int engine_coldplug(struct engine *e)
{
	/* already walking: the running pass covers the request */
	return e->cp_active ? 0 : begin_coldplug(e);
}

int engine_start(struct engine *e)
{
	int r;

	choose_dev_mode(e);
	const char *rules = e->cfg.rules_path ? e->cfg.rules_path : "/etc/initdev/rules";

	r = perms_load(&e->perms, rules, e->log);
	if (r < 0)
		log_msg(e->log, LOG_WARNING, "rules: %s: %s; no rules apply", rules, strerror(-r));
	r = devnode_init(&e->devnode, e->cfg.dev, !e->devtmpfs, &e->perms, e->log);
	if (r < 0) {
		log_msg(e->log, LOG_ERR, "%s: %s", e->cfg.dev, strerror(-r));
		return r;
	}
	r = disk_links_init(&e->links, e->devnode.devfd, e->log);
	if (r < 0) {
		log_msg(e->log, LOG_ERR, "%s/disk: %s", e->cfg.dev, strerror(-r));
		return r;
	}
	e->links_ready = true;
	disk_init(&e->disk, e->cfg.sysfs, e->devnode.devfd, &e->links, e->log);
	r = modload_init(&e->modload, e->cfg.modules_dir, e->cfg.modprobe_d,
			 e->cmdline->blacklist, e->cmdline->nblacklist, e->log);
	if (r < 0)
		return r;
	r = queue_init(&e->queue, handle_event, e);
	if (r < 0) {
		log_msg(e->log, LOG_ERR, "cannot set up the event queue: %s", strerror(-r));
		return r;
	}
	e->queue_started = true;
	preload(e);
	if (e->cfg.coldplug)
		return begin_coldplug(e);
	enter_phase(e, PHASE_SETTLING);
	return 0;
}

void engine_close(struct engine *e)
{
	if (e->queue_started) {
		queue_stop(&e->queue);
		for (unsigned int i = 0; i < e->nmworkers; i++)
			modload_worker_fini(&e->mworkers[i]);
		free(e->mworkers);
		e->mworkers = NULL;
		modload_fini(&e->modload);
		if (e->links_ready) {
			disk_fini(&e->disk);
			disk_links_fini(&e->links);
		}
		devnode_fini(&e->devnode);
		perms_free(&e->perms);
	}
	e->queue_started = false;
	coldplug_list_free(&e->cp);
	settle_fini(&e->settle);
	map_clear(&e->devices, NULL);
	gate_close(&e->gate);
}

/* ---- worker side ---- */

static bool needs_worker(const struct uevent *ev);

static void handle_event(void *ctx, struct queue_worker *w, const struct uevent *ev)
{
	struct engine *e = ctx;

	if (ev->devname)
		(void)devnode_handle(&e->devnode, ev);
	disk_handle(&e->disk, ev);
	if (ev->action == UEVENT_ADD && ev->modalias && w)
		(void)modload_alias(w->data, ev->modalias);
}

/* ---- main thread side ---- */

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

/* Work that may block (module loading, reading a disk) belongs on a worker. */
static bool needs_worker(const struct uevent *ev)
{
	if (ev->action == UEVENT_ADD && ev->modalias)
		return true;
	return strcmp(ev->subsystem, "block") == 0 && ev->devname &&
	       (ev->action == UEVENT_ADD || ev->action == UEVENT_CHANGE ||
		ev->action == UEVENT_MOVE);
}

static void on_event(void *userdata, const struct uevent *ev)
{
	struct engine *e = userdata;

	track_device(e, ev);
	e->settled = false;
	/*
	 * The queue with immediate dispatch: an event that only touches /dev
	 * and has no related event ahead of it is handled right here, in
	 * SEQNUM order, without a round trip through a worker thread.
	 */
	if (needs_worker(ev) && !e->workers_started)
		(void)start_workers(e);
	if ((!needs_worker(ev) && !queue_has_related(&e->queue, ev)) ||
	    e->queue.nworkers == 0) {
		/* (without any thread, modules cannot be loaded: logged at start) */
		handle_event(e, NULL, ev);
		event_done(e, ev->synth_uuid);
		return;
	}
	if (queue_push(&e->queue, ev) < 0)
		log_msg(e->log, LOG_ERR, "out of memory queueing event %llu; dropped",
			(unsigned long long)ev->seqnum);
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

/* Events were lost: re-read sysfs, drop what vanished, re-trigger everything. */
static void rescan(struct engine *e)
{
	int pruned;

	e->rescans++;
	settle_forget_all(&e->settle);
	pruned = devnode_prune(&e->devnode, e->cfg.sysfs);
	map_foreach(&e->devices, forget_gone, e);
	coldplug_list_free(&e->cp);
	e->cfg.test_unpaced = false;
	e->cp_batch = e->cp_batch > 1 ? e->cp_batch / 2 : 1;
	log_msg(e->log, LOG_WARNING, "events were lost: removed %d stale nodes, "
		"re-triggering every device (batch %u)", pruned > 0 ? pruned : 0, e->cp_batch);
	(void)begin_coldplug(e);
}

void engine_on_socket(struct engine *e)
{
	int r = gate_read(&e->gate, on_event, e, 64);

	if (r == GATE_EVENTS_LOST)
		rescan(e);
	else if (r < 0)
		log_msg(e->log, LOG_ERR, "uevent socket: %s", strerror(-r));
}

void engine_on_done(struct engine *e)
{
	struct queued_event *ev = queue_take_done(&e->queue);

	while (ev) {
		struct queued_event *next = ev->next;

		event_done(e, ev->synth_uuid);
		free(ev);
		ev = next;
	}
}

static void trigger_failed(struct engine *e, const char *devpath, int r)
{
	if (r == -ENOENT)
		return; /* the device went away meanwhile */
	if (r == -ENODEV) {
		log_msg(e->log, LOG_INFO, "coldplug: %s%s/uevent: %s", e->cfg.sysfs, devpath, strerror(-r));
		return;
	}
	e->trigger_errors++;
	log_msg(e->log, LOG_WARNING, "coldplug: cannot trigger %s%s/uevent: %s",
		e->cfg.sysfs, devpath, strerror(-r));
}

static void trigger_one(struct engine *e, const char *devpath)
{
	char uuid[COLDPLUG_UUID_LEN + 1];
	bool with_uuid = e->synth_ok && coldplug_new_uuid(&e->uuids, uuid) == 0 &&
			 settle_expect(&e->settle, uuid, devpath) == 0;
	int r = coldplug_trigger(e->cfg.sysfs, devpath, "add", with_uuid ? uuid : NULL);

	if (r == -EINVAL && with_uuid) {
		/* a kernel before 4.13 refuses "add UUID": fall back to SEQNUM */
		settle_forget(&e->settle, uuid);
		with_uuid = false;
		r = coldplug_trigger(e->cfg.sysfs, devpath, "add", NULL);
		if (r == 0 && !e->synth_proven) {
			e->synth_ok = false;
			log_msg(e->log, LOG_NOTICE, "kernel has no synthetic uevents; "
				"tracking coldplug by SEQNUM");
		}
	}
	if (r < 0) {
		if (with_uuid)
			settle_forget(&e->settle, uuid);
		trigger_failed(e, devpath, r);
		return;
	}
	e->synth_proven |= with_uuid;
	e->triggers++;
}

static void coldplug_step(struct engine *e)
{
	size_t limit = e->cfg.test_unpaced ? SIZE_MAX : e->cp_batch;

	if (!e->cp_active)
		return;
	/* pace: at most two batches of replies outstanding, so the socket
	 * buffer and the queue stay small however many devices there are */
	if (!e->cfg.test_unpaced && settle_pending(&e->settle) > 2 * (size_t)e->cp_batch)
		return;
	for (size_t n = 0; n < limit && e->cp_next < e->cp.n; n++)
		trigger_one(e, e->cp.dev[e->cp_next++].devpath);
	if (e->cp_next >= e->cp.n) {
		e->cp_active = false;
		coldplug_list_free(&e->cp);
		enter_phase(e, PHASE_SETTLING);
		log_msg(e->log, LOG_DEBUG, "coldplug: %llu triggers written",
			(unsigned long long)e->triggers);
	}
}

static bool busy(struct engine *e)
{
	return e->cp_active || settle_pending(&e->settle) > 0 ||
	       queue_pending(&e->queue) > 0;
}

/*
 * Nothing pending: read the kernel's counter, then drain the socket. If the
 * drain brought nothing, every event up to that SEQNUM that can reach us has
 * been handled.
 */
static void check_settled(struct engine *e)
{
	uint64_t seqnum = 0, before = e->gate.stats.accepted;

	if (e->settled || e->phase < PHASE_SETTLING || busy(e))
		return;
	if (settle_read_kernel_seqnum(e->cfg.sysfs, &seqnum) < 0)
		seqnum = 0;
	engine_on_socket(e);
	if (e->gate.stats.accepted != before || busy(e))
		return;
	e->settled = true;
	enter_phase(e, PHASE_SETTLED);
	/* the one line a normal boot logs: what was done, and how fast */
	log_msg(e->log, e->gate.stats.accepted ? LOG_NOTICE : LOG_DEBUG, "settled at kernel SEQNUM %llu after %.3f s: "
		"%zu devices, %llu events, %llu rejected",
		(unsigned long long)seqnum,
		(double)(now_monotonic_usec() - e->start_usec) / 1e6, e->devices.n,
		(unsigned long long)e->gate.stats.accepted,
		(unsigned long long)gate_rejected_total(&e->gate.stats));
}

void engine_step(struct engine *e)
{
	coldplug_step(e);
	if (!e->cp_active && !e->settled && e->phase == PHASE_SETTLED)
		enter_phase(e, PHASE_SETTLING);
	check_settled(e);
}

bool engine_has_work(const struct engine *e)
{
	return e->cp_active &&
	       (e->cfg.test_unpaced || settle_pending(&e->settle) <= 2 * (size_t)e->cp_batch);
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
	struct modload_stats ms;
	unsigned int inflight;
	char line[256];
	size_t n;

	if (e->cp_active) {
		snprintf(line, sizeof(line), "triggers not yet written: %zu", e->cp.n - e->cp_next);
		emit(u, line);
	}
	n = settle_list_pending(&e->settle, 50, emit_pending_device, &c);
	if (n > 50) {
		snprintf(line, sizeof(line), "... and %zu more without reply", n - 50);
		emit(u, line);
	}
	modload_snapshot(&e->modload, &ms, &inflight);
	if (inflight) {
		snprintf(line, sizeof(line), "modules loading: %u", inflight);
		emit(u, line);
	}
	n = queue_pending(&e->queue);
	if (n) {
		snprintf(line, sizeof(line), "events queued or running: %zu", n);
		emit(u, line);
	}
}

struct props_ctx {
	const char *devpath;
	struct disk_links_device_info info;
	bool found;
};

static void find_block(void *u, const char *devpath, const struct disk_links_device_info *info)
{
	struct props_ctx *c = u;

	if (!c->found && strcmp(devpath, c->devpath) == 0) {
		c->info = *info;
		c->found = true;
	}
}

static void put_prop(char *buf, size_t size, size_t *len, const char *key, const char *value)
{
	int n;

	if (!value[0] || *len >= size)
		return;
	n = snprintf(buf + *len, size - *len, "%s=%s\n", key, value);
	if (n > 0 && (size_t)n < size - *len)
		*len += (size_t)n;
}

void engine_block_properties(struct engine *e, const char *devpath, char *buf,
			     size_t size, size_t *len)
{
	struct props_ctx c = { .devpath = devpath };
	const struct probe_result *p = &c.info.probe;
	char num[16];

	if (!e->links_ready)
		return;
	disk_links_foreach_device(&e->links, find_block, &c);
	if (!c.found || !c.info.probed)
		return;
	put_prop(buf, size, len, "ID_FS_TYPE", p->fs_type);
	put_prop(buf, size, len, "ID_FS_USAGE", p->fs_usage);
	put_prop(buf, size, len, "ID_FS_VERSION", p->fs_version);
	put_prop(buf, size, len, "ID_FS_UUID", p->fs_uuid);
	put_prop(buf, size, len, "ID_FS_UUID_ENC", p->fs_uuid_enc);
	put_prop(buf, size, len, "ID_FS_UUID_SUB", p->fs_uuid_sub);
	put_prop(buf, size, len, "ID_FS_LABEL", p->fs_label);
	put_prop(buf, size, len, "ID_FS_LABEL_ENC", p->fs_label_enc);
	put_prop(buf, size, len, "ID_PART_TABLE_TYPE", p->pt_type);
	put_prop(buf, size, len, "ID_PART_TABLE_UUID", p->pt_uuid);
	if (!p->has_part_entry)
		return;
	put_prop(buf, size, len, "ID_PART_ENTRY_SCHEME", p->part_scheme);
	put_prop(buf, size, len, "ID_PART_ENTRY_UUID", p->part_uuid);
	put_prop(buf, size, len, "ID_PART_ENTRY_NAME", p->part_name_enc);
	put_prop(buf, size, len, "ID_PART_ENTRY_TYPE", p->part_type);
	snprintf(num, sizeof(num), "%u", p->part_number);
	put_prop(buf, size, len, "ID_PART_ENTRY_NUMBER", num);
}
