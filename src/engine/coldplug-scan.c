/* SPDX-License-Identifier: MIT */
#include "engine/coldplug-scan.h"

#include "engine/rank.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Bounds against a broken or hostile tree. Real systems: depth < 20, about
 * 17 directory entries per device, tens of thousands of devices at most.
 */
#define WALK_MAX_DEPTH 64
#define WALK_MAX_DEVICES 1000000u
#define WALK_MAX_ENTRIES 32000000u
#define SUBSYS_LINK_MAX 256

/*
 * Priorities: PRIO_ROOT (root first: rank.h) when a root is awaited, then
 * systemd's prioritized subsystems in order (PRIO_FIRST + index), then
 * the rest, then md and dm devices.
 */
enum { PRIO_ROOT = COLDPLUG_PRIO_ROOT, PRIO_FIRST = 1, NPRIORITIZED = 6, PRIO_OTHER = PRIO_FIRST + NPRIORITIZED,
       PRIO_LAST };

static const char *const prioritized[NPRIORITIZED] = {
	"module", "block", "tpmrm", "net", "tty", "input",
};

struct walk {
	struct coldplug_list *out;
	size_t max_len;      /* longest devpath whose uevent path fits PATH_MAX */
	size_t entries;      /* directory entries seen, against WALK_MAX_ENTRIES */
	bool kernfs;         /* the tree is sysfs: a short getdents is the end */
	bool root_first;     /* rank the root path first (rank.h) */
	char path[PATH_MAX]; /* devpath of the directory being read */
};

/* ---- ordering ---- */

/*
 * Compare paths component by component (systemd's path order): '/' sorts
 * below every other byte, so "/a", "/a/b", "/a-b" and a subtree is one run.
 */
static int path_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = *a == '/' ? 1 : *a ? (unsigned char)*a + 1 : 0;
		int y = *b == '/' ? 1 : *b ? (unsigned char)*b + 1 : 0;

		if (x != y)
			return x - y;
		if (x == 0)
			return 0;
	}
}

static int cmp_path(const void *a, const void *b)
{
	const struct coldplug_device *x = a, *y = b;

	return path_cmp(x->devpath, y->devpath);
}

static int cmp_trigger(const void *a, const void *b)
{
	const struct coldplug_device *x = a, *y = b;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return path_cmp(x->devpath, y->devpath);
}

static bool is_ancestor(const char *anc, const char *dev)
{
	size_t n = strlen(anc);

	return strncmp(anc, dev, n) == 0 && dev[n] == '/';
}

/* Leaving dev: its parent device (new stack top) takes the lower priority. */
static void pop(struct coldplug_list *l, size_t *stack, size_t *top)
{
	int p = l->dev[stack[--*top]].priority;

	if (*top > 0 && p < l->dev[stack[*top - 1]].priority)
		l->dev[stack[*top - 1]].priority = p;
}

/*
 * On a list sorted by path, with each device's own priority: ancestors take
 * the minimum over their subtree, and everything below an md/dm device is
 * delayed with it, so a parent never sorts after its child.
 */
static void propagate(struct coldplug_list *l)
{
	/* the walk finds devices at depths 0..WALK_MAX_DEPTH below its root */
	size_t stack[WALK_MAX_DEPTH + 1];
	size_t top = 0;

	for (size_t i = 0; i < l->n; i++) {
		while (top > 0 && !is_ancestor(l->dev[stack[top - 1]].devpath,
					       l->dev[i].devpath))
			pop(l, stack, &top);
		if (top > 0 && l->dev[stack[top - 1]].priority == PRIO_LAST)
			l->dev[i].priority = PRIO_LAST;
		if (top < sizeof(stack) / sizeof(stack[0]))
			stack[top++] = i;
	}
	while (top > 0)
		pop(l, stack, &top);
}

static void sort_for_trigger(struct coldplug_list *l)
{
	if (l->n == 0)
		return;
	qsort(l->dev, l->n, sizeof(*l->dev), cmp_path);
	propagate(l);
	qsort(l->dev, l->n, sizeof(*l->dev), cmp_trigger);
}

/* ---- the walk ---- */

static bool is_md_or_dm(const char *name)
{
	return strncmp(name, "md", 2) == 0 || strncmp(name, "dm-", 3) == 0;
}

/* The device's MODALIAS from its modalias file (bounded); "" if none. */
static void read_modalias(int dfd, char *buf, size_t size)
{
	int fd = openat(dfd, "modalias", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static bool root_path(int dfd, const char *subsys)
{
	char alias[256] = "";

	if (rank_needs_modalias(subsys))
		read_modalias(dfd, alias, sizeof(alias));
	return rank_of(subsys, alias[0] ? alias : NULL) == RANK_ROOT;
}

/*
 * Own priority of the device directory dfd named name, from its subsystem
 * (and, root first, its MODALIAS); -1 if it has no subsystem: the kernel
 * filters the uevents of a device with neither bus nor class, so a trigger
 * would never get its reply.
 */
static int own_priority(const struct walk *w, int dfd, const char *name)
{
	char link[SUBSYS_LINK_MAX];
	ssize_t n = readlinkat(dfd, "subsystem", link, sizeof(link));
	const char *subsys;

	if (n <= 0)
		return -1;
	if ((size_t)n >= sizeof(link))
		return PRIO_OTHER; /* truncated: still a subsystem */
	link[n] = '\0';
	subsys = strrchr(link, '/');
	subsys = subsys ? subsys + 1 : link;
	if (strcmp(subsys, "block") == 0 && is_md_or_dm(name))
		return PRIO_LAST;
	if (w->root_first && root_path(dfd, subsys))
		return PRIO_ROOT;
	for (int i = 0; i < NPRIORITIZED; i++)
		if (strcmp(subsys, prioritized[i]) == 0)
			return PRIO_FIRST + i;
	return PRIO_OTHER;
}

static int list_reserve(struct coldplug_list *l)
{
	struct coldplug_device *d;
	size_t cap;

	if (l->n < l->cap)
		return 0;
	if (l->cap >= WALK_MAX_DEVICES)
		return -E2BIG;
	cap = l->cap ? l->cap * 2 : 256;
	if (cap > WALK_MAX_DEVICES)
		cap = WALK_MAX_DEVICES;
	d = realloc(l->dev, cap * sizeof(*d));
	if (!d)
		return -ENOMEM;
	l->dev = d;
	l->cap = cap;
	return 0;
}

static int add_device(struct walk *w, int dfd)
{
	struct coldplug_list *l = w->out;
	int prio = own_priority(w, dfd, strrchr(w->path, '/') + 1);
	int r;
	char *p;

	if (prio < 0)
		return 0;
	r = list_reserve(l);
	if (r < 0)
		return r;
	p = strdup(w->path);
	if (!p)
		return -ENOMEM;
	l->dev[l->n].devpath = p;
	l->dev[l->n].priority = prio;
	l->n++;
	return 0;
}

/* d_type, or lstat's answer where the filesystem does not fill it in. */
static int entry_type(int dfd, const char *name, unsigned char d_type)
{
	struct stat st;

	if (d_type != DT_UNKNOWN)
		return d_type;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return DT_UNKNOWN;
	if (S_ISDIR(st.st_mode))
		return DT_DIR;
	return S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
}

/* Resource exhaustion aborts the walk; anything else just skips the entry. */
static int walk_error(int err)
{
	return err == ENOMEM || err == EMFILE || err == ENFILE ? -err : 0;
}

static int walk_dir(struct walk *w, int dfd, size_t len, unsigned int depth);

static int walk_child(struct walk *w, int dfd, const char *name, size_t len,
		      unsigned int depth)
{
	size_t nlen = strlen(name);
	int fd, r;

	if (len + 1 + nlen > w->max_len)
		return 0; /* could never be triggered */
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return walk_error(errno);
	w->path[len] = '/';
	memcpy(w->path + len + 1, name, nlen + 1);
	r = walk_dir(w, fd, len + 1 + nlen, depth);
	w->path[len] = '\0';
	return r;
}

/* One entry (name, d_type) of the directory w->path (open as dfd). */
static int visit(struct walk *w, int dfd, const char *name, unsigned char d_type,
		 size_t len, unsigned int depth, bool *device)
{
	int type;

	if (++w->entries > WALK_MAX_ENTRIES)
		return -E2BIG;
	if (name[0] == '.')
		return 0; /* ".", ".." and hidden entries */
	type = entry_type(dfd, name, d_type);
	if (type == DT_DIR)
		return depth < WALK_MAX_DEPTH ? walk_child(w, dfd, name, len, depth + 1) : 0;
	if (type == DT_REG && strcmp(name, "uevent") == 0)
		*device = true;
	return 0;
}

/* Entries as the kernel hands them out (getdents64 has no libc wrapper). */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* The largest record: header, NAME_MAX bytes and a NUL, 8-byte aligned. */
#define DIRENT_MAX ((offsetof(struct linux_dirent64, d_name) + NAME_MAX + 1 + 7) & ~(size_t)7)

/*
 * Read the directory w->path (length len, open as dfd, which it takes).
 * getdents64 straight into a buffer: fdopendir would add two syscalls a
 * directory, and sysfs has thousands of directories.
 */
static int walk_dir(struct walk *w, int dfd, size_t len, unsigned int depth)
{
	char buf[4096] __attribute__((aligned(8)));
	bool has_uevent = false, has_power = false;
	long n;
	int r = 0;

	/* sysfs (kernfs) fills the buffer until it or the directory ends, so
	 * when the largest possible entry would still have fit, that was the
	 * end: no second getdents for the zero (one syscall a directory) */
	for (bool more = true; r == 0 && more &&
	     (n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0;) {
		/* elsewhere only a zero is the end */
		more = !w->kernfs || n > (long)(sizeof(buf) - DIRENT_MAX);
		for (long off = 0; r == 0 && off < n;) {
			struct linux_dirent64 *de = (struct linux_dirent64 *)(buf + off);

			off += de->d_reclen;
			/* a device's "power" subdirectory is its PM attribute group,
			 * never a device (a child named so would collide with it):
			 * visited only if this turns out not to be a device */
			if (strcmp(de->d_name, "power") == 0 && de->d_type == DT_DIR) {
				has_power = true;
				continue;
			}
			r = visit(w, dfd, de->d_name, de->d_type, len, depth, &has_uevent);
		}
	}
	if (r == 0 && has_power && !has_uevent && depth < WALK_MAX_DEPTH)
		r = walk_child(w, dfd, "power", len, depth + 1);
	/* a read error ends the directory like its end does: skipped */
	if (r == 0 && has_uevent)
		r = add_device(w, dfd);
	close(dfd);
	return r;
}

/*
 * Canonical devpath of subtree into out: must be "/devices" or below it;
 * empty and "." components are dropped, ".." is refused.
 */
static int subtree_devpath(const char *subtree, char *out, size_t outlen)
{
	size_t len = strlen("/devices");
	const char *p;

	if (strncmp(subtree, "/devices", len) != 0)
		return -EINVAL;
	p = subtree + len; /* only now known to be inside the string */
	if (*p != '\0' && *p != '/')
		return -EINVAL;
	memcpy(out, subtree, len);
	while (*p) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (len + 1 + n >= outlen)
				return -ENAMETOOLONG;
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
	}
	out[len] = '\0';
	return 0;
}

/* Open sysfs, then each component of devpath without following symlinks. */
static int open_root(const char *sysfs, const char *devpath)
{
	char comp[PATH_MAX];
	int fd = open(sysfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (const char *p = devpath; *p == '/';) {
		size_t n = strcspn(++p, "/");
		int next, err;

		memcpy(comp, p, n);
		comp[n] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		err = errno;
		close(fd);
		if (next < 0)
			return -err;
		fd = next;
		p += n;
	}
	return fd;
}

void coldplug_list_free(struct coldplug_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->dev[i].devpath);
	free(l->dev);
	memset(l, 0, sizeof(*l));
}

static int scan(struct walk *w, const char *sysfs, const char *subtree)
{
	size_t fixed = strlen(sysfs) + strlen("/uevent") + 1;
	struct statfs fs;
	int r = subtree_devpath(subtree, w->path, sizeof(w->path));
	int fd;

	if (r < 0)
		return r;
	if (fixed + strlen(w->path) > sizeof(w->path))
		return -ENAMETOOLONG;
	w->max_len = sizeof(w->path) - fixed;
	fd = open_root(sysfs, w->path);
	if (fd < 0)
		return fd;
	w->kernfs = fstatfs(fd, &fs) == 0 && fs.f_type == SYSFS_MAGIC;
	r = walk_dir(w, fd, strlen(w->path), 0);
	if (r == 0)
		sort_for_trigger(w->out);
	return r;
}

int coldplug_scan(const char *sysfs, const char *subtree, bool root_first,
		  struct coldplug_list *out)
{
	struct walk *w = calloc(1, sizeof(*w));
	int r;

	memset(out, 0, sizeof(*out));
	if (!w)
		return -ENOMEM;
	w->out = out;
	w->root_first = root_first;
	r = scan(w, sysfs, subtree ? subtree : "/devices");
	if (r < 0)
		coldplug_list_free(out);
	free(w);
	return r;
}
