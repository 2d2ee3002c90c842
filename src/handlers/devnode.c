/* SPDX-License-Identifier: MIT */
#include "handlers/devnode.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/safedir.h"

/* Scratch name for nodes and links before they are renamed into place. */
#define TMP_NAME_MAX 48
/* Room for an escaped DEVNAME or DEVPATH in a message. */
#define ESC_MAX 160

/* d->devices holds &record.pub; linked is ours alone. */
struct record {
	struct devnode_record pub;
	bool linked; /* our block/char link is in place (counted in stats.links) */
	/* what the rules decided last (devnode_set_perms); later events start from it */
	bool ruled;
	uid_t uid;
	gid_t gid;
	mode_t mode;
};

/* What the node of one event should look like. */
struct want {
	const char *devname;
	bool block;
	unsigned int major, minor;
	mode_t mode;
	uid_t uid;
	gid_t gid;
};

static const char *esc(char out[ESC_MAX], const char *s)
{
	return escape_log(out, ESC_MAX, s, strlen(s));
}

/* Log a refused or failed operation once, count it, and pass r on. */
__attribute__((format(printf, 3, 4)))
static int fail(struct devnode *d, int r, const char *fmt, ...)
{
	va_list ap;

	d->stats.errors++;
	if (d->log == NULL)
		return r;
	va_start(ap, fmt);
	log_verrno(d->log, LOG_ERR, r, fmt, ap);
	va_end(ap);
	return r;
}

__attribute__((format(printf, 2, 3)))
static void note(const struct devnode *d, const char *fmt, ...)
{
	va_list ap;

	if (d->log == NULL)
		return;
	va_start(ap, fmt);
	log_vmsg(d->log, LOG_DEBUG, fmt, ap);
	va_end(ap);
}

/* ---- walking below the root without following anything -------------- */

/* Why open_parent refused, for messages. */
static const char *walk_why(int r)
{
	return r == -ELOOP ? "a directory on its path is a symlink, refusing" :
	       r == -ENOTDIR ? "a directory on its path is not a directory, refusing" :
	       "cannot walk its path";
}

static void tmp_name(char out[TMP_NAME_MAX])
{
	/* all operations hold d->lock, so one name per thread cannot collide */
	snprintf(out, TMP_NAME_MAX, ".initdev-tmp.%d.%ld", (int)getpid(), (long)gettid());
}

/* Rename tmp over leaf; with noreplace, fail with -EEXIST if leaf appeared. */
static int put_in_place(int dirfd, const char *tmp, const char *leaf, bool noreplace)
{
	if (noreplace) {
		if (renameat2(dirfd, tmp, dirfd, leaf, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno != EINVAL && errno != ENOSYS)
			return -errno;
	}
	return renameat(dirfd, tmp, dirfd, leaf) == 0 ? 0 : -errno;
}

/*
 * The directory holding path's last component: the root itself for a plain
 * name (most nodes: no walk, no extra fd), else a safedir walk. Release the
 * result with parent_done.
 */
static int parent_open(const struct devnode *d, const char *path, bool create,
		       const char **leaf)
{
	if (strchr(path, '/') == NULL) {
		*leaf = path;
		return d->devfd;
	}
	return safedir_open_parent(d->devfd, path, create, leaf);
}

static void parent_done(const struct devnode *d, int fd)
{
	if (fd >= 0 && fd != d->devfd)
		close(fd);
}

/* ---- device nodes ---------------------------------------------------- */

static mode_t node_type(bool block)
{
	return block ? S_IFBLK : S_IFCHR;
}

static bool node_is(const struct stat *st, bool block, unsigned int major, unsigned int minor)
{
	return (st->st_mode & S_IFMT) == node_type(block) &&
	       st->st_rdev == makedev(major, minor);
}

/*
 * Give the node at name (just checked to be a device node; cur is its stat)
 * w's owner and mode, never granting the new owner the old owner's extra
 * rights in between: narrow the mode, chown, then set the mode (chown also
 * clears set-id bits, so the mode goes last).
 */
static int set_attrs(int dirfd, const char *name, const struct want *w, const struct stat *cur)
{
	mode_t mode = cur->st_mode & 07777;
	bool owner_ok = cur->st_uid == w->uid && cur->st_gid == w->gid;

	if (owner_ok && mode == w->mode)
		return 0;
	if (!owner_ok && (mode & ~w->mode) != 0 && fchmodat(dirfd, name, mode & w->mode, 0) < 0)
		return -errno;
	if (!owner_ok && fchownat(dirfd, name, w->uid, w->gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	/* fchmodat follows symlinks; name was checked under our lock, and only
	 * another root process writing in the root could swap it meanwhile */
	if (fchmodat(dirfd, name, w->mode, 0) < 0)
		return -errno;
	return 0;
}

/*
 * Nothing is at leaf: make the node there directly. A node that will belong
 * to us is born with its final mode (a chmod only if the umask took bits
 * away); one for another owner is born with mode 0, so nobody can open it
 * before owner and mode are set. -EEXIST if something is there already (the
 * caller then takes the careful path).
 */
static int create_fresh(struct devnode *d, int dirfd, const char *leaf, const struct want *w)
{
	bool born_right = w->uid == d->euid && w->gid == d->egid && (w->mode & ~0777) == 0;
	mode_t mode = born_right ? w->mode : 0;
	struct stat born = { .st_mode = mode & ~d->umask, .st_uid = d->euid, .st_gid = d->egid };
	char x[ESC_MAX];
	int r;

	if (mknodat(dirfd, leaf, node_type(w->block) | mode, makedev(w->major, w->minor)) < 0)
		return errno == EEXIST ? -EEXIST :
		       fail(d, -errno, "mknod %s (%u:%u)", esc(x, w->devname), w->major, w->minor);
	r = set_attrs(dirfd, leaf, w, &born);
	if (r < 0) {
		(void)unlinkat(dirfd, leaf, 0);
		return fail(d, r, "create node %s", esc(x, w->devname));
	}
	d->stats.nodes_created++;
	return 0;
}

/* Make the node under a scratch name, finish it, then rename it into place. */
static int create_node(struct devnode *d, int dirfd, const char *leaf,
		       const struct want *w, bool replace)
{
	char tmp[TMP_NAME_MAX], x[ESC_MAX];
	struct stat st;
	int r;

	if (!replace) {
		r = create_fresh(d, dirfd, leaf, w);
		if (r != -EEXIST)
			return r;
	}
	tmp_name(tmp);
	(void)unlinkat(dirfd, tmp, 0); /* left over by a crash */
	/* born with mode 0: nobody can open it before it is finished */
	if (mknodat(dirfd, tmp, node_type(w->block), makedev(w->major, w->minor)) < 0)
		return fail(d, -errno, "mknod %s (%u:%u)", esc(x, w->devname), w->major, w->minor);
	r = fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno :
	    set_attrs(dirfd, tmp, w, &st);
	if (r == 0)
		r = put_in_place(dirfd, tmp, leaf, !replace);
	if (r < 0) {
		(void)unlinkat(dirfd, tmp, 0);
		return fail(d, r, "create node %s", esc(x, w->devname));
	}
	d->stats.nodes_created++;
	return 0;
}

/* Replace an existing node only if it is the one we recorded under this name. */
static bool ours(const struct record *rec, const char *devname, const struct stat *st)
{
	return rec != NULL && strcmp(rec->pub.devname, devname) == 0 &&
	       (S_ISBLK(st->st_mode) || S_ISCHR(st->st_mode)) &&
	       node_is(st, rec->pub.block, rec->pub.major, rec->pub.minor);
}

static const char *kind(const struct stat *st)
{
	return S_ISLNK(st->st_mode) ? "a symlink" : S_ISDIR(st->st_mode) ? "a directory" :
	       S_ISREG(st->st_mode) ? "a regular file" :
	       S_ISBLK(st->st_mode) || S_ISCHR(st->st_mode) ? "another device node" :
	       "something else";
}

/*
 * Something may be at leaf: fix its owner and mode if it is this device's
 * node, replace it if it is a node we recorded under this name, else leave
 * it. Nothing there: create it (mknod mode) or nothing (devtmpfs mode: the
 * kernel removed it already).
 */
static int settle_node(struct devnode *d, int dirfd, const char *leaf,
		       const struct want *w, const struct record *rec)
{
	char x[ESC_MAX];
	struct stat st;
	int r;

	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return fail(d, -errno, "stat %s", esc(x, w->devname));
		return d->mknod_mode ? create_node(d, dirfd, leaf, w, false) : 0;
	}
	if (node_is(&st, w->block, w->major, w->minor)) {
		r = set_attrs(dirfd, leaf, w, &st);
		return r < 0 ? fail(d, r, "set owner/mode of %s", esc(x, w->devname)) : 0;
	}
	if (d->mknod_mode && ours(rec, w->devname, &st))
		return create_node(d, dirfd, leaf, w, true);
	return fail(d, -EEXIST, "node %s (%u:%u): %s is there and not ours, leaving it",
		    esc(x, w->devname), w->major, w->minor, kind(&st));
}

/*
 * Bring the node at w->devname to the wanted state. mknod mode creates or
 * (if ours) replaces it; devtmpfs mode only fixes a node that is there.
 */
static int apply_node(struct devnode *d, const struct want *w, const struct record *rec)
{
	char x[ESC_MAX];
	const char *leaf;
	int dirfd = parent_open(d, w->devname, d->mknod_mode, &leaf), r = -EEXIST;

	if (dirfd == -ENOENT && !d->mknod_mode)
		return 0;
	if (dirfd < 0)
		return fail(d, dirfd, "node %s: %s", esc(x, w->devname), walk_why(dirfd));
	/* a device seen for the first time in mknod mode: nothing is there yet
	 * (coldplug), so the mknod comes first and the stat only if it fails */
	if (d->mknod_mode && rec == NULL)
		r = create_fresh(d, dirfd, leaf, w);
	if (r == -EEXIST)
		r = settle_node(d, dirfd, leaf, w, rec);
	parent_done(d, dirfd);
	return r;
}

/* Unlink the node at devname if it is still this device's. */
static int remove_node(struct devnode *d, const char *devname, bool block,
		       unsigned int major, unsigned int minor)
{
	char x[ESC_MAX];
	const char *leaf;
	struct stat st;
	int dirfd = parent_open(d, devname, false, &leaf), r = 0;

	if (dirfd == -ENOENT)
		return 0;
	if (dirfd < 0)
		return fail(d, dirfd, "remove %s: %s", esc(x, devname), walk_why(dirfd));
	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			r = fail(d, -errno, "remove %s: stat", esc(x, devname));
	} else if (!node_is(&st, block, major, minor)) {
		r = fail(d, -EEXIST, "remove %s (%u:%u): %s is there now, leaving it",
			 esc(x, devname), major, minor, kind(&st));
	} else if (unlinkat(dirfd, leaf, 0) < 0) {
		r = fail(d, -errno, "remove %s", esc(x, devname));
	} else {
		d->stats.nodes_removed++;
	}
	parent_done(d, dirfd);
	/* as devtmpfs: a node's empty directories ("bus/usb/001") go with it */
	if (r == 0)
		(void)safedir_remove_empty_parents(d->devfd, devname);
	return r;
}

/* ---- /dev/block and /dev/char links ---------------------------------- */

static int ensure_link(struct devnode *d, struct record *rec)
{
	char path[DEVNUM_PATH_MAX], x[ESC_MAX];
	const struct devnode_record *p = &rec->pub;
	bool in_dir;
	int r = devnum_link_put(&d->numlinks, p->block, p->major, p->minor, p->devname, &in_dir);

	devnum_link_path(path, p->block, p->major, p->minor);
	if (r < 0 && in_dir)
		return fail(d, r, "link %s -> ../%s: %s", path, esc(x, p->devname), walk_why(r));
	if (r < 0)
		return fail(d, r, "link %s -> ../%s", path, esc(x, p->devname));
	if (!rec->linked)
		d->stats.links++;
	rec->linked = true;
	return 0;
}

/* Remove block|char/MAJ:MIN only if it still says ../DEVNAME. */
static void remove_link(struct devnode *d, struct record *rec)
{
	char path[DEVNUM_PATH_MAX];
	const struct devnode_record *p = &rec->pub;
	int r = devnum_link_drop(&d->numlinks, p->block, p->major, p->minor, p->devname);

	devnum_link_path(path, p->block, p->major, p->minor);
	if (r < 0)
		fail(d, r, "remove link %s", path);
	else if (r > 0)
		note(d, "link %s is no longer ours, leaving it", path);
	if (rec->linked)
		d->stats.links--;
	rec->linked = false;
}

/* ---- records --------------------------------------------------------- */

static void record_free(void *p)
{
	struct record *rec = p;

	if (rec != NULL)
		free(rec->pub.devname);
	free(rec);
}

static struct record *record_get(struct devnode *d, const char *devpath)
{
	return map_get(&d->devices, devpath);
}

/* Record (or update) devpath's node; NULL on ENOMEM. */
static struct record *record_set(struct devnode *d, const char *devpath, const struct want *w)
{
	struct record *rec = record_get(d, devpath);
	char *name = strdup(w->devname);

	if (name == NULL)
		return NULL;
	if (rec == NULL) {
		rec = calloc(1, sizeof(*rec));
		if (rec == NULL || map_put(&d->devices, devpath, rec) < 0) {
			free(rec);
			free(name);
			return NULL;
		}
	}
	free(rec->pub.devname);
	rec->pub = (struct devnode_record){ name, w->major, w->minor, w->block };
	return rec;
}

/* Undo what rec made: its link, and (mknod mode) its node. */
static int forget(struct devnode *d, const char *devpath, struct record *rec)
{
	const struct devnode_record *p = &rec->pub;
	int r = 0;

	map_remove(&d->devices, devpath, NULL);
	remove_link(d, rec);
	if (d->mknod_mode)
		r = remove_node(d, p->devname, p->block, p->major, p->minor);
	record_free(rec);
	return r;
}

/* ---- events ---------------------------------------------------------- */

/* The event's own values (the udev rules' come later: devnode_set_perms). */
static void want_from_event(const struct uevent *ev, struct want *w)
{
	*w = (struct want){
		.devname = ev->devname,
		.block = strcmp(ev->subsystem, "block") == 0,
		.major = ev->major,
		.minor = ev->minor,
		.mode = ev->has_devmode ? ev->devmode : 0600,
		.uid = ev->has_devuid ? ev->devuid : 0,
		.gid = ev->has_devgid ? ev->devgid : 0,
	};
}

static bool same_device(const struct record *rec, const struct want *w)
{
	const struct devnode_record *p = &rec->pub;

	return p->block == w->block && p->major == w->major && p->minor == w->minor &&
	       strcmp(p->devname, w->devname) == 0;
}

/* A recorded device now has another name or number: drop what the old one made. */
static void retire_old(struct devnode *d, struct record *rec, const struct want *w)
{
	const struct devnode_record *p = &rec->pub;

	remove_link(d, rec);
	/* same name, new number: apply_node replaces the node in place */
	if (d->mknod_mode && strcmp(p->devname, w->devname) != 0)
		(void)remove_node(d, p->devname, p->block, p->major, p->minor);
}

static int handle_add(struct devnode *d, const struct uevent *ev)
{
	struct record *rec = record_get(d, ev->devpath);
	char x[ESC_MAX];
	struct want w;
	int r;

	want_from_event(ev, &w);
	/* a node the rules gave an owner keeps it until they decide again */
	if (rec != NULL && rec->ruled && same_device(rec, &w)) {
		w.uid = rec->uid;
		w.gid = rec->gid;
		w.mode = rec->mode;
	}
	r = apply_node(d, &w, rec);
	if (rec != NULL && !same_device(rec, &w)) {
		retire_old(d, rec, &w);
		if (r < 0) { /* nothing of the old or the new is left to track */
			map_remove(&d->devices, ev->devpath, NULL);
			record_free(rec);
		}
	}
	if (r < 0)
		return r;
	rec = record_set(d, ev->devpath, &w);
	if (rec == NULL)
		return fail(d, -ENOMEM, "record %s", esc(x, ev->devpath));
	return ensure_link(d, rec);
}

static int handle_remove(struct devnode *d, const struct uevent *ev)
{
	struct record *rec = record_get(d, ev->devpath);
	struct record tmp;

	if (rec != NULL)
		return forget(d, ev->devpath, rec);
	/* a device we never saw (events were lost): go by the event's word */
	if (ev->devname == NULL)
		return 0;
	tmp = (struct record){ .pub = { (char *)ev->devname, ev->major, ev->minor,
					strcmp(ev->subsystem, "block") == 0 } };
	remove_link(d, &tmp);
	return d->mknod_mode ? remove_node(d, tmp.pub.devname, tmp.pub.block,
					   tmp.pub.major, tmp.pub.minor) : 0;
}

/* Rename rec's node to newname (same directory tree, never across the root). */
static int rename_node(struct devnode *d, struct record *rec, const char *newname)
{
	const char *oleaf, *nleaf;
	struct stat st;
	int ofd = safedir_open_parent(d->devfd, rec->pub.devname, false, &oleaf);
	int nfd = ofd < 0 ? ofd : safedir_open_parent(d->devfd, newname, true, &nleaf);
	int r = nfd < 0 ? nfd : 0;

	if (r == 0 && fstatat(ofd, oleaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
	if (r == 0 && !node_is(&st, rec->pub.block, rec->pub.major, rec->pub.minor))
		r = -EEXIST;
	if (r == 0 && renameat2(ofd, oleaf, nfd, nleaf, RENAME_NOREPLACE) < 0)
		r = -errno;
	if (nfd >= 0)
		close(nfd);
	if (ofd >= 0)
		close(ofd);
	return r;
}

/* Follow DEVPATH_OLD: re-key the record, keep the node (renamed if needed). */
static int handle_move(struct devnode *d, const struct uevent *ev)
{
	struct record *rec = NULL;
	void *old = NULL, *stale = NULL;
	char x[ESC_MAX];

	if (ev->devpath_old != NULL && map_remove(&d->devices, ev->devpath_old, &old))
		rec = old;
	if (rec != NULL) {
		if (map_remove(&d->devices, ev->devpath, &stale))
			record_free(stale);
		if (map_put(&d->devices, ev->devpath, rec) < 0) {
			record_free(rec);
			return fail(d, -ENOMEM, "record %s", esc(x, ev->devpath));
		}
	}
	if (ev->devname == NULL || !ev->has_devnum)
		return 0;
	/* handle_add copes if this fails: it drops the old node and makes a new one */
	if (rec != NULL && d->mknod_mode && strcmp(rec->pub.devname, ev->devname) != 0 &&
	    rename_node(d, rec, ev->devname) == 0) {
		char *name = strdup(ev->devname);

		if (name != NULL) {
			remove_link(d, rec);
			free(rec->pub.devname);
			rec->pub.devname = name;
		}
	}
	return handle_add(d, ev);
}

int devnode_handle(struct devnode *d, const struct uevent *ev)
{
	int r = 0;

	pthread_mutex_lock(&d->lock);
	switch (ev->action) {
	case UEVENT_ADD:
	case UEVENT_CHANGE:
		if (ev->devname != NULL && ev->has_devnum)
			r = handle_add(d, ev);
		break;
	case UEVENT_REMOVE:
		r = handle_remove(d, ev);
		break;
	case UEVENT_MOVE:
		r = handle_move(d, ev);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&d->lock);
	return r;
}

/* The node's current owner and mode, overridden where the rules set them. */
static int ruled_want(const struct record *rec, int dirfd, const char *leaf,
		      uid_t uid, gid_t gid, mode_t mode, struct want *w, struct stat *st)
{
	if (fstatat(dirfd, leaf, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!node_is(st, rec->pub.block, rec->pub.major, rec->pub.minor))
		return -EEXIST;
	*w = (struct want){
		.devname = rec->pub.devname, .block = rec->pub.block,
		.major = rec->pub.major, .minor = rec->pub.minor,
		.uid = uid != (uid_t)-1 ? uid : st->st_uid,
		.gid = gid != (gid_t)-1 ? gid : st->st_gid,
		.mode = mode != (mode_t)-1 ? mode & 07777 : st->st_mode & 07777,
	};
	return 0;
}

int devnode_set_perms(struct devnode *d, const char *devpath, uid_t uid, gid_t gid, mode_t mode)
{
	char x[ESC_MAX];
	struct record *rec;
	const char *leaf;
	struct stat st;
	struct want w;
	int dirfd, r;

	pthread_mutex_lock(&d->lock);
	rec = record_get(d, devpath);
	if (rec == NULL) {
		pthread_mutex_unlock(&d->lock);
		return -ENOENT;
	}
	dirfd = parent_open(d, rec->pub.devname, false, &leaf);
	r = dirfd < 0 ? dirfd : ruled_want(rec, dirfd, leaf, uid, gid, mode, &w, &st);
	if (r == 0)
		r = set_attrs(dirfd, leaf, &w, &st);
	if (r == 0)
		*rec = (struct record){ .pub = rec->pub, .linked = rec->linked, .ruled = true,
					.uid = w.uid, .gid = w.gid, .mode = w.mode };
	else
		fail(d, r, "owner/mode of %s from the rules", esc(x, rec->pub.devname));
	parent_done(d, dirfd);
	pthread_mutex_unlock(&d->lock);
	return r;
}

/* ---- lifetime, prune ------------------------------------------------- */

int devnode_init(struct devnode *d, const char *dev_root, bool mknod_mode,
		 const struct logger *log)
{
	int r;

	*d = (struct devnode){ .mknod_mode = mknod_mode, .log = log,
			       .devices = MAP_INIT,
			       .euid = geteuid(), .egid = getegid() };
	/* reading the umask sets it: put it straight back (before any thread) */
	d->umask = umask(022);
	umask(d->umask);
	d->devfd = open(dev_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->devfd < 0)
		return -errno;
	devnum_links_init(&d->numlinks, d->devfd);
	r = pthread_mutex_init(&d->lock, NULL);
	if (r != 0) {
		close(d->devfd);
		d->devfd = -1;
		return -r;
	}
	return 0;
}

void devnode_fini(struct devnode *d)
{
	map_clear(&d->devices, record_free);
	devnum_links_fini(&d->numlinks);
	if (d->devfd >= 0)
		close(d->devfd);
	d->devfd = -1;
	pthread_mutex_destroy(&d->lock);
}

size_t devnode_count(struct devnode *d)
{
	size_t n;

	pthread_mutex_lock(&d->lock);
	n = d->devices.n;
	pthread_mutex_unlock(&d->lock);
	return n;
}

struct gone {
	const char *sysfs;
	char **v;
	size_t n;
	bool nomem;
};

/* Collect devpaths whose sysfs directory is gone (not: unreadable). */
static bool collect_gone(void *userdata, const char *devpath, void *value)
{
	struct gone *g = userdata;
	char path[PATH_MAX];
	struct stat st;
	int n = snprintf(path, sizeof(path), "%s%s", g->sysfs, devpath);

	if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &st) == 0 || errno != ENOENT)
		return true;
	g->v[g->n] = strdup(devpath);
	if (g->v[g->n] == NULL) {
		g->nomem = true;
		return false;
	}
	g->n++;
	return true;
}

int devnode_prune(struct devnode *d, const char *sysfs)
{
	struct gone g = { .sysfs = sysfs };
	int r;

	pthread_mutex_lock(&d->lock);
	/* the map must not change while we walk it: collect first */
	g.v = calloc(d->devices.n + 1, sizeof(*g.v));
	if (g.v != NULL)
		map_foreach(&d->devices, collect_gone, &g);
	for (size_t i = 0; i < g.n; i++) {
		(void)forget(d, g.v[i], record_get(d, g.v[i]));
		free(g.v[i]);
	}
	r = g.v == NULL || g.nomem ? fail(d, -ENOMEM, "prune") : (int)g.n;
	free(g.v);
	pthread_mutex_unlock(&d->lock);
	return r;
}

void devnode_snapshot(struct devnode *d, struct devnode_stats *s)
{
	pthread_mutex_lock(&d->lock);
	*s = d->stats;
	pthread_mutex_unlock(&d->lock);
}

struct find_ctx {
	const char *devname;
	char *devpath;
	size_t size;
	struct devnode_record *out;
	bool found;
};

static bool find_one(void *userdata, const char *devpath, void *value)
{
	struct find_ctx *c = userdata;
	const struct record *rec = value;

	if (strcmp(rec->pub.devname, c->devname) != 0)
		return true;
	snprintf(c->devpath, c->size, "%s", devpath);
	c->out->devname = NULL; /* the copy must not outlive the lock */
	c->out->major = rec->pub.major;
	c->out->minor = rec->pub.minor;
	c->out->block = rec->pub.block;
	c->found = true;
	return false;
}

bool devnode_find(struct devnode *d, const char *devname, char *devpath, size_t size,
		  struct devnode_record *out)
{
	struct find_ctx c = { devname, devpath, size, out, false };

	pthread_mutex_lock(&d->lock);
	map_foreach(&d->devices, find_one, &c);
	pthread_mutex_unlock(&d->lock);
	return c.found;
}

/* ---- the handler ---- */

static void handle(void *ctx, const struct handler_call *call)
{
	if (call->ev->devname)
		(void)devnode_handle(ctx, call->ev);
}

const struct handler_ops devnode_handler = {
	.name = "devnode",
	.handle = handle,
};
