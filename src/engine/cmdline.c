/* SPDX-License-Identifier: MIT */
/*
 * Kernel command line parsing. Anyone at the console can edit the boot
 * loader's menu, so every byte here is hostile: the text is bounded, every
 * value is checked strictly, bad values are named in a warning and ignored,
 * and the number of warnings per parse is bounded too.
 */
#include "engine/cmdline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/number.h"
#include "util/readfull.h"

#define MODULE_NAME_MAX 64 /* bytes of a module name we accept */
#define WARN_MAX 16        /* warnings per parse before we only count them */
#define ESC_MAX 96         /* room for an escaped value in a message */

enum list_id { LIST_BLACKLIST, LIST_PRE, LIST_COUNT };

struct parse {
	struct cmdline *c;
	const struct logger *log;
	unsigned int warnings;   /* emitted */
	unsigned int suppressed; /* over WARN_MAX, only counted */
	bool full_warned[LIST_COUNT];
};

/* One word of the line, split like the kernel's next_arg(). */
struct word {
	const char *key;
	size_t klen;
	const char *val; /* NULL: no '=' at all */
	size_t vlen;
};

struct option {
	const char *key;
	int (*apply)(struct parse *p, const struct option *o, const struct word *w);
	size_t field;       /* flags and scalars: offset of the bool or int */
	int min, max, unset;
	const char *what;   /* "a number of seconds" */
	enum list_id list;  /* lists */
};

__attribute__((format(printf, 2, 3)))
static void warn(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (p->log == NULL)
		return;
	if (p->warnings >= WARN_MAX) {
		p->suppressed++;
		return;
	}
	p->warnings++;
	va_start(ap, fmt);
	log_vmsg(p->log, LOG_WARNING, fmt, ap);
	va_end(ap);
}

/* The kernel's isspace(), which also counts Latin-1 NBSP (0xa0). */
static bool is_space(char ch)
{
	unsigned char c = (unsigned char)ch;

	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static bool key_is(const struct word *w, const char *key)
{
	return w->klen == strlen(key) && memcmp(w->key, key, w->klen) == 0;
}

/* Bytes of the word at s[0..n): up to whitespace outside quotes, or n. */
static size_t word_len(const char *s, size_t n)
{
	bool quoted = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!quoted && is_space(s[i]))
			break;
		if (s[i] == '"')
			quoted = !quoted;
	}
	return i;
}

/*
 * Like next_arg(): a leading quote on the word or on the value is dropped,
 * and so is the matching last quote; quotes elsewhere stay.
 */
static void split_word(const char *s, size_t len, struct word *w)
{
	bool quoted = len > 0 && s[0] == '"';
	const char *eq;

	if (quoted) {
		s++;
		len--;
	}
	eq = memchr(s, '=', len);
	w->key = s;
	w->klen = eq ? (size_t)(eq - s) : len;
	w->val = eq ? eq + 1 : NULL;
	w->vlen = eq ? len - w->klen - 1 : 0;
	if (w->val && w->vlen > 0 && w->val[0] == '"') {
		w->val++;
		w->vlen--;
		if (w->vlen > 0 && w->val[w->vlen - 1] == '"')
			w->vlen--;
	} else if (quoted && w->val && w->vlen > 0 && w->val[w->vlen - 1] == '"') {
		w->vlen--;
	} else if (quoted && !w->val && w->klen > 0 && w->key[w->klen - 1] == '"') {
		w->klen--;
	}
}

/* "key" or key="escaped value", for messages. */
static const char *subject(char *buf, size_t size, const struct word *w)
{
	char key[ESC_MAX], val[ESC_MAX];

	escape_log(key, sizeof(key), w->key, w->klen);
	if (w->val == NULL)
		snprintf(buf, size, "%s (no value)", key);
	else
		snprintf(buf, size, "%s=\"%s\"", key,
			 escape_log(val, sizeof(val), w->val, w->vlen));
	return buf;
}

static int apply_number(struct parse *p, const struct option *o, const struct word *w)
{
	int *field = (int *)((char *)p->c + o->field);
	char subj[2 * ESC_MAX + 16];
	uint64_t v;

	if (number_parse(w->val, w->vlen, (uint64_t)o->max, &v) == 0 && v >= (uint64_t)o->min) {
		*field = (int)v;
		return 0;
	}
	warn(p, "%s: not %s (%d..%d); keeping the %s", subject(subj, sizeof(subj), w),
	     o->what, o->min, o->max, *field == o->unset ? "default" : "earlier value");
	return 0;
}

static bool value_in(const struct word *w, const char *const *words)
{
	for (; *words != NULL; words++)
		if (w->vlen == strlen(*words) && memcmp(w->val, *words, w->vlen) == 0)
			return true;
	return false;
}

static int apply_flag(struct parse *p, const struct option *o, const struct word *w)
{
	static const char *const yes[] = { "1", "yes", "true", "on", NULL };
	static const char *const no[] = { "0", "no", "false", "off", NULL };
	char subj[2 * ESC_MAX + 16];
	bool *flag = (bool *)((char *)p->c + o->field);

	/* a bare flag means on, as rd.udev.debug does */
	if (w->val == NULL || value_in(w, yes))
		*flag = true;
	else if (value_in(w, no))
		*flag = false;
	else
		warn(p, "%s: not a boolean (0, 1, yes, no); keeping %s", subject(subj, sizeof(subj), w),
		     *flag ? "on" : "off");
	return 0;
}

static bool module_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/*
 * Copy a module name to out (MODULE_NAME_MAX + 1 bytes) with '-' as '_',
 * the way the kernel and kmod compare names. -EINVAL if it is not a name.
 */
static int normalise_name(char *out, const char *name, size_t len)
{
	if (len == 0 || len > MODULE_NAME_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!module_byte(name[i]))
			return -EINVAL;
		out[i] = name[i] == '-' ? '_' : name[i];
	}
	out[len] = '\0';
	return 0;
}

static bool list_has(char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* Append a copy of name; -ENOMEM leaves the list as it was. */
static int list_append(char ***list, size_t *n, const char *name)
{
	char *dup = strdup(name);
	char **grown;

	if (dup == NULL)
		return -ENOMEM;
	/* at most CMDLINE_LIST_MAX entries: growing one by one is cheap enough */
	grown = reallocarray(*list, *n + 1, sizeof(**list));
	if (grown == NULL) {
		free(dup);
		return -ENOMEM;
	}
	grown[(*n)++] = dup;
	*list = grown;
	return 0;
}

static int list_add(struct parse *p, const struct option *o, const char *name)
{
	char ***list = o->list == LIST_PRE ? &p->c->pre : &p->c->blacklist;
	size_t *n = o->list == LIST_PRE ? &p->c->npre : &p->c->nblacklist;

	if (list_has(*list, *n, name))
		return 0;
	if (*n >= CMDLINE_LIST_MAX) {
		if (!p->full_warned[o->list])
			warn(p, "%s: more than %d modules; ignoring %s and any further ones",
			     o->key, CMDLINE_LIST_MAX, name);
		p->full_warned[o->list] = true;
		return 0;
	}
	return list_append(list, n, name);
}

static int apply_list(struct parse *p, const struct option *o, const struct word *w)
{
	char name[MODULE_NAME_MAX + 1], esc[ESC_MAX];

	if (w->val == NULL) {
		warn(p, "%s: no module list given; ignored", o->key);
		return 0;
	}
	for (size_t i = 0; i <= w->vlen;) {
		const char *s = w->val + i, *comma = memchr(s, ',', w->vlen - i);
		size_t len = comma ? (size_t)(comma - s) : w->vlen - i;
		int r = 0;

		/* empty entries ("a,,b", a trailing comma) are harmless */
		if (len > 0 && normalise_name(name, s, len) < 0)
			warn(p, "%s: \"%s\" is not a module name; skipped", o->key,
			     escape_log(esc, sizeof(esc), s, len));
		else if (len > 0)
			r = list_add(p, o, name);
		if (r < 0)
			return r;
		i += len + 1;
	}
	return 0;
}

/* root=...: only whether a root is given matters here (dracut reads the value). */
static int apply_present(struct parse *p, const struct option *o, const struct word *w)
{
	bool *field = (bool *)((char *)p->c + o->field);

	*field = w->val != NULL && w->vlen > 0;
	return 0;
}

#define FLAG(name) .apply = apply_flag, .field = offsetof(struct cmdline, name)
#define SCALAR(name) .apply = apply_number, .field = offsetof(struct cmdline, name)

static const struct option options[] = {
	{ .key = "rd.initdev.debug", FLAG(debug) },
	{ .key = "rd.initdev.handoff", FLAG(handoff) },
	{ .key = "rd.initdev.root_first", FLAG(root_first) },
	{ .key = "root", .apply = apply_present, .field = offsetof(struct cmdline, has_root) },
	{ .key = "rd.initdev.timeout", SCALAR(timeout_sec), .min = 0,
	  .max = CMDLINE_TIMEOUT_MAX, .unset = -1, .what = "a number of seconds" },
	{ .key = "rd.initdev.workers", SCALAR(workers), .min = 1,
	  .max = CMDLINE_WORKERS_MAX, .unset = 0, .what = "a number of workers" },
	{ .key = "rd.initdev.handoff_timeout", SCALAR(handoff_timeout_sec), .min = 0,
	  .max = CMDLINE_TIMEOUT_MAX, .unset = -1, .what = "a number of seconds" },
	{ .key = "rd.initdev.event_timeout", SCALAR(event_timeout_sec), .min = 1,
	  .max = CMDLINE_TIMEOUT_MAX, .unset = -1, .what = "a number of seconds" },
	{ .key = "rd.initdev.broadcast", SCALAR(broadcast), .min = 0, .max = 1, .unset = -1,
	  .what = "0 or 1" },
	{ .key = "modprobe.blacklist", .apply = apply_list, .list = LIST_BLACKLIST },
	{ .key = "rd.driver.blacklist", .apply = apply_list, .list = LIST_BLACKLIST },
	{ .key = "rd.driver.pre", .apply = apply_list, .list = LIST_PRE },
};

#define PREFIX "rd.initdev."

static int apply_word(struct parse *p, const struct word *w)
{
	char esc[ESC_MAX];

	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (key_is(w, options[i].key))
			return options[i].apply(p, &options[i], w);
	/* our namespace: a typo there should not pass unnoticed */
	if (w->klen >= strlen(PREFIX) && memcmp(w->key, PREFIX, strlen(PREFIX)) == 0)
		warn(p, "unknown option %s ignored", escape_log(esc, sizeof(esc), w->key, w->klen));
	return 0;
}

void cmdline_init(struct cmdline *c)
{
	memset(c, 0, sizeof(*c));
	c->timeout_sec = -1;
	c->handoff_timeout_sec = -1;
	c->event_timeout_sec = -1;
	c->broadcast = -1;
	c->handoff = true;
	c->root_first = true;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void cmdline_free(struct cmdline *c)
{
	free_list(c->blacklist, c->nblacklist);
	free_list(c->pre, c->npre);
	cmdline_init(c);
}

/*
 * Bytes to look at; *cut says the text went on past CMDLINE_MAX (a NUL
 * before that ends the text and nothing is cut).
 */
static size_t text_extent(const char *text, size_t len, bool *cut)
{
	size_t n = len < CMDLINE_MAX ? len : CMDLINE_MAX;
	const char *nul = n > 0 ? memchr(text, '\0', n) : NULL;

	*cut = nul == NULL && len > CMDLINE_MAX;
	return nul ? (size_t)(nul - text) : n;
}

int cmdline_parse(struct cmdline *c, const char *text, size_t len,
		  const struct logger *log)
{
	struct parse p = { .c = c, .log = log };
	bool cut;
	size_t n = text_extent(text, len, &cut), i = 0;
	int r = 0;

	if (n > 0)
		memcpy(c->text, text, n);
	c->text[n] = '\0';

	while (i < n && r == 0) {
		struct word w;
		size_t wl;

		if (is_space(text[i])) {
			i++;
			continue;
		}
		wl = word_len(text + i, n - i);
		/* a word the bound cut in two could change meaning ("=300" -> "=30") */
		if (cut && i + wl == n)
			break;
		split_word(text + i, wl, &w);
		r = apply_word(&p, &w);
		i += wl;
	}
	if (cut)
		c->text[i] = '\0'; /* IMPORT{cmdline} must not see the cut word either */
	if (log != NULL && p.suppressed > 0)
		log_msg(log, LOG_WARNING, "%u more warnings about the kernel command line suppressed",
			p.suppressed);
	/* outside the warning budget: losing options matters more than a typo */
	if (log != NULL && cut)
		log_msg(log, LOG_WARNING, "kernel command line longer than %d bytes; "
			"ignored from byte %zu on", CMDLINE_MAX, i);
	return r;
}

/* Read at most size bytes of path. Returns the count or -errno. */
static ssize_t read_bounded(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = read_full(fd, buf, size);
	close(fd);
	return got;
}

int cmdline_load(struct cmdline *c, const char *path, const struct logger *log)
{
	/* one byte past the bound only tells the parser that the text was cut */
	char buf[CMDLINE_MAX + 1];
	ssize_t n = read_bounded(path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return cmdline_parse(c, buf, (size_t)n, log);
}

bool cmdline_blacklisted(const struct cmdline *c, const char *name)
{
	char norm[MODULE_NAME_MAX + 1];

	if (name == NULL || normalise_name(norm, name, strnlen(name, MODULE_NAME_MAX + 1)) < 0)
		return false;
	return list_has(c->blacklist, c->nblacklist, norm);
}
