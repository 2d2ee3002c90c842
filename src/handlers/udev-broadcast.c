/* SPDX-License-Identifier: MIT */
#include "handlers/udev-broadcast.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/oneline.h"

/* libudev's monitor_netlink_header, field by field (all 32-bit) */
struct frame_header {
	char prefix[8];
	uint32_t magic;
	uint32_t header_size;
	uint32_t properties_off;
	uint32_t properties_len;
	uint32_t subsystem_hash;
	uint32_t devtype_hash;
	uint32_t bloom_hi;
	uint32_t bloom_lo;
};

_Static_assert(sizeof(struct frame_header) == UDEV_BROADCAST_HEADER, "libudev's header size");

uint32_t udev_murmur2(const void *key, size_t len, uint32_t seed)
{
	const uint32_t m = 0x5bd1e995;
	const unsigned char *data = key;
	uint32_t h = seed ^ (uint32_t)len;

	for (; len >= 4; data += 4, len -= 4) {
		uint32_t k;

		memcpy(&k, data, 4);
		k *= m;
		k ^= k >> 24;
		k *= m;
		h = h * m ^ k;
	}
	switch (len) {
	case 3: h ^= (uint32_t)data[2] << 16; /* fall through */
	case 2: h ^= (uint32_t)data[1] << 8;  /* fall through */
	case 1: h ^= data[0]; h *= m;
	}
	h ^= h >> 13;
	h *= m;
	h ^= h >> 15;
	return h;
}

uint64_t udev_tag_bloom(const char *tag)
{
	uint32_t h = udev_murmur2(tag, strlen(tag), 0);

	return UINT64_C(1) << (h & 63) | UINT64_C(1) << ((h >> 6) & 63) |
	       UINT64_C(1) << ((h >> 12) & 63) | UINT64_C(1) << ((h >> 18) & 63);
}

/* ---- the properties ---------------------------------------------------- */

struct out {
	char *buf;
	size_t size, len;
	bool full;
};

/* A tag as TAGS and the bloom filter take it: one line, no ':' (the separator). */
static bool tag_ok(const char *s)
{
	return oneline_ok(s) && *s && !strchr(s, ':');
}

/* n bytes of s; once something did not fit, nothing more is put (the frame is refused) */
static void append(struct out *o, const char *s, size_t n)
{
	if (o->full || n > o->size - o->len) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void pair(struct out *o, const char *key, const char *value)
{
	append(o, key, strlen(key));
	append(o, "=", 1);
	append(o, value, strlen(value));
	append(o, "", 1);
}

static void put(struct out *o, const char *key, const char *value)
{
	if (oneline_ok(value))
		pair(o, key, value);
}

/* Keys udevd adds itself, never copied from the property list. */
static bool derived(const char *key)
{
	static const char *const keys[] = { "UDEV_DATABASE_VERSION", "MAJOR", "MINOR",
					    "USEC_INITIALIZED", "DEVLINKS", "TAGS",
					    "CURRENT_TAGS" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

/* The list joined: DEVLINKS "a b", TAGS ":a:b:" (the form sd-device matches tags in). */
static void put_list(struct out *o, const char *key, const struct strv *l, bool tags)
{
	size_t n = 0;

	for (size_t i = 0; l && i < l->n; i++) {
		const char *s = l->v[i];

		/* a separator inside a name would split it into two */
		if (!oneline_ok(s) || !*s || strchr(s, tags ? ':' : ' '))
			continue;
		if (n++ == 0) {
			append(o, key, strlen(key));
			append(o, tags ? "=:" : "=", tags ? 2 : 1);
		} else if (!tags) {
			append(o, " ", 1);
		}
		append(o, s, strlen(s));
		if (tags)
			append(o, ":", 1);
	}
	if (n > 0)
		append(o, "", 1);
}

static void put_devnum(struct out *o, const struct props *p)
{
	const char *maj = props_get(p, "MAJOR"), *min = props_get(p, "MINOR");

	if (maj && min) {
		put(o, "MAJOR", maj);
		put(o, "MINOR", min);
	}
}

/*
 * udevd's order: the event's properties as the kernel sent them, MAJOR and
 * MINOR after them (sd-device sets the devnum once the list is read), then
 * what the rules set, then what udevd derives.
 */
static void put_props(struct out *o, const struct udev_broadcast_device *d)
{
	char usec[24];
	bool devnum = false;

	pair(o, "UDEV_DATABASE_VERSION", "1");
	for (size_t i = 0; d->props && i < d->props->n; i++) {
		const struct prop *p = &d->props->v[i];

		if (p->db && !devnum) {
			put_devnum(o, d->props);
			devnum = true;
		}
		/* props_set refuses an empty key and one with '=' */
		if (!derived(p->key) && oneline_ok(p->key))
			put(o, p->key, p->value);
	}
	if (!devnum)
		put_devnum(o, d->props);
	if (d->usec_initialized) {
		snprintf(usec, sizeof(usec), "%llu", (unsigned long long)d->usec_initialized);
		put(o, "USEC_INITIALIZED", usec);
	}
	put_list(o, "DEVLINKS", d->links, false);
	put_list(o, "TAGS", d->tags, true);
	put_list(o, "CURRENT_TAGS", d->current_tags, true);
}

/* ---- the frame ------------------------------------------------------- */

static uint64_t bloom_of(const struct strv *tags)
{
	uint64_t bits = 0;

	for (size_t i = 0; tags && i < tags->n; i++)
		if (tag_ok(tags->v[i]))
			bits |= udev_tag_bloom(tags->v[i]);
	return bits;
}

ssize_t udev_broadcast_frame(const struct udev_broadcast_device *d, char *buf, size_t size)
{
	struct frame_header h = { .prefix = "libudev" };
	struct out o = { .buf = buf + sizeof(h), .size = size > sizeof(h) ? size - sizeof(h) : 0 };
	uint64_t bloom = bloom_of(d->tags);

	if (!d->subsystem || !*d->subsystem)
		return -EINVAL;
	put_props(&o, d);
	if (o.full)
		return -EMSGSIZE;
	h.magic = htonl(UDEV_BROADCAST_MAGIC);
	h.header_size = sizeof(h);
	h.properties_off = sizeof(h);
	h.properties_len = (uint32_t)o.len;
	h.subsystem_hash = htonl(udev_murmur2(d->subsystem, strlen(d->subsystem), 0));
	if (d->devtype)
		h.devtype_hash = htonl(udev_murmur2(d->devtype, strlen(d->devtype), 0));
	h.bloom_hi = htonl((uint32_t)(bloom >> 32));
	h.bloom_lo = htonl((uint32_t)bloom);
	memcpy(buf, &h, sizeof(h));
	return (ssize_t)(sizeof(h) + o.len);
}

/* ---- the socket -------------------------------------------------------- */

int udev_broadcast_open(struct udev_broadcast *b)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK }; /* no group: send only */

	b->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_KOBJECT_UEVENT);
	if (b->fd < 0)
		return -errno;
	if (bind(b->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		udev_broadcast_close(b);
		return r;
	}
	return 0;
}

void udev_broadcast_close(struct udev_broadcast *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

int udev_broadcast_send(struct udev_broadcast *b, const struct udev_broadcast_device *d)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_groups = UDEV_BROADCAST_GROUP };
	char *buf = malloc(UDEV_BROADCAST_MAX);
	ssize_t n;
	int r = 0;

	if (b->fd < 0)
		r = -EBADF;
	else if (!buf)
		r = -ENOMEM;
	else if ((n = udev_broadcast_frame(d, buf, UDEV_BROADCAST_MAX)) < 0)
		r = (int)n;
	/* no listener in the group: the kernel says ECONNREFUSED, as udevd expects */
	else if (sendto(b->fd, buf, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to)) < 0 &&
		 errno != ECONNREFUSED)
		r = -errno;
	free(buf);
	return r;
}
