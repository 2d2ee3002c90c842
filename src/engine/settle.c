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

int settle_expect(struct settle *s, const char *uuid, const char *devpath)
{
	char *copy = strdup(devpath);
	int r;

	if (!copy)
		return -ENOMEM;
	r = map_add(&s->pending, uuid, copy);
	if (r <= 0) {
		free(copy);
		return r < 0 ? r : -EEXIST;
	}
	s->expected++;
	return 0;
}

bool settle_replied(struct settle *s, const char *uuid)
{
	void *devpath;

	if (!uuid || !map_remove(&s->pending, uuid, &devpath))
		return false;
	free(devpath);
	s->replied++;
	return true;
}

void settle_forget(struct settle *s, const char *uuid)
{
	void *devpath;

	if (map_remove(&s->pending, uuid, &devpath)) {
		free(devpath);
		s->forgotten++;
	}
}

void settle_forget_all(struct settle *s)
{
	s->forgotten += s->pending.n;
	map_clear(&s->pending, free);
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
		c->fn(c->userdata, value);
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
