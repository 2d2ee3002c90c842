/* SPDX-License-Identifier: MIT */
/*
 * Assignment keys, as udev 252 applies them: ENV, TAG, SYMLINK (split at
 * spaces, characters replaced by string_escape), OWNER/GROUP/MODE (":="
 * makes them final), OPTIONS, RUN, NAME, ATTR and SYSCTL writes. Values
 * that do not fit udev's buffers are refused, never cut.
 */
#include "rules/eval.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names/udev-string.h"
#include "rules/subst.h"
#include "rules/sysfs.h"

static int assign_env(struct evstate *s, const struct rules_token *t)
{
	char v[RULES_NAME_MAX];
	const char *old = ev_sync_lists(s->ev) < 0 ? NULL : props_get(&s->ev->props, t->attr);
	char e[EV_ESC_MAX];
	size_t used = 0;
	bool trunc;

	if (!t->value[0])
		return t->op == ROP_ADD ? 0 : props_set(&s->ev->props, t->attr, NULL, true);
	if (t->op == ROP_ADD && old) {
		if (strlen(old) + 2 > sizeof(v)) {
			ev_log(s, LOG_WARNING, "property '%s' is full, not appending",
			       ev_esc(e, t->attr));
			return 0;
		}
		used = (size_t)sprintf(v, "%s ", old);
	}
	subst_apply(s->ctx, s->ev, t->value, v + used, sizeof(v) - used, false, &trunc);
	if (trunc) {
		ev_log(s, LOG_WARNING, "value of '%s' is truncated while substituting, refusing it",
		       ev_esc(e, t->attr));
		return 0;
	}
	if (s->ev->esc == ESC_REPLACE)
		ustr_replace_chars(v + used, NULL);
	return props_set_rule(&s->ev->props, t->attr, v);
}

static bool tag_name_ok(const char *s)
{
	return s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")] ==
	       '\0';
}

static int assign_tag(struct evstate *s, const struct rules_token *t)
{
	struct rules_event *ev = s->ev;
	char buf[RULES_PATH_MAX];
	int r = 0;

	if (!ev_format(s, t->value, buf, sizeof(buf), "tag", false))
		return 0;
	if (t->op == ROP_ASSIGN) {
		strv_clear(&ev->tags);
		strv_clear(&ev->current_tags);
	}
	if (!tag_name_ok(buf)) {
		char e[EV_ESC_MAX];

		ev_log(s, LOG_ERR, "invalid tag name '%s', ignoring", ev_esc(e, buf));
		return ev_lists_changed(ev);
	}
	if (t->op == ROP_REMOVE)
		strv_remove(&ev->current_tags, buf);
	else if ((r = strv_add(&ev->tags, buf)) >= 0)
		r = strv_add(&ev->current_tags, buf);
	if (r < 0)
		return r;
	return ev_lists_changed(ev);
}

static int add_links(struct evstate *s, char *buf)
{
	char *p = buf + strspn(buf, " \t\n\r");

	while (*p) {
		char name[RULES_PATH_MAX], *next = strchr(p, ' ');
		int r;

		if (next) {
			*next++ = '\0';
			next += strspn(next, " \t\n\r");
		}
		if ((size_t)snprintf(name, sizeof(name), "/dev/%s", p) < sizeof(name)) {
			r = strv_add(&s->ev->links, name);
			if (r < 0)
				return r;
		}
		p = next ? next : p + strlen(p);
	}
	return ev_lists_changed(s->ev);
}

static int assign_devlink(struct evstate *s, const struct rules_token *t)
{
	struct rules_event *ev = s->ev;
	char buf[RULES_PATH_MAX], e[EV_ESC_MAX];
	bool trunc;

	if (ev->devlink_final || !ev->has_devnum)
		return 0;
	if (t->op == ROP_ASSIGN_FINAL)
		ev->devlink_final = true;
	if (t->op == ROP_ASSIGN || t->op == ROP_ASSIGN_FINAL)
		strv_clear(&ev->links);
	subst_apply(s->ctx, ev, t->value, buf, sizeof(buf), ev->esc != ESC_NONE, &trunc);
	if (trunc) {
		ev_log(s, LOG_WARNING, "symlink '%s' is truncated while substituting, refusing it",
		       ev_esc(e, t->value));
		return ev_lists_changed(ev);
	}
	if (ev->esc == ESC_UNSET)
		ustr_replace_chars(buf, "/ ");
	else if (ev->esc == ESC_REPLACE)
		ustr_replace_chars(buf, "/");
	return add_links(s, buf);
}

static bool take_final(bool *final, const struct rules_token *t)
{
	if (*final)
		return false;
	if (t->op == ROP_ASSIGN_FINAL)
		*final = true;
	return true;
}

/* OWNER and GROUP with substitutions: resolved per event. */
static void assign_owner_name(struct evstate *s, const struct rules_token *t, bool group)
{
	char name[RULES_NAME_MAX], buf[4096], e[EV_ESC_MAX];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;
	long id;

	if (!take_final(group ? &s->ev->group_final : &s->ev->owner_final, t) ||
	    !ev_format(s, t->value, name, sizeof(name), group ? "group" : "user", false))
		return;
	/* udev's get_user_creds/get_group_creds: a number first ("%c" giving "1"), then a name */
	if (rules_parse_id(name, &id) == 0 && group)
		s->ev->gid = (gid_t)id;
	else if (rules_parse_id(name, &id) == 0)
		s->ev->uid = (uid_t)id;
	else if (group && getgrnam_r(name, &gr, buf, sizeof(buf), &grp) == 0 && grp)
		s->ev->gid = grp->gr_gid;
	else if (!group && getpwnam_r(name, &pw, buf, sizeof(buf), &pwp) == 0 && pwp)
		s->ev->uid = pwp->pw_uid;
	else
		ev_log(s, LOG_ERR, "unknown %s '%s', ignoring", group ? "group" : "user",
		       ev_esc(e, name));
}

static void assign_mode_string(struct evstate *s, const struct rules_token *t)
{
	char buf[RULES_NAME_MAX], e[EV_ESC_MAX];
	mode_t m;

	if (!take_final(&s->ev->mode_final, t) ||
	    !ev_format(s, t->value, buf, sizeof(buf), "mode", false))
		return;
	if (rules_parse_mode(buf, &m) < 0)
		ev_log(s, LOG_ERR, "failed to parse mode '%s', ignoring", ev_esc(e, buf));
	else
		s->ev->mode = m;
}

static void assign_ids(struct evstate *s, const struct rules_token *t)
{
	struct rules_event *ev = s->ev;

	switch (t->type) {
	case RTK_A_OWNER_ID:
		if (take_final(&ev->owner_final, t) && t->num >= 0)
			ev->uid = (uid_t)t->num;
		break;
	case RTK_A_GROUP_ID:
		if (take_final(&ev->group_final, t) && t->num >= 0)
			ev->gid = (gid_t)t->num;
		break;
	default:
		if (take_final(&ev->mode_final, t) && t->num >= 0)
			ev->mode = (mode_t)t->num;
		break;
	}
}

static int assign_run(struct evstate *s, const struct rules_token *t)
{
	struct rules_event *ev = s->ev;
	char buf[RULES_LINE_MAX];
	char *cmd;

	if (!take_final(&ev->run_final, t))
		return 0;
	if (t->op == ROP_ASSIGN || t->op == ROP_ASSIGN_FINAL) {
		for (size_t i = 0; i < ev->nrun; i++)
			free(ev->run[i].cmd);
		ev->nrun = 0;
	}
	if (!ev_format(s, t->value, buf, sizeof(buf), "command", false))
		return 0;
	if (ev->nrun >= RULES_RUN_MAX)
		return -E2BIG;
	if (!ev->run && !(ev->run = calloc(RULES_RUN_MAX, sizeof(*ev->run))))
		return -ENOMEM;
	cmd = strdup(buf);
	if (!cmd)
		return -ENOMEM;
	ev->run[ev->nrun++] = (struct rules_run){ .cmd = cmd,
						  .builtin = t->type == RTK_A_RUN_BUILTIN
								     ? (int)t->num
								     : -1 };
	return 0;
}

static void assign_name(struct evstate *s, const struct rules_token *t)
{
	char buf[RULES_PATH_MAX], e[EV_ESC_MAX];

	if (!take_final(&s->ev->name_final, t))
		return;
	if (!s->ev->has_ifindex) {
		ev_log(s, LOG_ERR, "only network interfaces can be renamed, ignoring NAME='%s'",
		       ev_esc(e, t->value));
		return;
	}
	if (!ev_format(s, t->value, buf, sizeof(buf), "network interface name", false))
		return;
	if (s->ev->esc != ESC_NONE)
		ustr_replace_chars(buf, "/");
	free(s->ev->name);
	s->ev->name = strdup(buf);
}

static void write_value(struct evstate *s, const char *path, const char *value)
{
	char e[EV_ESC_MAX], v[EV_ESC_MAX];
	int fd;

	if (s->ctx->no_writes) {
		ev_log(s, LOG_INFO, "would write '%s' to '%s'", ev_esc(v, value), ev_esc(e, path));
		return;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		ev_log(s, LOG_ERR, "failed to write '%s': %s", ev_esc(e, path), errno_text(errno));
	if (fd >= 0)
		close(fd);
}

/* ATTR{name}="value": name from the rules file, below the device (or [subsys/kernel]). */
static void assign_attr(struct evstate *s, const struct rules_token *t)
{
	char path[RULES_PATH_MAX], value[RULES_NAME_MAX], e[EV_ESC_MAX];

	if (rsys_subsys_kernel(s->ctx->sys, s->ctx->sysfs, t->attr, path, sizeof(path), false) <
		    0 &&
	    (size_t)snprintf(path, sizeof(path), "%s%s/%s", s->ctx->sysfs, s->ev->devpath,
			     t->attr) >= sizeof(path)) {
		ev_log(s, LOG_WARNING, "path of attribute '%s' is too long", ev_esc(e, t->attr));
		return;
	}
	if (strstr(path, "/../") || strstr(path, "/*/")) {
		ev_log(s, LOG_ERR, "attribute path '%s' refused", ev_esc(e, path));
		return;
	}
	if (ev_format(s, t->value, value, sizeof(value), "attribute value", false))
		write_value(s, path, value);
}

static void assign_sysctl(struct evstate *s, const struct rules_token *t)
{
	char name[RULES_PATH_MAX], path[RULES_PATH_MAX + 64], value[RULES_NAME_MAX], e[EV_ESC_MAX];
	size_t first;

	if (!ev_format(s, t->attr, name, sizeof(name), "sysctl name", false) ||
	    !ev_format(s, t->value, value, sizeof(value), "sysctl value", false))
		return;
	first = strcspn(name, "./");
	if (name[first] == '.')
		for (char *p = name; *p; p++)
			*p = *p == '.' ? '/' : *p == '/' ? '.' : *p;
	if (strstr(name, "..") || (size_t)snprintf(path, sizeof(path), "%s/%s",
						   s->ctx->procsys ? s->ctx->procsys : "/proc/sys",
						   name + strspn(name, "/")) >= sizeof(path)) {
		ev_log(s, LOG_ERR, "sysctl name '%s' refused", ev_esc(e, name));
		return;
	}
	write_value(s, path, value);
}

static void assign_option(struct evstate *s, const struct rules_token *t)
{
	struct rules_event *ev = s->ev;

	switch (t->type) {
	case RTK_A_ESCAPE_NONE: ev->esc = ESC_NONE; break;
	case RTK_A_ESCAPE_REPLACE: ev->esc = ESC_REPLACE; break;
	case RTK_A_DB_PERSIST: ev->db_persist = true; break;
	case RTK_A_LINK_PRIORITY: ev->link_priority = (int)t->num; break;
	case RTK_A_LOG_LEVEL: ev->log_level = (int)t->num; break;
	case RTK_A_WATCH:
		if (take_final(&ev->watch_final, t))
			ev->watch = (int)t->num;
		break;
	default: break; /* static_node: applied at start, not per event; SECLABEL: no MAC here */
	}
}

int assign_token(struct evstate *s, const struct rules_token *t)
{
	switch (t->type) {
	case RTK_A_ENV: return assign_env(s, t);
	case RTK_A_TAG: return assign_tag(s, t);
	case RTK_A_DEVLINK: return assign_devlink(s, t);
	case RTK_A_RUN_BUILTIN:
	case RTK_A_RUN_PROGRAM: return assign_run(s, t);
	case RTK_A_OWNER: assign_owner_name(s, t, false); return 0;
	case RTK_A_GROUP: assign_owner_name(s, t, true); return 0;
	case RTK_A_MODE: assign_mode_string(s, t); return 0;
	case RTK_A_OWNER_ID:
	case RTK_A_GROUP_ID:
	case RTK_A_MODE_ID: assign_ids(s, t); return 0;
	case RTK_A_NAME: assign_name(s, t); return 0;
	case RTK_A_ATTR: assign_attr(s, t); return 0;
	case RTK_A_SYSCTL: assign_sysctl(s, t); return 0;
	default: assign_option(s, t); return 0;
	}
}
