/* SPDX-License-Identifier: MIT */
#include "handlers/udev-db.h"

#include <dirent.h>
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

/* udev's bound on an escaped link: a file name less the room of its hash suffix */
#define ESCAPED_MAX 244

/* ---- ids ---------------------------------------------------------------- */

/* A name that is one file name (tags, escaped links, ids). */
static bool file_name_ok(const char *s)
{
	return s[0] && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..") && strlen(s) <= NAME_MAX;
}

/* "+drivers:BUS:NAME": BUS is the devpath's part before "/drivers/" (sd-device's driver_subsystem) */
static int driver_id(const char *devpath, const char *sysname, char id[UDEV_DB_ID_MAX])
{
	const char *end = strstr(devpath, "/drivers/"), *bus = end;

	if (!end)
		return -1;
	while (bus > devpath && bus[-1] != '/')
		bus--;
	if (bus == end)
		return -1;
	return snprintf(id, UDEV_DB_ID_MAX, "+drivers:%.*s:%s", (int)(end - bus), bus, sysname);
}

int udev_db_device_id(const struct udev_db_device *d, char id[UDEV_DB_ID_MAX])
{
	const char *slash, *sysname;
	int n;

	if (!d->subsystem || !d->subsystem[0])
		return -EINVAL;
	/* sd-device has no device number with major 0, no index 0 */
	if (d->has_devnum && d->major > 0) {
		n = snprintf(id, UDEV_DB_ID_MAX, "%c%u:%u",
			     strcmp(d->subsystem, "block") == 0 ? 'b' : 'c', d->major, d->minor);
	} else if (d->ifindex > 0) {
		n = snprintf(id, UDEV_DB_ID_MAX, "n%u", d->ifindex);
	} else {
		/* sd-device takes the sysname from the devpath, '!' and all */
		if (!d->devpath || !(slash = strrchr(d->devpath, '/')) || !file_name_ok(slash + 1))
			return -EINVAL;
		sysname = slash + 1;
		if (strcmp(d->subsystem, "drivers") == 0)
			n = driver_id(d->devpath, sysname, id);
		else
			n = snprintf(id, UDEV_DB_ID_MAX, "+%s:%s", d->subsystem, sysname);
	}
	return n > 0 && n < UDEV_DB_ID_MAX && file_name_ok(id) ? 0 : -EINVAL;
}

void udev_db_id(const struct udev_db_entry *e, char id[UDEV_DB_ID_MAX])
{
	if (e->id)
		snprintf(id, UDEV_DB_ID_MAX, "%s", e->id);
	else
		snprintf(id, UDEV_DB_ID_MAX, "%c%u:%u", e->block ? 'b' : 'c', e->major, e->minor);
}

bool udev_db_has_info(const struct udev_db_entry *e)
{
	if ((e->major > 0 && e->links && e->links->n > 0) || e->link_priority != 0)
		return true;
	for (size_t i = 0; e->props && i < e->props->n; i++)
		if (e->props->v[i].db)
			return true;
	return (e->tags && e->tags->n > 0) || (e->current_tags && e->current_tags->n > 0);
}

/* ---- the data file's text ---------------------------------------------- */

/* "/dev/x" -> 5: what comes before the name below /dev; 0 if not below /dev */
static size_t dev_prefix(const char *link)
{
	return strncmp(link, "/dev/", 5) == 0 && link[5] ? 5 : 0;
}

/*
 * What goes in a line. Every value passes util/oneline.h (systemd's reader
 * ends a line at '\r' as at '\n'). An "S:", "G:" or "Q:" line is never
 * empty: that reader takes the byte after the ':' as the value's first,
 * so "G:" alone would swallow the next line into its value.
 */
static bool link_ok(const char *l)
{
	return oneline_ok(l) && dev_prefix(l);
}

static bool name_ok(const char *s)
{
	return oneline_ok(s) && s[0];
}

static bool prop_ok(const struct prop *p)
{
	return oneline_ok(p->key) && oneline_ok(p->value);
}

static void print_list(FILE *f, char tag, const struct strv *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (name_ok(l->v[i]))
			fprintf(f, "%c:%s\n", tag, l->v[i]);
}

static void print_lines(const struct udev_db_entry *e, FILE *f)
{
	for (size_t i = 0; e->major > 0 && e->links && i < e->links->n; i++) {
		const char *l = e->links->v[i];

		if (link_ok(l))
			fprintf(f, "S:%s\n", l + dev_prefix(l));
	}
	if (e->link_priority != 0)
		fprintf(f, "L:%i\n", e->link_priority);
	if (e->usec_initialized > 0)
		fprintf(f, "I:%llu\n", (unsigned long long)e->usec_initialized);
	for (size_t i = 0; e->props && i < e->props->n; i++) {
		const struct prop *p = &e->props->v[i];

		if (p->db && prop_ok(p))
			fprintf(f, "E:%s=%s\n", p->key, p->value);
	}
	print_list(f, 'G', e->tags);
	print_list(f, 'Q', e->current_tags);
	fputs("V:1\n", f);
}

int udev_db_print(const struct udev_db_entry *e, FILE *f)
{
	/* udevd writes an empty file for a device with nothing to say (device_update_db) */
	if (udev_db_has_info(e))
		print_lines(e, f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

/* Note s (field what of line tag:name) if a line end keeps it out: the first one described. */
static void note(struct udev_db_refused *r, char tag, const char *name, const char *what,
		 const char *s)
{
	char esc[96], why[ONELINE_WHY_MAX];

	if (oneline_ok(s) || r->count++ > 0)
		return;
	snprintf(r->first, sizeof(r->first), "%c:%s: %s %s", tag,
		 escape_log(esc, sizeof(esc), name, strlen(name)), what, oneline_why(s, why));
}

static void note_list(struct udev_db_refused *r, char tag, const struct strv *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		note(r, tag, l->v[i], "the name", l->v[i]);
}

size_t udev_db_refused(const struct udev_db_entry *e, struct udev_db_refused *r)
{
	*r = (struct udev_db_refused){ 0 };
	for (size_t i = 0; e->major > 0 && e->links && i < e->links->n; i++)
		note(r, 'S', e->links->v[i], "the link", e->links->v[i]);
	for (size_t i = 0; e->props && i < e->props->n; i++) {
		const struct prop *p = &e->props->v[i];

		if (!p->db)
			continue;
		note(r, 'E', p->key, "the key", p->key);
		if (oneline_ok(p->key))
			note(r, 'E', p->key, "the value", p->value);
	}
	note_list(r, 'G', e->tags);
	note_list(r, 'Q', e->current_tags);
	return r->count;
}

/* One character of a link as udev escapes it, appended at out[*j]. */
static bool escape_one(char c, char *out, size_t size, size_t *j)
{
	const char *piece = c == '/' ? "\\x2f" : c == '\\' ? "\\x5c" : NULL;
	size_t n = piece ? 4 : 1;

	if (*j + n > ESCAPED_MAX || *j + n >= size)
		return false;
	if (piece)
		memcpy(out + *j, piece, n);
	else
		out[*j] = c;
	*j += n;
	return true;
}

int udev_db_escape_link(const char *link, char *out, size_t size)
{
	/* the name below /dev is what udev 252 escapes; a relative name is taken as one */
	const char *name = strncmp(link, "/dev/", 5) == 0 ? link + 5 : link[0] == '/' ? NULL : link;
	size_t j = 0;

	/* "." and ".." would name the index itself or its parent */
	if (!name || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	for (const char *c = name; *c; c++)
		if (!escape_one(*c, out, size, &j))
			return -ENAMETOOLONG;
	out[j] = '\0';
	return 0;
}

/* ---- files ------------------------------------------------------------- */

int udev_db_open(struct udev_db *db, const char *dir, const struct logger *log)
{
	db->log = log;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return db->dirfd = -1, -errno;
	db->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return db->dirfd < 0 ? -errno : 0;
}

void udev_db_close(struct udev_db *db)
{
	if (db->dirfd >= 0)
		close(db->dirfd);
	db->dirfd = -1;
}

/* Say what a line end kept out of id's data file: someone's data tried to forge a line. */
static void log_refused(struct udev_db *db, const struct udev_db_entry *e, const char *id)
{
	struct udev_db_refused r;

	if (!db->log || udev_db_refused(e, &r) == 0)
		return;
	log_msg(db->log, LOG_WARNING,
		"udev database data/%s: %zu field(s) left out, the first %s "
		"(systemd's reader ends a line there: the rest would read as a line of its own)",
		id, r.count, r.first);
}

/* FNV-1a: tells apart long ids that share their first bytes */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The temporary file's name: ".#ID", for an id too long for that its first 200 bytes and a hash */
static void temp_name(const char *id, char tmp[NAME_MAX + 1])
{
	if (strlen(id) + 2 <= NAME_MAX)
		snprintf(tmp, NAME_MAX + 1, ".#%s", id);
	else
		snprintf(tmp, NAME_MAX + 1, ".#%.200s-%08x", id, fnv1a(id));
}

static int write_data(struct udev_db *db, const struct udev_db_entry *e, const char *id)
{
	char tmp[NAME_MAX + 1];
	int dir = safedir_enter(db->dirfd, "data", true), fd, r;
	FILE *f;

	if (dir < 0)
		return dir;
	temp_name(id, tmp);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		close(dir);
		return r;
	}
	/* the sticky bit is what --cleanup-db keeps */
	r = fchmod(fd, e->persist ? 01644 : 0644) < 0 ? -errno : udev_db_print(e, f);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dir, tmp, dir, id) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dir, tmp, 0);
	close(dir);
	return r;
}

/* links/NAME/ID (a symlink saying target) or tags/NAME/ID (an empty file); target NULL removes */
static int index_entry(struct udev_db *db, const char *top, const char *name, const char *id,
		       const char *target)
{
	char old[512];
	int t = safedir_enter(db->dirfd, top, target != NULL), d, r = 0;
	ssize_t n;

	if (t < 0)
		return t == -ENOENT ? 0 : t;
	d = safedir_enter(t, name, target != NULL);
	if (d < 0) {
		close(t);
		return d == -ENOENT ? 0 : d;
	}
	if (!target) {
		if (unlinkat(d, id, 0) < 0 && errno != ENOENT)
			r = -errno;
		(void)unlinkat(t, name, AT_REMOVEDIR); /* udev drops a stack nobody claims */
	} else if (target[0]) {
		n = readlinkat(d, id, old, sizeof(old) - 1);
		if (n < 0 || (size_t)n != strlen(target) || memcmp(old, target, (size_t)n) != 0) {
			(void)unlinkat(d, id, 0);
			r = symlinkat(target, d, id) < 0 ? -errno : 0;
		}
	} else {
		int fd = openat(d, id, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0444);

		r = fd < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
	}
	close(d);
	close(t);
	return r;
}

static bool listed(const struct strv *l, const char *s)
{
	return l && strv_contains(l, s);
}

/* The index name of a link: its escaped form; false if it has none. */
static bool link_key(const char *link, char key[256])
{
	return link_ok(link) && udev_db_escape_link(link, key, 256) == 0;
}

static int update_links(struct udev_db *db, const struct udev_db_entry *e,
			const struct udev_db_entry *old, const char *id)
{
	char key[256], target[PATH_MAX];
	int r = 0, k;

	snprintf(target, sizeof(target), "%i:%s", e->link_priority, e->devnode ? e->devnode : "");
	for (size_t i = 0; old && old->links && i < old->links->n; i++)
		if (!listed(e->links, old->links->v[i]) && link_key(old->links->v[i], key))
			(void)index_entry(db, "links", key, id, NULL);
	for (size_t i = 0; e->devnode && e->major > 0 && e->links && i < e->links->n; i++) {
		if (!link_key(e->links->v[i], key))
			continue; /* not in udev's form, or too long (udev hashes it) */
		k = index_entry(db, "links", key, id, target);
		r = r < 0 ? r : k;
	}
	return r;
}

static int update_tags(struct udev_db *db, const struct udev_db_entry *e,
		       const struct udev_db_entry *old, const char *id)
{
	int r = 0, k;

	for (size_t i = 0; old && old->tags && i < old->tags->n; i++)
		if (!listed(e->tags, old->tags->v[i]) && file_name_ok(old->tags->v[i]))
			(void)index_entry(db, "tags", old->tags->v[i], id, NULL);
	for (size_t i = 0; e->tags && i < e->tags->n; i++) {
		if (!file_name_ok(e->tags->v[i]))
			continue;
		k = index_entry(db, "tags", e->tags->v[i], id, "");
		r = r < 0 ? r : k;
	}
	return r;
}

int udev_db_write(struct udev_db *db, const struct udev_db_entry *e,
		  const struct udev_db_entry *old)
{
	char id[UDEV_DB_ID_MAX];
	int r, k;

	if (db->dirfd < 0)
		return -EBADF;
	/* udevd keeps no file for such a device (device_update_db unlinks it) */
	if (!udev_db_has_info(e) && e->major == 0 && e->ifindex == 0)
		return udev_db_remove(db, old ? old : e);
	udev_db_id(e, id);
	log_refused(db, e, id);
	r = write_data(db, e, id);
	k = update_links(db, e, old, id);
	r = r < 0 ? r : k;
	k = update_tags(db, e, old, id);
	return r < 0 ? r : k;
}

int udev_db_remove(struct udev_db *db, const struct udev_db_entry *e)
{
	char id[UDEV_DB_ID_MAX], key[256];
	int dir, r = 0;

	if (db->dirfd < 0)
		return -EBADF;
	udev_db_id(e, id);
	dir = safedir_enter(db->dirfd, "data", false);
	if (dir >= 0) {
		if (unlinkat(dir, id, 0) < 0 && errno != ENOENT)
			r = -errno;
		close(dir);
	}
	for (size_t i = 0; e->links && i < e->links->n; i++)
		if (link_key(e->links->v[i], key))
			(void)index_entry(db, "links", key, id, NULL);
	for (size_t i = 0; e->tags && i < e->tags->n; i++)
		if (file_name_ok(e->tags->v[i]))
			(void)index_entry(db, "tags", e->tags->v[i], id, NULL);
	return r;
}

/* ---- udevadm info --cleanup-db ---------------------------------------- */

typedef bool (*keep_fn)(const char *name, const struct stat *st, int depth, void *u);

/* Remove dirfd's entries that keep() does not keep; directories below depth > 1 too. */
static void sweep(int dirfd, int depth, keep_fn keep, void *u)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (!d) {
		close(dirfd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (keep && keep(de->d_name, &st, depth, u)))
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub = depth > 1 ? safedir_enter(dirfd, de->d_name, false) : -1;

			if (sub >= 0)
				sweep(sub, depth - 1, keep, u);
			(void)unlinkat(dirfd, de->d_name, AT_REMOVEDIR);
		} else {
			(void)unlinkat(dirfd, de->d_name, 0);
		}
	}
	closedir(d);
}

static bool sticky(const char *name, const struct stat *st, int depth, void *u)
{
	(void)name, (void)depth, (void)u;
	return st->st_mode & S_ISVTX;
}

/* an index entry (links/X/ID, tags/X/ID: depth 1 of the sweep) whose data file is there */
static bool has_data(const char *name, const struct stat *st, int depth, void *u)
{
	int data = *(int *)u;

	(void)st;
	return depth == 1 && data >= 0 && faccessat(data, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static void sweep_named(int top, const char *name, int depth, keep_fn keep, void *u)
{
	int fd = safedir_enter(top, name, false);

	if (fd >= 0)
		sweep(fd, depth, keep, u);
}

int udev_db_cleanup(const char *dir)
{
	int top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), data;

	if (top < 0)
		return errno == ENOENT ? 0 : -errno;
	sweep_named(top, "data", 1, sticky, NULL);
	data = safedir_enter(top, "data", false);
	sweep_named(top, "links", 2, has_data, &data);
	sweep_named(top, "tags", 2, has_data, &data);
	sweep_named(top, "static_node-tags", 2, NULL, NULL);
	if (data >= 0)
		close(data);
	close(top);
	return 0;
}
