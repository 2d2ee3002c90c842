/* SPDX-License-Identifier: MIT */
#include "rules/subst.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names/udev-string.h"
#include "rules/eval.h"
#include "rules/sysfs.h"
#include "util/number.h"

enum subst {
	S_DEVNODE,
	S_ATTR,
	S_ENV,
	S_KERNEL,
	S_NUMBER,
	S_DRIVER,
	S_DEVPATH,
	S_ID,
	S_MAJOR,
	S_MINOR,
	S_RESULT,
	S_PARENT,
	S_NAME,
	S_LINKS,
	S_ROOT,
	S_SYS,
};

/* udev's table, in its order: "$sysfs" must be tried before "$sys". */
static const struct {
	const char *name;
	char fmt;
	enum subst type;
} table[] = {
	{ "devnode", 'N', S_DEVNODE }, { "tempnode", 'N', S_DEVNODE },
	{ "attr", 's', S_ATTR },       { "sysfs", 's', S_ATTR },
	{ "env", 'E', S_ENV },         { "kernel", 'k', S_KERNEL },
	{ "number", 'n', S_NUMBER },   { "driver", 'd', S_DRIVER },
	{ "devpath", 'p', S_DEVPATH }, { "id", 'b', S_ID },
	{ "major", 'M', S_MAJOR },     { "minor", 'm', S_MINOR },
	{ "result", 'c', S_RESULT },   { "parent", 'P', S_PARENT },
	{ "name", 'D', S_NAME },       { "links", 'L', S_LINKS },
	{ "root", 'r', S_ROOT },       { "sys", 'S', S_SYS },
};
#define NTABLE (sizeof(table) / sizeof(table[0]))

/*
 * At *s: 0 for a literal byte (*s advanced past a "$$"/"%%" first byte),
 * 1 for a substitution (type, attr; *s after it), -EINVAL if malformed.
 */
static int subst_type(const char **s, bool strict, enum subst *type, char attr[RULES_PATH_MAX])
{
	const char *p = *s, *q = NULL;
	size_t i = 0;

	if (*p != '$' && *p != '%')
		return 0;
	if (p[1] == *p) {
		*s = p + 1;
		return 0;
	}
	p++;
	for (i = 0; i < NTABLE; i++) {
		if (**s == '$' && strncmp(p, table[i].name, strlen(table[i].name)) == 0) {
			q = p + strlen(table[i].name);
			break;
		}
		if (**s == '%' && *p == table[i].fmt) {
			q = p + 1;
			break;
		}
	}
	if (!q)
		return strict ? -EINVAL : 0;
	attr[0] = '\0';
	if (*q == '{') {
		const char *end = strchr(q + 1, '}');
		size_t len;

		if (!end)
			return -EINVAL;
		len = (size_t)(end - q - 1);
		if (len == 0 || len >= RULES_PATH_MAX)
			return -EINVAL;
		memcpy(attr, q + 1, len);
		attr[len] = '\0';
		q = end + 1;
	}
	*s = q;
	*type = table[i].type;
	return 1;
}

/* "N" or "N+" */
static int parse_index(const char *s, unsigned int *idx, bool *plus)
{
	size_t n = strlen(s);
	uint64_t v;

	*plus = n > 0 && s[n - 1] == '+';
	if (number_parse(s, n - *plus, UINT32_MAX, &v) < 0)
		return -EINVAL;
	*idx = (unsigned int)v;
	return 0;
}

int subst_check(const char *value, size_t *offset, const char **hint)
{
	const char *s = value;
	char attr[RULES_PATH_MAX];
	enum subst type;

	while (*s) {
		int r = subst_type(&s, true, &type, attr);
		unsigned int idx;
		bool plus;

		if (r < 0) {
			*offset = (size_t)(s - value);
			*hint = "invalid substitution type";
			return r;
		}
		if (r == 0) {
			s++;
			continue;
		}
		if ((type == S_ATTR || type == S_ENV) && !attr[0]) {
			*offset = (size_t)(s - value);
			*hint = "attribute value missing";
			return -EINVAL;
		}
		if (type == S_RESULT && attr[0] && parse_index(attr, &idx, &plus) < 0) {
			*offset = (size_t)(s - value);
			*hint = "attribute value not a valid number";
			return -EINVAL;
		}
	}
	return 0;
}

struct out {
	char *p;
	size_t left; /* bytes left including the NUL */
	bool truncated;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (n >= o->left) {
		n = o->left - 1;
		o->truncated = true;
	}
	memcpy(o->p, s, n);
	o->p += n;
	o->left -= n;
	*o->p = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* The nth whitespace-separated word of the PROGRAM result (plus: and the rest). */
static void put_result(struct out *o, const char *res, const char *attr)
{
	unsigned int idx = 0, i;
	bool plus = false;
	const char *p, *start;

	if (attr[0] && parse_index(attr, &idx, &plus) < 0)
		return;
	if (idx == 0) {
		puts_(o, res);
		return;
	}
	p = res + strspn(res, " \t\n\r");
	for (i = 1; i < idx; i++) {
		p += strcspn(p, " \t\n\r");
		p += strspn(p, " \t\n\r");
		if (!*p)
			break;
	}
	if (i != idx)
		return;
	start = p;
	if (plus) {
		puts_(o, start);
		return;
	}
	put(o, start, strcspn(start, " \t\n\r"));
}

static void put_attr(const struct rules_ctx *ctx, struct rules_event *ev, struct out *o,
		     const char *attr)
{
	char v[RULES_NAME_MAX + 1];
	int r = rsys_subsys_kernel(ctx->sys, ctx->sysfs, attr, v, sizeof(v), true);

	if (r < 0)
		r = rsys_attr(ctx->sys, ev->devpath, attr, v, sizeof(v));
	if (r < 0 && ev->parent[0] && strcmp(ev->parent, ev->devpath) != 0)
		r = rsys_attr(ctx->sys, ev->parent, attr, v, sizeof(v));
	if (r < 0)
		return;
	/* udev copies into a 512-byte buffer: a longer value is truncated */
	if (strlen(v) >= RULES_NAME_MAX) {
		v[RULES_NAME_MAX - 1] = '\0';
		o->truncated = true;
	}
	ustr_trim_trailing(v);
	ustr_replace_chars(v, USTR_ALLOW_INPUT);
	puts_(o, v);
}

static void put_links(struct rules_event *ev, struct out *o)
{
	for (size_t i = 0; i < ev->links.n && !o->truncated; i++) {
		if (i > 0)
			puts_(o, " ");
		puts_(o, ev->links.v[i] + strlen("/dev/"));
	}
}

static void put_parent_devname(const struct rules_ctx *ctx, struct rules_event *ev, struct out *o)
{
	char parent[SYSDEV_PATH_MAX];
	struct props p = PROPS_INIT;
	const char *dn;

	if (sysdev_parent(ctx->sys, ev->devpath, parent, sizeof(parent)) < 0)
		return;
	if (rsys_uevent_props(ctx->sys, parent, &p) == 0 && (dn = props_get(&p, "DEVNAME")) &&
	    (dn = rules_devname_rel(dn)))
		puts_(o, dn);
	props_clear(&p);
}

static void put_driver(const struct rules_ctx *ctx, struct rules_event *ev, struct out *o)
{
	char drv[SYSDEV_NAME_MAX];

	if (!ev->parent[0])
		return;
	if (strcmp(ev->parent, ev->devpath) == 0 && ev->driver_known) {
		puts_(o, ev->driver);
		return;
	}
	if (rsys_driver(ctx->sys, ev->parent, drv) == 0)
		puts_(o, drv);
}

static void put_number(struct out *o, unsigned int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", v);
	puts_(o, buf);
}

static void put_one(const struct rules_ctx *ctx, struct rules_event *ev, struct out *o,
		    enum subst type, const char *attr)
{
	char name[SYSDEV_NAME_MAX];
	const char *v;

	switch (type) {
	case S_DEVPATH: puts_(o, ev->devpath); break;
	case S_KERNEL: puts_(o, ev->sysname); break;
	case S_NUMBER:
		if ((v = sysdev_sysnum(ev->sysname)))
			puts_(o, v);
		break;
	case S_ID:
		if (ev->parent[0]) {
			sysdev_sysname(ev->parent, name);
			puts_(o, name);
		}
		break;
	case S_DRIVER: put_driver(ctx, ev, o); break;
	case S_MAJOR: put_number(o, ev->has_devnum ? ev->major : 0); break;
	case S_MINOR: put_number(o, ev->has_devnum ? ev->minor : 0); break;
	case S_RESULT:
		if (ev->program_result)
			put_result(o, ev->program_result, attr);
		break;
	case S_ATTR: put_attr(ctx, ev, o, attr); break;
	case S_PARENT: put_parent_devname(ctx, ev, o); break;
	case S_DEVNODE: puts_(o, ev->devname); break;
	case S_NAME:
		v = rules_devname_rel(ev->devname);
		puts_(o, ev->name ? ev->name : v ? v : ev->sysname);
		break;
	case S_LINKS: put_links(ev, o); break;
	case S_ROOT: puts_(o, "/dev"); break;
	case S_SYS: puts_(o, ctx->sysfs ? ctx->sysfs : "/sys"); break;
	case S_ENV:
		if (ev_sync_lists(ev) == 0 && (v = props_get(&ev->props, attr)))
			puts_(o, v);
		break;
	}
}

size_t subst_apply(const struct rules_ctx *ctx, struct rules_event *ev, const char *src, char *dest,
		   size_t size, bool replace_ws, bool *truncated)
{
	struct out o = { .p = dest, .left = size };
	char attr[RULES_PATH_MAX];
	const char *s = src;

	dest[0] = '\0';
	while (*s) {
		enum subst type;
		char *start;
		int r = subst_type(&s, false, &type, attr);

		if (r < 0)
			break; /* udev: "Invalid format string", the rest is dropped */
		if (r == 0) {
			if (o.left < 2) {
				o.truncated = true;
				break;
			}
			put(&o, s++, 1);
			continue;
		}
		start = o.p;
		put_one(ctx, ev, &o, type, attr);
		if (replace_ws && type != S_RESULT) {
			size_t n = ustr_replace_whitespace(start, start, (size_t)(o.p - start));

			o.left += (size_t)(o.p - start) - n;
			o.p = start + n;
		}
	}
	*truncated = o.truncated;
	return (size_t)(o.p - dest);
}
