/* SPDX-License-Identifier: MIT */
/*
 * An event as the rules see it (udev's sd_device for the event): built
 * from the kernel's KEY=VALUE list, joined with the device's persisted
 * record, and the record it leaves for the next event.
 */
#include "rules/eval.h"
#include "util/number.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy_field(char *dst, size_t size, const char *v)
{
	if (strlen(v) >= size)
		return -EINVAL;
	strcpy(dst, v);
	return 0;
}

static bool parse_uint(const char *s, unsigned int *out)
{
	uint64_t v;

	if (number_parse_str(s, UINT32_MAX, &v) < 0)
		return false;
	*out = (unsigned int)v;
	return true;
}

/* The identity fields udev derives from the properties. */
static int take_identity(struct rules_event *ev)
{
	const char *v, *maj = props_get(&ev->props, "MAJOR"), *min = props_get(&ev->props, "MINOR");
	int r = 0;

	if (!(v = props_get(&ev->props, "ACTION")) ||
	    (r = copy_field(ev->action, sizeof(ev->action), v)) ||
	    !(v = props_get(&ev->props, "DEVPATH")) || v[0] != '/' ||
	    (r = copy_field(ev->devpath, sizeof(ev->devpath), v)) ||
	    !(v = props_get(&ev->props, "SUBSYSTEM")) ||
	    (r = copy_field(ev->subsystem, sizeof(ev->subsystem), v)))
		return r ? r : -EINVAL;
	sysdev_sysname(ev->devpath, ev->sysname);
	if ((v = props_get(&ev->props, "DRIVER"))) {
		ev->driver_known = copy_field(ev->driver, sizeof(ev->driver), v) == 0;
	}
	ev->has_devnum = maj && min && parse_uint(maj, &ev->major) && parse_uint(min, &ev->minor) &&
			 ev->major > 0;
	ev->has_ifindex = props_get(&ev->props, "IFINDEX") != NULL;
	ev->remove = strcmp(ev->action, "remove") == 0;
	return 0;
}

/* DEVNAME as udev shows it: "/dev/NAME", never a name outside /dev. */
static int absolute_devname(struct rules_event *ev)
{
	const char *dn = props_get(&ev->props, "DEVNAME");

	if (!dn || !*dn)
		return 0;
	if (dn[0] == '/' ? copy_field(ev->devname, sizeof(ev->devname), dn) < 0
			 : (size_t)snprintf(ev->devname, sizeof(ev->devname), "/dev/%s", dn) >=
				   sizeof(ev->devname))
		return -EINVAL;
	if (!rules_devname_rel(ev->devname))
		return -EINVAL;
	return dn[0] == '/' ? 0 : props_set(&ev->props, "DEVNAME", ev->devname, false);
}

static int join_old(struct rules_event *ev, const struct rules_record *old)
{
	int r = props_copy(&ev->old, &old->props);

	ev->usec_initialized = old->usec_initialized;
	if (r == 0)
		r = strv_copy(&ev->tags, &old->tags);
	if (r == 0 && ev->remove) {
		/* udev reads the database into a removed device: its rules see everything */
		r = props_copy(&ev->props, &old->props);
		if (r == 0)
			r = strv_copy(&ev->links, &old->links);
		if (r == 0)
			r = strv_copy(&ev->current_tags, &old->tags);
		ev->link_priority = old->link_priority;
	}
	return r;
}

int rules_event_init(struct rules_event *ev, const char *const *env, size_t n,
		     const struct rules_record *old)
{
	int r = 0;

	memset(ev, 0, sizeof(*ev));
	ev->uid = (uid_t)-1;
	ev->gid = (gid_t)-1;
	ev->mode = (mode_t)-1;
	ev->watch = -1;
	ev->log_level = -2;
	for (size_t i = 0; i < n && r != -ENOMEM; i++)
		r = props_set_pair(&ev->props, env[i], false);
	if (r == -ENOMEM || (r = take_identity(ev)) < 0 || (r = absolute_devname(ev)) < 0 ||
	    (old && (r = join_old(ev, old)) < 0) || (r = ev_lists_changed(ev)) < 0 ||
	    (r = ev_sync_lists(ev)) < 0) {
		rules_event_free(ev);
		return r;
	}
	return 0;
}

void rules_event_free(struct rules_event *ev)
{
	props_clear(&ev->props);
	props_clear(&ev->old);
	strv_clear(&ev->tags);
	strv_clear(&ev->current_tags);
	strv_clear(&ev->links);
	for (size_t i = 0; i < ev->nrun; i++)
		free(ev->run[i].cmd);
	free(ev->run);
	free(ev->name);
	free(ev->program_result);
	ev->run = NULL;
	ev->nrun = 0;
	ev->name = ev->program_result = NULL;
}

/* ":a:b:" (udev's TAGS form) or NULL when empty */
static int set_list(struct props *p, const char *key, const struct strv *l, const char *pre,
		    const char *sep, const char *post)
{
	size_t len = 1;
	char *buf, *w;
	int r;

	if (l->n == 0)
		return props_set(p, key, NULL, false);
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + strlen(sep) + strlen(pre) + strlen(post);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	w = buf + sprintf(buf, "%s", pre);
	for (size_t i = 0; i < l->n; i++)
		w += sprintf(w, "%s%s", i ? sep : "", l->v[i]);
	sprintf(w, "%s", post);
	/* as long as the list is (bounded by STRV_BYTES_MAX): udev cuts none */
	r = props_set_long(p, key, buf, false, len);
	free(buf);
	return r;
}

int ev_sync_lists(struct rules_event *ev)
{
	int r;

	if (!ev->lists_stale)
		return 0;
	r = set_list(&ev->props, "DEVLINKS", &ev->links, "", " ", "");

	if (r == 0)
		r = set_list(&ev->props, "TAGS", &ev->tags, ":", ":", ":");
	if (r == 0)
		r = set_list(&ev->props, "CURRENT_TAGS", &ev->current_tags, ":", ":", ":");
	if (r == 0)
		ev->lists_stale = false;
	return r;
}

int rules_event_finish(struct rules_event *ev)
{
	/* callers add links of their own (the native names) before calling */
	ev->lists_stale = true;
	return ev_sync_lists(ev);
}

mode_t rules_event_mode(const struct rules_event *ev)
{
	uint64_t v;
	unsigned int gid;

	if (ev->mode != (mode_t)-1)
		return ev->mode;
	/* the kernel's "%#o" */
	if (number_parse_octal(props_get(&ev->props, "DEVMODE"), 07777, &v) == 0)
		return (mode_t)v;
	if (ev->gid != (gid_t)-1)
		return ev->gid > 0 ? 0660 : (mode_t)-1;
	if (parse_uint(props_get(&ev->props, "DEVGID") ? props_get(&ev->props, "DEVGID") : "",
		       &gid))
		return gid > 0 ? 0660 : (mode_t)-1;
	return (mode_t)-1;
}

int rules_record_from_event(struct rules_record *rec, const struct rules_event *ev)
{
	int r = 0;

	memset(rec, 0, sizeof(*rec));
	for (size_t i = 0; i < ev->props.n && r == 0; i++)
		if (ev->props.v[i].db)
			r = props_set(&rec->props, ev->props.v[i].key, ev->props.v[i].value, true);
	if (r == 0)
		r = strv_copy(&rec->tags, &ev->tags);
	if (r == 0 && ev->has_devnum)
		r = strv_copy(&rec->links, &ev->links);
	rec->link_priority = ev->link_priority;
	rec->persist = ev->db_persist;
	rec->usec_initialized = ev->usec_initialized;
	if (r < 0)
		rules_record_free(rec);
	return r;
}

void rules_record_free(struct rules_record *rec)
{
	props_clear(&rec->props);
	strv_clear(&rec->tags);
	strv_clear(&rec->links);
}

const char *rules_devname_rel(const char *devname)
{
	return strncmp(devname, "/dev/", 5) == 0 && rules_link_valid(devname) ? devname + 5 : NULL;
}

bool rules_link_valid(const char *name)
{
	const char *p = name;

	if (strncmp(name, "/dev/", 5) == 0)
		p = name + 5;
	if (!*p || strlen(p) >= RULES_PATH_MAX)
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0 || n > 255 || (n == 1 && p[0] == '.') ||
		    (n == 2 && !strncmp(p, "..", 2)))
			return false;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}
