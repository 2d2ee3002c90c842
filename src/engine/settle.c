/* SPDX-License-Identifier: MIT */
#include "engine/settle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/number.h"

void settle_init(struct settle *s)
{
	memset(s, 0, sizeof(*s));
}

void settle_fini(struct settle *s)
{
	map_clear(&s->pending, free);
}

/* A pending trigger's value: 'r' (root path) or '-', then the devpath. */
int settle_expect(struct settle *s, const char *uuid, const char *devpath, bool root)
{
	size_t len = strlen(devpath);
	char *v = malloc(len + 2);
	int r;

	if (!v)
		return -ENOMEM;
	v[0] = root ? 'r' : '-';
	memcpy(v + 1, devpath, len + 1);
	r = map_add(&s->pending, uuid, v);
	if (r <= 0) {
		free(v);
		return r < 0 ? r : -EEXIST;
	}
	s->expected++;
	s->pending_root += root;
	return 0;
}

/* Take uuid off the list; true if it was there. */
static bool drop(struct settle *s, const char *uuid)
{
	void *v;

	if (!uuid || !map_remove(&s->pending, uuid, &v))
		return false;
	s->pending_root -= *(char *)v == 'r';
	free(v);
	return true;
}

bool settle_replied(struct settle *s, const char *uuid)
{
	if (!drop(s, uuid))
		return false;
	s->replied++;
	return true;
}

void settle_forget(struct settle *s, const char *uuid)
{
	if (drop(s, uuid))
		s->forgotten++;
}

void settle_forget_all(struct settle *s)
{
	s->forgotten += s->pending.n;
	s->pending_root = 0;
	map_clear(&s->pending, free);
}

size_t settle_pending_root(const struct settle *s)
{
	return s->pending_root;
}

size_t settle_pending(const struct settle *s)
{
	return s->pending.n;
}

struct list_ctx {
	size_t max, seen;
	void (*fn)(void *, const char *);
	void *userdata;
};

static bool list_one(void *userdata, const char *key, void *value)
{
	struct list_ctx *c = userdata;

	if (c->seen++ < c->max)
		c->fn(c->userdata, (const char *)value + 1);
	return true;
}

size_t settle_list_pending(const struct settle *s, size_t max,
			   void (*fn)(void *userdata, const char *devpath),
			   void *userdata)
{
	struct list_ctx c = { max, 0, fn, userdata };

	map_foreach(&s->pending, list_one, &c);
	return c.seen;
}

int settle_read_kernel_seqnum(const char *sysfs, uint64_t *seqnum)
{
	char path[PATH_MAX];
	int r;

	if ((size_t)snprintf(path, sizeof(path), "%s/kernel/uevent_seqnum", sysfs) >= sizeof(path))
		return -ENAMETOOLONG;
	r = number_read_file(path, UINT64_MAX, seqnum);
	return r == -EINVAL || r == -ERANGE ? -EBADMSG : r;
}
