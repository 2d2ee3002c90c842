/* SPDX-License-Identifier: MIT */
#include "engine/coldplug.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004
#endif

#define ACTION_MAX 16
#define BATCH_DEFAULT 64 /* triggers written per step */

/* ---- triggering ---- */

static bool valid_action(const char *action)
{
	size_t n = strspn(action, "abcdefghijklmnopqrstuvwxyz");

	return n > 0 && n < ACTION_MAX && action[n] == '\0';
}

static bool valid_uuid(const char *uuid)
{
	for (int i = 0; i < COLDPLUG_UUID_LEN; i++) {
		char c = uuid[i];
		bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			   (c >= 'A' && c <= 'F');

		if (i == 8 || i == 13 || i == 18 || i == 23 ? c != '-' : !hex)
			return false;
	}
	return uuid[COLDPLUG_UUID_LEN] == '\0';
}

/* A devpath we built the walk from: absolute, no ".." component. */
static bool valid_devpath(const char *devpath)
{
	const char *p = devpath;

	if (*p != '/')
		return false;
	for (; *p; p += strcspn(p, "/")) {
		p += strspn(p, "/");
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return false;
	}
	return true;
}

static int write_once(int fd, const char *buf, size_t len)
{
	ssize_t n;

	/* sysfs takes one write as one store: never split it */
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int coldplug_trigger(const char *sysfs, const char *devpath, const char *action,
		     const char *uuid)
{
	char path[PATH_MAX], msg[ACTION_MAX + 1 + COLDPLUG_UUID_LEN + 1];
	int n, fd, r;

	if (!valid_action(action) || !valid_devpath(devpath) || (uuid && !valid_uuid(uuid)))
		return -EINVAL;
	n = snprintf(path, sizeof(path), "%s%s/uevent", sysfs, devpath);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	/* the kernel ignores a trailing newline; none is needed */
	n = uuid ? snprintf(msg, sizeof(msg), "%s %s", action, uuid)
		 : snprintf(msg, sizeof(msg), "%s", action);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = write_once(fd, msg, (size_t)n);
	close(fd);
	return r;
}

/* ---- UUIDs ---- */

static int read_urandom(void *buf, size_t len)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t got = 0;
	int r = 0;

	if (fd < 0)
		return -errno;
	while (got < len && r == 0) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n > 0)
			got += (size_t)n;
		else if (n == 0)
			r = -EIO;
		else if (errno != EINTR)
			r = -errno;
	}
	close(fd);
	return r;
}

/*
 * These UUIDs only tag our own triggers, so quality may be low but boot must
 * never wait for the entropy pool: no blocking getrandom().
 */
static int random_bytes(void *buf, size_t len)
{
	ssize_t n = getrandom(buf, len, GRND_NONBLOCK);

	if (n < 0 && errno == EAGAIN)
		n = getrandom(buf, len, GRND_INSECURE);
	if (n == (ssize_t)len)
		return 0;
	return read_urandom(buf, len);
}

int coldplug_new_uuid(struct coldplug_uuids *u, char out[COLDPLUG_UUID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char *b;
	size_t o = 0;

	if (u->left < 16) {
		int r = random_bytes(u->pool, sizeof(u->pool));

		if (r < 0)
			return r;
		u->left = sizeof(u->pool);
	}
	b = u->pool + sizeof(u->pool) - u->left;
	u->left -= 16;
	b[6] = (b[6] & 0x0f) | 0x40; /* version 4 */
	b[8] = (b[8] & 0x3f) | 0x80; /* RFC 4122 variant */
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 15];
	}
	out[o] = '\0';
	return 0;
}

/* ---- a coldplug pass ---- */

void coldplug_run_init(struct coldplug_run *r, const char *sysfs, bool unpaced,
		       const struct logger *log)
{
	*r = (struct coldplug_run){ .sysfs = sysfs, .log = log, .batch = BATCH_DEFAULT,
				    .unpaced = unpaced, .synth_ok = true };
}

void coldplug_run_fini(struct coldplug_run *r)
{
	coldplug_list_free(&r->list);
	r->active = false;
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

static int scan_subtrees(struct coldplug_run *r, const char *const *subtrees, unsigned int n)
{
	for (unsigned int i = 0; i < (n ? n : 1); i++) {
		const char *sub = n ? subtrees[i] : "/devices";
		struct coldplug_list one = { 0 };
		int e = coldplug_scan(r->sysfs, sub, r->root_first, &one);

		if (e == 0)
			e = append_list(&r->list, &one);
		if (e < 0) {
			coldplug_list_free(&one);
			return log_errno(r->log, LOG_ERR, e, "coldplug: cannot walk %s%s", r->sysfs,
					 sub);
		}
	}
	return 0;
}

int coldplug_run_begin(struct coldplug_run *r, const char *const *subtrees, unsigned int n)
{
	int e;

	if (r->active)
		return 0;
	coldplug_list_free(&r->list);
	e = scan_subtrees(r, subtrees, n);
	if (e < 0)
		return e;
	r->next = 0;
	r->active = true;
	r->nroot = 0;
	/* the root path sorts first; with subtrees, each list's head */
	for (size_t i = 0; i < r->list.n; i++)
		r->nroot += r->list.dev[i].priority == COLDPLUG_PRIO_ROOT;
	log_msg(r->log, LOG_INFO, "coldplug: %zu devices to trigger%s", r->list.n,
		r->root_first ? ", root path first" : "");
	return 0;
}

static void trigger_failed(struct coldplug_run *r, const char *devpath, int e)
{
	if (e == -ENOENT)
		return; /* the device went away meanwhile */
	if (e == -ENODEV) {
		log_msg(r->log, LOG_INFO, "coldplug: %s%s/uevent: %s", r->sysfs, devpath,
			errno_text(e));
		return;
	}
	r->errors++;
	log_msg(r->log, LOG_WARNING, "coldplug: cannot trigger %s%s/uevent: %s", r->sysfs,
		devpath, errno_text(e));
}

static void trigger_one(struct coldplug_run *r, struct settle *s,
			const struct coldplug_device *d)
{
	const char *devpath = d->devpath;
	char uuid[COLDPLUG_UUID_LEN + 1];
	bool with_uuid = r->synth_ok && coldplug_new_uuid(&r->uuids, uuid) == 0 &&
			 settle_expect(s, uuid, devpath, d->priority == COLDPLUG_PRIO_ROOT) == 0;
	int e = coldplug_trigger(r->sysfs, devpath, "add", with_uuid ? uuid : NULL);

	if (e == -EINVAL && with_uuid) {
		/* a kernel before 4.13 refuses "add UUID": fall back to SEQNUM */
		settle_forget(s, uuid);
		with_uuid = false;
		e = coldplug_trigger(r->sysfs, devpath, "add", NULL);
		if (e == 0 && !r->synth_proven) {
			r->synth_ok = false;
			log_msg(r->log, LOG_NOTICE, "kernel has no synthetic uevents; "
				"tracking coldplug by SEQNUM");
		}
	}
	if (e < 0) {
		if (with_uuid)
			settle_forget(s, uuid);
		trigger_failed(r, devpath, e);
		return;
	}
	r->synth_proven |= with_uuid;
	r->triggers++;
}

bool coldplug_run_ready(const struct coldplug_run *r, const struct settle *s)
{
	return r->active && (r->unpaced || settle_pending(s) <= 2 * (size_t)r->batch);
}

bool coldplug_run_step(struct coldplug_run *r, struct settle *s)
{
	size_t limit = r->unpaced ? SIZE_MAX : r->batch;

	if (!coldplug_run_ready(r, s))
		return false;
	for (size_t n = 0; n < limit && r->next < r->list.n; n++)
		trigger_one(r, s, &r->list.dev[r->next++]);
	if (r->next < r->list.n)
		return false;
	r->active = false;
	coldplug_list_free(&r->list);
	log_msg(r->log, LOG_DEBUG, "coldplug: %llu triggers written",
		(unsigned long long)r->triggers);
	return true;
}

void coldplug_run_slow_down(struct coldplug_run *r)
{
	r->active = false;
	coldplug_list_free(&r->list);
	r->unpaced = false;
	r->batch = r->batch > 1 ? r->batch / 2 : 1;
}

size_t coldplug_run_left(const struct coldplug_run *r)
{
	return r->active ? r->list.n - r->next : 0;
}

size_t coldplug_run_root_left(const struct coldplug_run *r)
{
	size_t root = 0;

	/* subtrees' lists are appended: count what is left, not just the head */
	for (size_t i = r->next; r->active && i < r->list.n; i++)
		root += r->list.dev[i].priority == COLDPLUG_PRIO_ROOT;
	return root;
}
