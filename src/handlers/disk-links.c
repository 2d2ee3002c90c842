/* SPDX-License-Identifier: MIT */
/*
 * Every change goes through one lock: the table is updated first, then each
 * affected name is synced to the filesystem (sync_entry), so what is on disk
 * always follows the table's winner. Links are made as udev makes them,
 * relative: <dev>/disk/by-xxx/NAME -> ../../DEVNAME, <dev>/mapper/x -> ../dm-0.
 * Names are kept relative to <dev>; the native ones are all below disk/.
 */
#include "handlers/disk-links.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/oneline.h"
#include "util/safedir.h"

/* The devname field's size; a devname must fit it with its NUL. */
#define DEVNAME_SIZE sizeof(((struct disk_links_device_info *)0)->devname)
/* How deep below <dev> a rules link may be ("a/b/c/name": 3) */
#define DEPTH_MAX 8
/* "../" per level + devname */
#define TARGET_MAX (3 * DEPTH_MAX + DEVNAME_SIZE)
/* The claimant key of a device's rules links: devpath + this (no devpath has a newline) */
#define RULES_SUFFIX "\n+rules"
/* Room for an escaped name in a message. */
#define ESC_MAX 200

static const char *const link_dirs[] = {
	"by-uuid", "by-label", "by-partuuid", "by-partlabel", "by-id", "by-path", "by-diskseq",
	"by-loop-inode", "by-loop-ref", /* udev 257 */
};

struct device {
	char *devpath;              /* for the tie-break (the claimant key) */
	bool rules;                 /* the links a device's rules name (not its native ones) */
	struct disk_links_device_info info;
	int priority;
	char **names;               /* what it claims now */
	size_t n;
};

/* One link name: who claims it, and what we put on disk for it. */
struct entry {
	struct device **claimants;  /* in the order they claimed it */
	size_t n, cap;
	bool linked;                /* our symlink is in place, saying target */
	char target[TARGET_MAX];
};

static const char *esc(char out[ESC_MAX], const char *s)
{
	return escape_log(out, ESC_MAX, s, strlen(s));
}

/* Count and log a refused or failed operation; pass r on. */
__attribute__((format(printf, 3, 4)))
static int fail(struct disk_links *l, int r, const char *fmt, ...)
{
	va_list ap;

	l->stats.errors++;
	if (l->log == NULL)
		return r;
	va_start(ap, fmt);
	log_verrno(l->log, LOG_ERR, r, fmt, ap);
	va_end(ap);
	return r;
}

/* ---- names ------------------------------------------------------------ */

static bool known_dir(const char *dir, size_t len)
{
	for (size_t i = 0; i < sizeof(link_dirs) / sizeof(link_dirs[0]); i++)
		if (strlen(link_dirs[i]) == len && memcmp(link_dirs[i], dir, len) == 0)
			return true;
	return false;
}

/* One path component of a link name or a devname: no "/" or control bytes. */
static bool component_ok(const char *s, size_t len)
{
	if (len == 0 || len > NAME_MAX || (len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '/' || c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

/* A name below <dev> a rule may give: 1..DEPTH_MAX+1 plain components. */
bool disk_links_path_valid(const char *name)
{
	size_t depth = 0, len = strnlen(name, LINK_NAME_MAX);
	const char *p = name;

	if (len == 0 || len >= LINK_NAME_MAX)
		return false;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (!component_ok(p, n) || depth > DEPTH_MAX)
			return false;
		if (p[n] == '\0')
			return true;
		depth++;
		p += n + 1;
	}
}

/* The directories below by-path/<ID_PATH>-part/ (udev 257). */
static const char *const part_dirs[] = {
	"by-partnum", "by-partuuid", "by-partlabel", "by-uuid", "by-label",
};

static bool known_part_dir(const char *dir, size_t len)
{
	for (size_t i = 0; i < sizeof(part_dirs) / sizeof(part_dirs[0]); i++)
		if (strlen(part_dirs[i]) == len && memcmp(part_dirs[i], dir, len) == 0)
			return true;
	return false;
}

/*
 * udev 257's "by-path/<ID_PATH>-part/by-xxx/NAME" (rest: what follows
 * "by-path/"): a component ending in "-part" with something before it, a
 * known directory, one component. Nothing deeper.
 */
static bool nested_ok(const char *rest)
{
	const char *a = strchr(rest, '/'), *b;
	size_t len;

	if (a == NULL || (b = strchr(a + 1, '/')) == NULL)
		return false;
	len = (size_t)(a - rest);
	if (len <= 5 || memcmp(a - 5, "-part", 5) != 0 || !component_ok(rest, len) ||
	    !known_part_dir(a + 1, (size_t)(b - a - 1)))
		return false;
	return component_ok(b + 1, strnlen(b + 1, NAME_MAX + 1));
}

bool disk_links_name_valid_compat(const char *name, int udev_compat)
{
	const char *slash = strchr(name, '/');

	if (slash == NULL || !known_dir(name, (size_t)(slash - name)))
		return false;
	if (component_ok(slash + 1, strnlen(slash + 1, NAME_MAX + 1)))
		return true;
	return udev_compat >= 257 && slash - name == 7 && memcmp(name, "by-path", 7) == 0 &&
	       nested_ok(slash + 1);
}

bool disk_links_name_valid(const char *name)
{
	return disk_links_name_valid_compat(name, UDEV_COMPAT);
}

/* DEVNAME is relative to /dev: components, none of them "." or "..". */
static bool devname_valid(const char *devname)
{
	size_t len = strnlen(devname, DEVNAME_SIZE);
	const char *p = devname;

	if (len == 0 || len >= DEVNAME_SIZE)
		return false;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (!component_ok(p, n))
			return false;
		if (p[n] == '\0')
			return true;
		p += n + 1;
	}
}

/* ---- the filesystem, below <dev>, following nothing -------------------- */

/* The directory holding name's last component (created if asked). */
static int open_dir(const struct disk_links *l, const char *name, bool create, const char **leaf)
{
	return safedir_open_parent(l->devfd, name, create, leaf);
}

static const char *walk_why(int r)
{
	return r == -ELOOP ? "a directory on its way is a symlink, refusing" :
	       r == -ENOTDIR ? "a directory on its way is not a directory, refusing" :
	       "cannot open its directory";
}

/* Put leaf -> target in place atomically; a symlink is replaced, nothing
 * else. Scratch names (".initdev-link.PID.TID") live in <dev> itself. */
static int place_link(const struct disk_links *l, int dirfd, const char *leaf, const char *target)
{
	return safedir_put_link(dirfd, leaf, target, l->devfd, ".initdev-link");
}

/* udev's relative target: one "../" per directory level of name. */
static void link_target(const char *name, const char *devname, char target[TARGET_MAX])
{
	size_t w = 0;

	for (const char *p = strchr(name, '/'); p; p = strchr(p + 1, '/'))
		w += (size_t)snprintf(target + w, TARGET_MAX - w, "../");
	snprintf(target + w, TARGET_MAX - w, "%s", devname);
}

/* Unlink leaf only if it is the symlink we wrote. */
static int remove_link(int dirfd, const char *leaf, const char *target)
{
	int state = safedir_link_state(dirfd, leaf, target);

	if (state != SAFEDIR_LINK_SAME)
		return state < 0 ? state : 0;
	return unlinkat(dirfd, leaf, 0) < 0 && errno != ENOENT ? -errno : 0;
}

/* ---- entries ----------------------------------------------------------- */

/*
 * d keeps a name from w: a higher priority; at equal priority, not being
 * removable when w is. Never a devpath: where a device sits says nothing of
 * whether to trust what it carries.
 */
static bool better(const struct device *d, const struct device *w)
{
	if (d->priority != w->priority)
		return d->priority > w->priority;
	return !d->info.removable && w->info.removable;
}

/* The best claimant; among equals the first to claim (claimants keep that order). */
static struct device *winner(const struct entry *e)
{
	struct device *w = e->n ? e->claimants[0] : NULL;

	for (size_t i = 1; i < e->n; i++)
		if (better(e->claimants[i], w))
			w = e->claimants[i];
	return w;
}

static void set_linked(struct disk_links *l, struct entry *e, bool linked)
{
	if (linked && !e->linked)
		l->stats.links++;
	else if (!linked && e->linked)
		l->stats.links--;
	e->linked = linked;
}

/* Take our symlink for name away (if it is still ours). */
static void unlink_entry(struct disk_links *l, const char *name, struct entry *e)
{
	char x[ESC_MAX];
	const char *leaf;
	int dirfd, r;

	if (!e->linked)
		return;
	set_linked(l, e, false);
	dirfd = open_dir(l, name, false, &leaf);
	if (dirfd == -ENOENT)
		return;
	if (dirfd < 0) {
		fail(l, dirfd, "remove link %s: %s", esc(x, name), walk_why(dirfd));
		return;
	}
	r = remove_link(dirfd, leaf, e->target);
	if (r < 0)
		fail(l, r, "remove link %s", esc(x, name));
	close(dirfd);
	/* as udev: the directories the last link kept ("disk/by-label") go too */
	if (r == 0)
		(void)safedir_remove_empty_parents(l->devfd, name);
}

/* Point name at w's devname. On failure our old link (if any) goes too. */
static void link_entry(struct disk_links *l, const char *name, struct entry *e,
		       const struct device *w)
{
	char x[ESC_MAX], y[ESC_MAX], target[TARGET_MAX];
	const char *leaf;
	int dirfd, r;

	link_target(name, w->info.devname, target);
	dirfd = open_dir(l, name, true, &leaf);
	if (dirfd < 0) {
		fail(l, dirfd, "link %s -> %s: %s", esc(x, name), esc(y, target), walk_why(dirfd));
		set_linked(l, e, false);
		return;
	}
	r = place_link(l, dirfd, leaf, target);
	if (r < 0) {
		fail(l, r, "link %s -> %s%s", esc(x, name), esc(y, target),
		     r == -EEXIST ? ": something else is there, leaving it" : "");
		if (e->linked)
			(void)remove_link(dirfd, leaf, e->target);
		set_linked(l, e, false);
	} else {
		memcpy(e->target, target, sizeof(target));
		set_linked(l, e, true);
	}
	close(dirfd);
}

static void entry_free(void *p)
{
	struct entry *e = p;

	if (e != NULL)
		free(e->claimants);
	free(e);
}

/* Make the filesystem follow the table for name; forget it if nobody claims it. */
static void sync_entry(struct disk_links *l, const char *name)
{
	struct entry *e = map_get(&l->names, name);
	struct device *w;

	if (e == NULL)
		return;
	w = winner(e);
	if (w != NULL) {
		link_entry(l, name, e, w);
		return;
	}
	unlink_entry(l, name, e);
	map_remove(&l->names, name, NULL);
	entry_free(e);
}

/* The entry for name, with room for one more claimant; NULL on ENOMEM. */
static struct entry *entry_reserve(struct disk_links *l, const char *name)
{
	struct entry *e = map_get(&l->names, name);

	if (e == NULL) {
		e = calloc(1, sizeof(*e));
		if (e == NULL || map_put(&l->names, name, e) < 0) {
			free(e);
			return NULL;
		}
	}
	if (e->n == e->cap) {
		size_t cap = e->cap != 0 ? 2 * e->cap : 2;
		struct device **c = reallocarray(e->claimants, cap, sizeof(*c));

		if (c == NULL)
			return NULL;
		e->claimants = c;
		e->cap = cap;
	}
	return e;
}

/* True if d claims e from now on (it did not before). */
static bool entry_add(struct disk_links *l, struct entry *e, struct device *d)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->claimants[i] == d)
			return false;
	e->claimants[e->n++] = d; /* room made by entry_reserve */
	if (e->n == 2)
		l->stats.conflicts++;
	return true;
}

static void entry_drop(struct disk_links *l, const char *name, struct device *d)
{
	struct entry *e = map_get(&l->names, name);

	if (e == NULL)
		return;
	for (size_t i = 0; i < e->n; i++) {
		if (e->claimants[i] != d)
			continue;
		/* keep the claim order: it decides ties */
		memmove(e->claimants + i, e->claimants + i + 1,
			(e->n - i - 1) * sizeof(*e->claimants));
		if (--e->n == 1)
			l->stats.conflicts--;
		break;
	}
}

/* ---- devices ----------------------------------------------------------- */

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void device_free(void *p)
{
	struct device *d = p;

	if (d == NULL)
		return;
	free_names(d->names, d->n);
	free(d->devpath);
	free(d);
}

static bool has_name(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/*
 * Copy the acceptable names (each once), as keys relative to <dev>: native
 * names ("by-uuid/X") go below disk/; rules names are taken as they are.
 * Refused ones are logged.
 */
static int wanted_names(struct disk_links *l, const char *devpath, const char *const *names,
			size_t n, bool rules, char ***out, size_t *nout)
{
	char **w = calloc(n + 1, sizeof(*w));
	char x[ESC_MAX], y[ESC_MAX], key[LINK_NAME_MAX + 8];
	size_t k = 0;

	if (w == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (names[i] == NULL ||
		    !(rules ? disk_links_path_valid(names[i]) : disk_links_name_valid(names[i]))) {
			fail(l, -EINVAL, "%s: refusing link name \"%s\"", esc(x, devpath),
			     names[i] != NULL ? esc(y, names[i]) : "(null)");
			continue;
		}
		snprintf(key, sizeof(key), "%s%s", rules ? "" : "disk/", names[i]);
		if (has_name(w, k, key))
			continue;
		w[k] = strdup(key);
		if (w[k] == NULL) {
			free_names(w, k);
			return -ENOMEM;
		}
		k++;
	}
	*out = w;
	*nout = k;
	return 0;
}

static struct device *device_get(struct disk_links *l, const char *devpath,
				 const struct disk_links_device_info *info, int priority)
{
	struct device *d = map_get(&l->devices, devpath);

	if (d != NULL)
		return d;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	d->devpath = strdup(devpath);
	d->info = *info;
	d->priority = priority;
	if (d->devpath == NULL || map_put(&l->devices, devpath, d) < 0) {
		device_free(d);
		return NULL;
	}
	return d;
}

/* Make room for d's claims on every name; on ENOMEM drop the empty entries made. */
static int reserve_all(struct disk_links *l, char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (entry_reserve(l, names[i]) != NULL)
			continue;
		for (size_t j = 0; j <= i; j++) {
			struct entry *e = map_get(&l->names, names[j]);

			if (e != NULL && e->n == 0 && !e->linked) {
				map_remove(&l->names, names[j], NULL);
				entry_free(e);
			}
		}
		return -ENOMEM;
	}
	return 0;
}

static void log_tie(struct disk_links *l, const char *name, const struct device *kept,
		    const struct device *other)
{
	char x[ESC_MAX];

	log_msg(l->log, LOG_WARNING, "%s: claimed by /dev/%s%s and /dev/%s%s at the same "
		"priority; /dev/%s keeps it (%s)", esc(x, name), kept->info.devname,
		kept->info.removable ? " (removable)" : "", other->info.devname,
		other->info.removable ? " (removable)" : "", kept->info.devname,
		kept->info.removable != other->info.removable ? "it is not removable" :
		"it claimed the name first");
}

/* d has just claimed name: for each device it ties with, say who keeps it and why. */
static void warn_tie(struct disk_links *l, const char *name, const struct device *d)
{
	const struct entry *e = map_get(&l->names, name);
	const struct device *w = e ? winner(e) : NULL;

	if (!w || w->priority != d->priority)
		return; /* a higher priority decides: no tie */
	if (w != d) {
		log_tie(l, name, w, d);
		return;
	}
	for (size_t i = 0; i < e->n; i++)
		if (e->claimants[i] != d && e->claimants[i]->priority == d->priority)
			log_tie(l, name, d, e->claimants[i]);
}

/*
 * Once rules have weighed a device, its native names keep the rules'
 * priority: a native update in between must not drop it for a moment (an
 * md array's or a snapshot's by-uuid would flip to the other claimant).
 */
static int native_priority(struct disk_links *l, const char *devpath, int priority)
{
	char key[PATH_MAX];
	const struct device *r;

	snprintf(key, sizeof(key), "%s%s", devpath, RULES_SUFFIX);
	r = map_get(&l->devices, key);
	return r ? r->priority : priority;
}

static int update_locked(struct disk_links *l, const char *devpath,
			 const struct disk_links_device_info *info, int priority,
			 const char *const *names, size_t n, bool rules)
{
	char **want, **old, key[PATH_MAX];
	size_t nwant, nold;
	bool added[DISK_LINKS_NAMES_MAX] = { false };
	struct device *d;
	int r = wanted_names(l, devpath, names, n, rules, &want, &nwant);

	if (r < 0)
		return r;
	snprintf(key, sizeof(key), "%s%s", devpath, rules ? RULES_SUFFIX : "");
	if (!rules)
		priority = native_priority(l, devpath, priority);
	d = device_get(l, key, info, priority);
	if (d != NULL)
		d->rules = rules;
	r = d == NULL ? -ENOMEM : reserve_all(l, want, nwant);
	if (r < 0) {
		free_names(want, nwant);
		return r;
	}
	/* nothing can fail from here on */
	for (size_t i = 0; i < nwant; i++) {
		bool now = entry_add(l, map_get(&l->names, want[i]), d);

		if (i < DISK_LINKS_NAMES_MAX)
			added[i] = now;
	}
	old = d->names;
	nold = d->n;
	d->info = *info;
	d->priority = priority;
	d->names = want;
	d->n = nwant;
	for (size_t i = 0; i < nold; i++) {
		if (has_name(want, nwant, old[i]))
			continue;
		entry_drop(l, old[i], d);
		sync_entry(l, old[i]);
	}
	for (size_t i = 0; i < nwant; i++) {
		sync_entry(l, want[i]);
		if (i < DISK_LINKS_NAMES_MAX && added[i] && l->log)
			warn_tie(l, want[i], d);
	}
	free_names(old, nold);
	return 0;
}

/* ---- the interface ----------------------------------------------------- */

int disk_links_init(struct disk_links *l, int devfd, const struct logger *log)
{
	int r;

	*l = (struct disk_links){ .devfd = devfd, .log = log };
	r = pthread_mutex_init(&l->lock, NULL);
	return r != 0 ? -r : 0;
}

void disk_links_fini(struct disk_links *l)
{
	map_clear(&l->names, entry_free);
	map_clear(&l->devices, device_free);
	pthread_mutex_destroy(&l->lock);
}

static int update(struct disk_links *l, const char *devpath,
		  const struct disk_links_device_info *info, int priority, const char *const *names,
		  size_t n, bool rules)
{
	char x[ESC_MAX], y[ESC_MAX];
	int r;

	if (devpath == NULL || info == NULL || (n > 0 && names == NULL) ||
	    strlen(devpath) + sizeof(RULES_SUFFIX) > PATH_MAX || !oneline_ok(devpath))
		return -EINVAL;
	pthread_mutex_lock(&l->lock);
	if (!devname_valid(info->devname))
		r = fail(l, -EINVAL, "%s: refusing device name \"%s\"", esc(x, devpath),
			 escape_log(y, ESC_MAX, info->devname,
				    strnlen(info->devname, DEVNAME_SIZE)));
	else
		r = update_locked(l, devpath, info, priority, names, n, rules);
	pthread_mutex_unlock(&l->lock);
	return r;
}

int disk_links_update(struct disk_links *l, const char *devpath, const struct disk_links_device_info *info,
		 int priority, const char *const *names, size_t n)
{
	return update(l, devpath, info, priority, names, n, false);
}

/* A device's priority changed: its native names are weighed again. */
static void set_priority_locked(struct disk_links *l, const char *devpath, int priority)
{
	struct device *d = map_get(&l->devices, devpath);

	if (d == NULL || d->priority == priority)
		return;
	d->priority = priority;
	for (size_t i = 0; i < d->n; i++)
		sync_entry(l, d->names[i]);
}

int disk_links_update_rules(struct disk_links *l, const char *devpath,
			    const struct disk_links_device_info *info, int priority,
			    const char *const *names, size_t n)
{
	int r = update(l, devpath, info, priority, names, n, true);

	pthread_mutex_lock(&l->lock);
	set_priority_locked(l, devpath, priority);
	pthread_mutex_unlock(&l->lock);
	return r;
}

static void remove_locked(struct disk_links *l, const char *key)
{
	void *p = NULL;
	struct device *d;

	if (!map_remove(&l->devices, key, &p))
		return;
	d = p;
	for (size_t i = 0; i < d->n; i++) {
		entry_drop(l, d->names[i], d);
		sync_entry(l, d->names[i]);
	}
	device_free(d);
}

int disk_links_remove(struct disk_links *l, const char *devpath)
{
	char key[PATH_MAX];

	pthread_mutex_lock(&l->lock);
	remove_locked(l, devpath);
	if (strlen(devpath) + sizeof(RULES_SUFFIX) <= sizeof(key)) {
		snprintf(key, sizeof(key), "%s%s", devpath, RULES_SUFFIX);
		remove_locked(l, key);
	}
	pthread_mutex_unlock(&l->lock);
	return 0;
}

bool disk_links_resolve(struct disk_links *l, const char *name, char *devname, size_t size)
{
	struct device *w = NULL;
	struct entry *e;
	bool ok = false;

	char key[LINK_NAME_MAX + 8];

	snprintf(key, sizeof(key), "disk/%s", name);
	pthread_mutex_lock(&l->lock);
	e = map_get(&l->names, key);
	if (e != NULL)
		w = winner(e);
	if (w != NULL && strlen(w->info.devname) < size) {
		memcpy(devname, w->info.devname, strlen(w->info.devname) + 1);
		ok = true;
	}
	pthread_mutex_unlock(&l->lock);
	return ok;
}

bool disk_links_device(struct disk_links *l, const char *devpath, struct disk_links_device_info *out)
{
	const struct device *d;

	pthread_mutex_lock(&l->lock);
	d = map_get(&l->devices, devpath);
	if (d != NULL)
		*out = d->info;
	pthread_mutex_unlock(&l->lock);
	return d != NULL;
}

size_t disk_links_device_names(struct disk_links *l, const char *devpath,
			       char (*names)[LINK_NAME_MAX], size_t max)
{
	const struct device *d;
	size_t n = 0;

	pthread_mutex_lock(&l->lock);
	d = map_get(&l->devices, devpath);
	for (size_t i = 0; d != NULL && i < d->n && n < max; i++)
		if (strlen(d->names[i]) < LINK_NAME_MAX)
			snprintf(names[n++], LINK_NAME_MAX, "%s", d->names[i]);
	pthread_mutex_unlock(&l->lock);
	return n;
}

struct foreach_ctx {
	void (*fn)(void *u, const char *devpath, const struct disk_links_device_info *info);
	void *u;
};

static bool foreach_one(void *userdata, const char *key, void *value)
{
	struct foreach_ctx *c = userdata;
	const struct device *d = value;

	if (!d->rules)
		c->fn(c->u, key, &d->info);
	return true;
}

void disk_links_foreach_device(struct disk_links *l,
			  void (*fn)(void *u, const char *devpath, const struct disk_links_device_info *info),
			  void *u)
{
	struct foreach_ctx c = { fn, u };

	pthread_mutex_lock(&l->lock);
	map_foreach(&l->devices, foreach_one, &c);
	pthread_mutex_unlock(&l->lock);
}

struct conflict_ctx {
	void (*fn)(void *u, const char *name, const struct disk_links_device_info *kept,
		   const struct disk_links_device_info *other);
	void *u;
};

static bool conflict_one(void *userdata, const char *key, void *value)
{
	struct conflict_ctx *c = userdata;
	const struct entry *e = value;
	const struct device *w = winner(e);

	for (size_t i = 0; e->n > 1 && i < e->n; i++)
		if (e->claimants[i] != w)
			c->fn(c->u, key, &w->info, &e->claimants[i]->info);
	return true;
}

void disk_links_foreach_conflict(struct disk_links *l,
				 void (*fn)(void *u, const char *name,
					    const struct disk_links_device_info *kept,
					    const struct disk_links_device_info *other),
				 void *u)
{
	struct conflict_ctx c = { fn, u };

	pthread_mutex_lock(&l->lock);
	map_foreach(&l->names, conflict_one, &c);
	pthread_mutex_unlock(&l->lock);
}

void disk_links_snapshot(struct disk_links *l, struct disk_links_stats *s)
{
	pthread_mutex_lock(&l->lock);
	*s = l->stats;
	pthread_mutex_unlock(&l->lock);
}
