/* SPDX-License-Identifier: MIT */
#include "handlers/rules.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handlers/disk.h"
#include "handlers/dm-cookie.h"
#include "rules/builtins.h"
#include "util/escape.h"
#include "util/number.h"

#define ENV_MAX (UEVENT_ENV_MAX_VARS + 24)

struct rules_loaded {
	struct rules rules;
	struct hwdb hwdb; /* read with the rules: a reload rereads it, as udevd's does */
	unsigned int refs; /* under the handler's lock */
};

static const char *const default_dirs[] = RULES_DIRS_DEFAULT;

/* ---- loading and reloading ------------------------------------------ */

static void diag(void *u, int prio, const char *file, unsigned int line, const char *msg)
{
	const struct logger *log = u;
	char x[512];

	if (log)
		log_msg(log, prio <= LOG_ERR ? LOG_WARNING : LOG_DEBUG, "%s:%u: %s", file, line,
			escape_log(x, sizeof(x), msg, strlen(msg)));
}

/* The hwdb builtin's database; without one the builtin fails, as udev's does. */
static void load_hwdb(struct rules_handler *h, struct hwdb *db)
{
	const char *path = NULL, *why = NULL;
	int r = hwdb_open(db, hwdb_default_paths, &path, &why);

	if (r == -ENOENT && !path)
		log_msg(h->log, LOG_DEBUG, "rules: no hwdb.bin, the hwdb builtin finds nothing");
	else if (r < 0)
		log_errno(h->log, LOG_WARNING, r, "rules: %s: not read%s%s: the hwdb builtin finds "
			  "nothing", path, why ? ", " : "", why ? why : "");
}

static int load(struct rules_handler *h, struct rules_loaded **out)
{
	struct rules_diag d = { diag, (void *)h->log };
	struct rules_loaded *l = calloc(1, sizeof(*l));
	int r;

	if (!l)
		return -ENOMEM;
	rules_init(&l->rules, h->log, &d);
	r = rules_load_dirs(&l->rules, h->dirs);
	if (r < 0) {
		rules_free(&l->rules);
		free(l);
		return log_errno(h->log, LOG_ERR, r, "rules: cannot load");
	}
	load_hwdb(h, &l->hwdb);
	l->refs = 1;
	*out = l;
	log_msg(h->log, LOG_INFO, "rules: %zu files, %zu lines%s", l->rules.nfiles, l->rules.nlines,
		l->rules.errors ? " (some lines ignored, see above)" : "");
	return 0;
}

static void put(struct rules_handler *h, struct rules_loaded *l)
{
	bool last;

	if (!l)
		return;
	pthread_mutex_lock(&h->lock);
	last = --l->refs == 0;
	pthread_mutex_unlock(&h->lock);
	if (last) {
		rules_free(&l->rules);
		hwdb_close(&l->hwdb);
		free(l);
	}
}

static struct rules_loaded *get(struct rules_handler *h)
{
	struct rules_loaded *l;

	pthread_mutex_lock(&h->lock);
	l = h->current;
	if (l)
		l->refs++;
	pthread_mutex_unlock(&h->lock);
	return l;
}

int rules_handler_reload(struct rules_handler *h)
{
	struct rules_loaded *l, *old;
	int r = load(h, &l);

	if (r < 0)
		return r;
	pthread_mutex_lock(&h->lock);
	old = h->current;
	h->current = l;
	h->stats.reloads++;
	pthread_mutex_unlock(&h->lock);
	put(h, old);
	return 0;
}

int rules_handler_init(struct rules_handler *h, const struct rules_handler_config *cfg,
		       struct devnode *devnode, struct disk_links *links, struct modload *modload,
		       const struct logger *log)
{
	unsigned int t = cfg->timeout_sec ? cfg->timeout_sec : RULES_EVENT_TIMEOUT_DEFAULT;
	int r;

	memset(h, 0, sizeof(*h));
	h->log = log;
	h->dirs = cfg->dirs ? cfg->dirs : default_dirs;
	h->devnode = devnode;
	h->links = links;
	h->modload = modload;
	h->timeout_usec = (uint64_t)t * 1000000ULL;
	/* udev's helper directory: /usr/lib/udev where /lib is merged into /usr */
	h->libexec = access("/usr/lib/udev", F_OK) == 0 ? "/usr/lib/udev" : "/lib/udev";
	h->sys.fd = -1;
	h->udevdb.dirfd = -1;
	h->bcast.fd = -1;
	pthread_mutex_init(&h->lock, NULL);
	dm_cookie_book_init(&h->cookies);
	rules_db_init(&h->db);
	h->sysfs = strdup(cfg->sysfs);
	h->dev = strdup(cfg->dev ? cfg->dev : "/dev");
	h->cmdline = strdup(cfg->cmdline ? cfg->cmdline : "");
	if (!h->sysfs || !h->dev || !h->cmdline)
		return -ENOMEM;
	r = sysdev_root_open(&h->sys, cfg->sysfs);
	if (r < 0)
		return log_errno(log, LOG_ERR, r, "rules: %s", cfg->sysfs);
	if (cfg->udev_run && (r = udev_db_open(&h->udevdb, cfg->udev_run, log)) < 0)
		log_errno(log, LOG_WARNING, r, "%s: the udev database for the real root is not "
			  "written", cfg->udev_run);
	if (cfg->broadcast && (r = udev_broadcast_open(&h->bcast)) < 0)
		log_errno(log, LOG_WARNING, r, "udev's listeners (netlink group 2) are not told "
			  "of events");
	return load(h, &h->current);
}

void rules_handler_fini(struct rules_handler *h)
{
	put(h, h->current);
	h->current = NULL;
	props_clear(&h->global);
	rules_db_fini(&h->db);
	udev_db_close(&h->udevdb);
	udev_broadcast_close(&h->bcast);
	sysdev_root_close(&h->sys);
	pthread_mutex_destroy(&h->lock);
	dm_cookie_book_fini(&h->cookies);
	free(h->sysfs);
	free(h->dev);
	free(h->cmdline);
	h->sysfs = h->dev = h->cmdline = NULL;
}

int rules_handler_set_property(struct rules_handler *h, const char *key, const char *value)
{
	int r;

	pthread_mutex_lock(&h->lock);
	r = props_set(&h->global, key, value, false);
	pthread_mutex_unlock(&h->lock);
	return r;
}

size_t rules_handler_lines(struct rules_handler *h)
{
	struct rules_loaded *l = get(h);
	size_t n = l ? l->rules.nlines : 0;

	put(h, l);
	return n;
}

void rules_handler_snapshot(struct rules_handler *h, struct rules_handler_stats *s)
{
	pthread_mutex_lock(&h->lock);
	*s = h->stats;
	pthread_mutex_unlock(&h->lock);
}

/* ---- one event -------------------------------------------------------- */

#define NATIVE_MAX 32

struct call {
	struct rules_handler *h;
	struct modload_worker *kmod; /* this worker's libkmod context, or NULL */
	struct disk_links_device_info info;
	bool probed;                            /* info holds the native probe of this device */
	char native[NATIVE_MAX][LINK_NAME_MAX]; /* its native links ("disk/by-uuid/X") */
	size_t nnative;
};

static int load_module(void *u, const char *name, bool alias)
{
	struct call *c = u;

	if (!c->kmod)
		return -EOPNOTSUPP;
	return alias ? modload_alias(c->kmod, name) : modload_name(c->kmod, name);
}

static bool native_probe(void *u, const char *devpath, struct probe_result *out)
{
	struct call *c = u;

	(void)devpath;
	if (!c->probed)
		return false;
	*out = c->info.probe;
	return true;
}

/*
 * The event's KEY=VALUE list, then what the native block handler found
 * (udev's 60-persistent-storage.rules would have imported it with blkid,
 * and named these links: they are in DEVLINKS, as in udev), and what
 * udev's 50-udev-default.rules sets for block devices.
 */
static int event_from(struct call *c, const struct uevent *ev, const struct rules_record *old,
		      struct rules_event *out)
{
	const char *env[ENV_MAX];
	size_t n = 0;
	int r;

	for (size_t i = 0; i < ev->nenv && n < UEVENT_ENV_MAX_VARS; i++)
		env[n++] = ev->env[i];
	r = rules_event_init(out, env, n, old);
	if (r == 0 && c->probed && ev->action != UEVENT_REMOVE)
		r = rules_blkid_props(out, &c->info.probe);
	if (r == 0)
		r = rules_default_props(out);
	for (size_t i = 0; r >= 0 && i < c->nnative; i++) {
		char name[LINK_NAME_MAX + 8];

		snprintf(name, sizeof(name), "/dev/%s", c->native[i]);
		r = strv_add(&out->links, name);
	}
	if (r >= 0)
		r = rules_event_finish(out);
	if (r < 0)
		rules_event_free(out);
	return r;
}

/*
 * A btrfs member's filesystem names, which the disk handler held back
 * until its rules ran (disk.h: 64-btrfs.rules' builtin registers the
 * member with the kernel): every native name of the device into names,
 * the held ones also into c->native (DEVLINKS lists them, and they stay
 * native names, not rules links). Returns the count; 0 for other devices.
 */
static size_t held_names(struct call *c, const struct uevent *ev, char (*names)[LINK_NAME_MAX])
{
	size_t n;

	if (!c->probed || ev->action == UEVENT_REMOVE || !ev->devname || !ev->has_devnum ||
	    !disk_holds_names(&c->info.probe))
		return 0;
	n = disk_link_names(c->h->sysfs, ev, &c->info.probe, names);
	for (size_t i = 0; i < n && c->nnative < NATIVE_MAX; i++) {
		if (!disk_held_name(names[i]) ||
		    (size_t)snprintf(c->native[c->nnative], LINK_NAME_MAX, "disk/%s", names[i]) >=
			    LINK_NAME_MAX)
			continue;
		c->nnative++;
	}
	return n;
}

/* Link the names held_names found, after the rules (udev: before RUN). */
static void link_held(struct call *c, const struct uevent *ev, char (*names)[LINK_NAME_MAX],
		      size_t n)
{
	const char *ptrs[DISK_NAMES_MAX];

	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		ptrs[i] = names[i];
	(void)disk_links_update(c->h->links, ev->devpath, &c->info, 0, ptrs, n);
}

/* SYMLINK results go through the link table, relative to --dev. */
static void apply_links(struct call *c, const struct uevent *ev, struct rules_event *re)
{
	struct disk_links_device_info info = { .major = ev->major, .minor = ev->minor };
	const char **names;
	size_t n = 0;

	if (!ev->devname || !ev->has_devnum)
		return;
	/* up to STRV_MAX links: too many for a worker's stack */
	names = calloc(re->links.n + 1, sizeof(*names));
	if (!names) {
		log_msg(c->h->log, LOG_WARNING, "%s: rules links: out of memory", ev->devpath);
		return;
	}
	snprintf(info.devname, sizeof(info.devname), "%s", ev->devname);
	for (size_t i = 0; i < re->links.n; i++) {
		const char *name = re->links.v[i] + strlen("/dev/");
		bool native = false;

		for (size_t j = 0; j < c->nnative && !native; j++)
			native = strcmp(name, c->native[j]) == 0;
		if (native)
			continue; /* the disk handler keeps it */
		if (rules_link_valid(re->links.v[i]))
			names[n++] = name;
		else
			log_msg(c->h->log, LOG_WARNING,
				"%s: rules link refused (not a plain name "
				"below /dev)",
				ev->devpath);
	}
	/* a name can be contested: a USB stick's rules links tie like its native ones */
	if (n > 0)
		info.removable = disk_removable(c->h->sysfs, ev->devpath,
						ev->devtype && strcmp(ev->devtype, "partition") == 0);
	(void)disk_links_update_rules(c->h->links, ev->devpath, &info, re->link_priority, names, n);
	free(names);
}

/* The links initdev made (or the disk handler keeps) for ev, as udev lists them. */
static void made_links(const struct rules_event *re, struct strv *out)
{
	for (size_t i = 0; i < re->links.n; i++)
		if (rules_link_valid(re->links.v[i]))
			(void)strv_add(out, re->links.v[i]);
}

/* udev's id of ev's device (udev-db.h) and its interface index; false if it has none */
static bool device_id(const struct uevent *ev, char id[UDEV_DB_ID_MAX], unsigned int *ifindex)
{
	const char *s = uevent_get(ev, "IFINDEX");
	uint64_t n = 0;
	struct udev_db_device d = { .subsystem = ev->subsystem, .devpath = ev->devpath,
				    .has_devnum = ev->has_devnum, .major = ev->major,
				    .minor = ev->minor };

	if (s && number_parse_str(s, INT_MAX, &n) == 0)
		d.ifindex = (unsigned int)n;
	*ifindex = d.ifindex;
	return udev_db_device_id(&d, id) == 0;
}

/* e for ev's device: its record rec (NULL: none, only the id), links, this event's re (or NULL) */
static void db_entry(const struct uevent *ev, const char *id, unsigned int ifindex,
		     const struct rules_event *re, const struct rules_record *rec,
		     const struct strv *links, struct udev_db_entry *e)
{
	*e = (struct udev_db_entry){
		.id = id,
		.block = strcmp(ev->subsystem, "block") == 0,
		.major = ev->has_devnum ? ev->major : 0,
		.minor = ev->has_devnum ? ev->minor : 0,
		.ifindex = ifindex,
		.devnode = re && re->devname[0] ? re->devname : NULL,
		.links = links,
		.current_tags = re ? &re->current_tags : NULL,
	};
	if (!rec)
		return;
	e->link_priority = rec->link_priority;
	e->usec_initialized = rec->usec_initialized;
	e->props = &rec->props;
	e->tags = &rec->tags;
	e->persist = rec->persist;
}

/*
 * udev's database entry of the device (udev-db.h), written after each of
 * its events as udevd writes it (device_update_db): for every device with
 * a number, an interface index or something the rules set, so PID 1's
 * device units, libudev and sd-device clients in the initrd read what
 * they read with udevd; removed with the device. db_persist marks the
 * entries `udevadm info --cleanup-db` leaves to the real root. Written
 * after each event, a device's entry is right whenever initdev stops (a
 * handoff, an exit, a crash): nothing is left to do at the handoff.
 */
static void persist(struct call *c, const struct uevent *ev, const struct rules_event *re,
		    const struct rules_record *old)
{
	struct rules_handler *h = c->h;
	struct udev_db_entry now, before;
	struct rules_record rec = { 0 };
	struct strv links = STRV_INIT;
	char id[UDEV_DB_ID_MAX];
	unsigned int ifindex;
	int r;

	if (h->udevdb.dirfd < 0 || !device_id(ev, id, &ifindex))
		return;
	db_entry(ev, id, ifindex, NULL, old, old ? &old->links : NULL, &before);
	if (re->remove) {
		r = udev_db_remove(&h->udevdb, &before);
	} else if ((r = rules_record_from_event(&rec, re)) == 0) {
		made_links(re, &links);
		db_entry(ev, id, ifindex, re, &rec, &links, &now);
		r = udev_db_write(&h->udevdb, &now, old ? &before : NULL);
		pthread_mutex_lock(&h->lock);
		h->stats.db_entries += r == 0;
		pthread_mutex_unlock(&h->lock);
	}
	if (r < 0)
		log_errno(h->log, LOG_WARNING, r, "%s: udev database entry data/%s", ev->devpath, id);
	strv_clear(&links);
	rules_record_free(&rec);
}

static void apply_results(struct call *c, const struct uevent *ev, struct rules_event *re)
{
	struct rules_handler *h = c->h;

	if (ev->action == UEVENT_REMOVE) {
		(void)disk_links_remove(h->links, ev->devpath);
	} else {
		apply_links(c, ev, re);
		if (re->uid != (uid_t)-1 || re->gid != (gid_t)-1 || re->mode != (mode_t)-1)
			(void)devnode_set_perms(h->devnode, ev->devpath, re->uid, re->gid,
						rules_event_mode(re));
	}
	if (rules_db_store(&h->db, re) < 0)
		log_msg(h->log, LOG_WARNING, "%s: rules: out of memory keeping its properties",
			ev->devpath);
}

/*
 * The device as udevd has it after the event, to udev's listeners: after
 * the RUN programs (a listener that sees it may use the device) and the
 * cookie (a tool waiting on it must not see the broadcast first). A failed
 * send is logged once as a warning, then at debug level (it repeats).
 */
static void broadcast(struct rules_handler *h, const struct uevent *ev,
		      const struct rules_event *re)
{
	struct strv links = STRV_INIT;
	struct udev_broadcast_device d = { .subsystem = ev->subsystem, .devtype = ev->devtype,
					   .props = &re->props, .links = &links,
					   .tags = &re->tags, .current_tags = &re->current_tags,
					   .usec_initialized = re->usec_initialized };
	uint64_t failures;
	int r;

	if (h->bcast.fd < 0)
		return;
	made_links(re, &links);
	r = udev_broadcast_send(&h->bcast, &d);
	strv_clear(&links);
	pthread_mutex_lock(&h->lock);
	h->stats.broadcasts += r == 0;
	failures = h->stats.broadcast_failures += r < 0;
	pthread_mutex_unlock(&h->lock);
	if (r < 0)
		log_errno(h->log, failures == 1 ? LOG_WARNING : LOG_DEBUG, r,
			  "%s: not broadcast to udev's listeners", ev->devpath);
}

/* The rules' `dmsetup udevcomplete` entries, last in the run list: the cookie's release. */
struct releases {
	const struct rules_ctx *ctx;
	struct rules_event *re;
	size_t n;            /* the run list's last n entries */
	unsigned int failed;
};

static bool run_releases(void *u)
{
	struct releases *t = u;
	struct rules_run *all = t->re->run;
	size_t nall = t->re->nrun;
	bool released;

	if (t->n == 0)
		return false;
	t->re->run = all + nall - t->n;
	t->re->nrun = t->n;
	t->failed = rules_run_list(t->ctx, t->re);
	released = dm_cookie_released_by(t->re);
	t->re->run = all;
	t->re->nrun = nall;
	return released;
}

/*
 * Runs the rules on ev (none loaded: the event as it came), its RUN list
 * last, the rules' cookie release after the rest of it, under the cookie
 * book (dm-cookie.h), then broadcasts it. How the cookie was released (r:
 * the error).
 */
static enum dm_cookie_outcome run_event(struct call *c, const struct rules_loaded *l,
					const struct uevent *ev, int *r)
{
	struct rules_handler *h = c->h;
	const struct rules *rules = &l->rules;
	struct rules_builtins b = { .sysfs = h->sysfs,
				    .sys = &h->sys,
				    .hwdb = &l->hwdb,
				    .dev = h->dev,
				    .log = h->log,
				    .load = load_module,
				    .load_u = c,
				    .probed = native_probe,
				    .probed_u = c,
				    .warned = __atomic_load_n(&h->builtin_warned,
							      __ATOMIC_RELAXED) };
	struct rules_ctx ctx = { .sys = &h->sys,
				 .sysfs = h->sysfs,
				 .cmdline = h->cmdline,
				 .libexec = h->libexec,
				 .builtin = rules_builtins_run,
				 .program = rules_builtins_program,
				 .u = &b,
				 .record = rules_db_get,
				 .record_u = &h->db,
				 .log = h->log,
				 .deadline_usec = now_monotonic_usec() + h->timeout_usec };
	struct rules_record old = { 0 };
	bool have_old = rules_db_get(&h->db, ev->devpath, &old);
	struct props global = PROPS_INIT;

	pthread_mutex_lock(&h->lock);
	if (h->global.n > 0 && props_copy(&global, &h->global) == 0)
		ctx.global = &global;
	pthread_mutex_unlock(&h->lock);
	struct rules_event re;
	struct releases rel = { .ctx = &ctx, .re = &re };
	unsigned int failed;
	enum dm_cookie_outcome released;

	static __thread char held[DISK_NAMES_MAX][LINK_NAME_MAX];
	size_t nheld;

	c->probed = disk_links_device(h->links, ev->devpath, &c->info) && c->info.probed;
	c->nnative = disk_links_device_names(h->links, ev->devpath, c->native, NATIVE_MAX);
	nheld = held_names(c, ev, held);
	if (event_from(c, ev, have_old ? &old : NULL, &re) < 0) {
		link_held(c, ev, held, nheld);
		log_msg(h->log, LOG_WARNING, "%s: rules: cannot build the event", ev->devpath);
		released = dm_cookie_book_end(&h->cookies, ev, NULL, NULL, r);
		goto out;
	}
	if (!re.usec_initialized)
		re.usec_initialized = now_monotonic_usec();
	if (rules_apply(rules, &ctx, &re) < 0)
		log_msg(h->log, LOG_WARNING, "%s: rules: a bound was hit, results so far kept",
			ev->devpath);
	(void)rules_event_finish(&re);
	apply_results(c, ev, &re);
	link_held(c, ev, held, nheld);
	persist(c, ev, &re, have_old ? &old : NULL);
	rel.n = dm_cookie_releases_last(&re);
	re.nrun -= rel.n;
	failed = rules_run_list(&ctx, &re);
	re.nrun += rel.n;
	released = dm_cookie_book_end(&h->cookies, ev, run_releases, &rel, r);
	failed += rel.failed;
	broadcast(h, ev, &re);
	__atomic_fetch_or(&h->builtin_warned, b.warned, __ATOMIC_RELAXED);
	pthread_mutex_lock(&h->lock);
	h->stats.events++;
	h->stats.runs += re.nrun;
	h->stats.run_failures += failed;
	pthread_mutex_unlock(&h->lock);
	rules_event_free(&re);
out:
	props_clear(&global);
	if (have_old)
		rules_record_free(&old);
	return released;
}

/* ---- the handler contract ------------------------------------------- */

static bool may_block(void *ctx, const struct uevent *ev)
{
	(void)ev;
	/* rules run programs and read devices: never on the main thread */
	return rules_handler_lines(ctx) > 0;
}

/*
 * A dm event's cookie must be released once, after the event (tools wait
 * on it without a timeout): by 95-dm-notify.rules' RUN, or here when that
 * did not run (no rules, a rule missing, the event's time up) or failed,
 * or by a handoff that gave the event up (dm_cookie_book_close).
 */
static void log_cookie(struct rules_handler *h, const struct uevent *ev,
		       enum dm_cookie_outcome o, int r)
{
	uint32_t cookie = 0;

	(void)dm_cookie_of(ev, &cookie);
	if (o == DM_COOKIE_BY_US) {
		pthread_mutex_lock(&h->lock);
		h->stats.cookies_rescued++;
		pthread_mutex_unlock(&h->lock);
		log_msg(h->log, LOG_WARNING, "%s: device-mapper cookie %u released by initdev: "
			"the rules' 'dmsetup udevcomplete' did not run or failed", ev->devpath,
			cookie);
	} else if (o == DM_COOKIE_FAILED && r != -ENOENT) {
		log_errno(h->log, LOG_WARNING, r, "%s: device-mapper cookie %u", ev->devpath,
			  cookie);
	} else if (o == DM_COOKIE_HANDED_OFF) {
		log_msg(h->log, LOG_DEBUG, "%s: device-mapper cookie %u was released at the "
			"handoff", ev->devpath, cookie);
	}
}

static void handle(void *ctx, const struct handler_call *call)
{
	struct rules_handler *h = ctx;
	struct rules_loaded *l = get(h);
	struct call c = { .h = h, .kmod = call->worker };
	enum dm_cookie_outcome o;
	int r = 0;

	if (c.kmod)
		c.kmod->seqnum = call->ev->seqnum; /* the trace ties its modules to the event */
	/* also without rules: udevd keeps every device's record and broadcasts every event */
	if (l) {
		o = run_event(&c, l, call->ev, &r);
	} else {
		static __thread char held[DISK_NAMES_MAX][LINK_NAME_MAX];

		c.probed = disk_links_device(h->links, call->ev->devpath, &c.info) && c.info.probed;
		link_held(&c, call->ev, held, held_names(&c, call->ev, held));
		o = dm_cookie_book_end(&h->cookies, call->ev, NULL, NULL, &r);
	}
	put(h, l);
	log_cookie(h, call->ev, o, r);
}

static void *worker_new(void *ctx)
{
	struct rules_handler *h = ctx;
	struct modload_worker *w;

	if (!h->modload || !(w = calloc(1, sizeof(*w))))
		return NULL;
	modload_worker_init(w, h->modload);
	return w;
}

static void worker_free(void *worker)
{
	if (!worker)
		return;
	modload_worker_fini(worker);
	free(worker);
}

static int reload(void *ctx)
{
	return rules_handler_reload(ctx);
}

static int set_property(void *ctx, const char *key, const char *value)
{
	return rules_handler_set_property(ctx, key, value);
}

const struct handler_ops rules_handler = {
	.name = "rules",
	.may_block = may_block,
	.handle = handle,
	.worker_new = worker_new,
	.worker_free = worker_free,
	.reload = reload,
	.set_property = set_property,
};
