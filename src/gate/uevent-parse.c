/* SPDX-License-Identifier: MIT */
/*
 * Kernel uevent parser. Every byte here comes from a socket anyone with
 * CAP_NET_ADMIN (or a bug) may write to, and DEVNAME/DEVPATH end up in file
 * names, so anything the kernel itself would not send is refused.
 */
#include "gate/uevent.h"

#include "util/escape.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Room for an escaped excerpt of outside bytes inside an error message. */
#define EXCERPT_MAX 96
/* Room for the reason part of an error message. */
#define WHY_MAX 96

static const char udev_magic[8] = "libudev"; /* with its NUL: 8 bytes */

static const char *const action_names[UEVENT_ACTION_COUNT] = {
	[UEVENT_ADD] = "add",         [UEVENT_REMOVE] = "remove",
	[UEVENT_CHANGE] = "change",   [UEVENT_MOVE] = "move",
	[UEVENT_ONLINE] = "online",   [UEVENT_OFFLINE] = "offline",
	[UEVENT_BIND] = "bind",       [UEVENT_UNBIND] = "unbind",
};

/* What the parse needs beyond struct uevent: error sink and seen-flags. */
struct pctx {
	struct uevent *ev;
	char *err;
	size_t errlen;
	bool have_action, have_seqnum, have_major, have_minor;
};

typedef enum uevent_parse_result result_t;

/* ---- names ------------------------------------------------------------ */

const char *uevent_action_name(enum uevent_action action)
{
	if ((unsigned int)action >= UEVENT_ACTION_COUNT)
		return NULL;
	return action_names[action];
}

/* By length, so the header's "ACTION@" can be matched in place. */
static int action_from_name_n(const char *name, size_t n)
{
	for (int a = 0; a < UEVENT_ACTION_COUNT; a++)
		if (strlen(action_names[a]) == n && memcmp(action_names[a], name, n) == 0)
			return a;
	return -1;
}

int uevent_action_from_name(const char *name)
{
	if (name == NULL)
		return -1;
	return action_from_name_n(name, strlen(name));
}

/* ---- error reporting -------------------------------------------------- */

static size_t offset_of(const struct pctx *c, const char *p)
{
	return (size_t)(p - c->ev->buf);
}

static const char *excerpt(char out[EXCERPT_MAX], const char *s, size_t n)
{
	return escape_log(out, EXCERPT_MAX, s, n);
}

__attribute__((format(printf, 2, 3)))
static result_t fail(struct pctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err != NULL && c->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return UEVENT_PARSE_MALFORMED;
}

/*
 * Refuse a KEY=VALUE whose key is well-formed: 'KEY "value" (offset N): why'.
 * The reason is built only from our own text and numbers, never raw bytes.
 */
__attribute__((format(printf, 3, 4)))
static result_t bad_var(struct pctx *c, const char *var, const char *fmt, ...)
{
	char k[EXCERPT_MAX], v[EXCERPT_MAX], why[WHY_MAX];
	size_t klen = strcspn(var, "=");
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fail(c, "%s \"%s\" (offset %zu): %s", excerpt(k, var, klen),
		    excerpt(v, var + klen + 1, strlen(var + klen + 1)),
		    offset_of(c, var), why);
}

/* ---- value checks: each returns false and fills why ------------------- */

static bool no_control_bytes(const char *s, char *why, size_t n)
{
	for (size_t i = 0; s[i] != '\0'; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b < 0x20 || b == 0x7f) {
			snprintf(why, n, "control byte 0x%02x at index %zu", b, i);
			return false;
		}
	}
	return true;
}

/* One component of len bytes at p; last says no '/' follows it. */
static bool component_ok(const char *p, size_t len, bool last,
			 const char *root, char *why, size_t n)
{
	if (len == 0)
		snprintf(why, n, "%s", last ? "trailing '/'" : "empty component ('//')");
	else if (len == 1 && p[0] == '.')
		snprintf(why, n, "'.' component would alias its parent");
	else if (len == 2 && p[0] == '.' && p[1] == '.')
		snprintf(why, n, "'..' component would leave %s", root);
	else
		return true;
	return false;
}

/*
 * A path to be joined under root: no empty, "." or ".." component and no
 * control byte, so the join can neither escape root nor name two things.
 */
static bool rel_path_ok(const char *s, const char *root, char *why, size_t n)
{
	const char *p = s;

	if (*s == '\0') {
		snprintf(why, n, "empty path");
		return false;
	}
	for (;;) {
		size_t len = strcspn(p, "/");
		bool last = p[len] == '\0';

		if (!component_ok(p, len, last, root, why, n))
			return false;
		if (last)
			return no_control_bytes(s, why, n);
		p += len + 1;
	}
}

static bool devpath_ok(const char *s, char *why, size_t n)
{
	if (s[0] != '/') {
		snprintf(why, n, "does not start with '/'");
		return false;
	}
	if (s[1] == '\0') {
		snprintf(why, n, "names no device: nothing after '/'");
		return false;
	}
	return rel_path_ok(s + 1, "/sys", why, n);
}

static bool devname_ok(const char *s, char *why, size_t n)
{
	size_t len = strlen(s);

	if (s[0] == '/') {
		snprintf(why, n, "leading '/': DEVNAME is relative to /dev");
		return false;
	}
	if (len > UEVENT_DEVNAME_MAX) {
		snprintf(why, n, "%zu bytes, longer than %d", len, UEVENT_DEVNAME_MAX);
		return false;
	}
	return rel_path_ok(s, "/dev", why, n);
}

/* SUBSYSTEM names a directory under /sys/class or /sys/bus. */
static bool subsystem_ok(const char *s, char *why, size_t n)
{
	if (*s == '\0' || strchr(s, '/') != NULL ||
	    strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
		snprintf(why, n, "must be one non-empty path component");
		return false;
	}
	return no_control_bytes(s, why, n);
}

/* The kernel prints these with %u/%llu: digits only, no sign or padding. */
static bool parse_dec(const char *s, uint64_t max, uint64_t *out, char *why,
		      size_t n)
{
	uint64_t v = 0;

	if (*s == '\0') {
		snprintf(why, n, "empty number");
		return false;
	}
	for (const char *p = s; *p != '\0'; p++) {
		unsigned int d = (unsigned char)*p - '0';

		if (d > 9) {
			snprintf(why, n, "byte 0x%02x at index %zu is not a decimal digit",
				 (unsigned char)*p, (size_t)(p - s));
			return false;
		}
		if (d > max || v > (max - d) / 10) {
			snprintf(why, n, "exceeds %llu", (unsigned long long)max);
			return false;
		}
		v = v * 10 + d;
	}
	if (s[0] == '0' && s[1] != '\0') {
		snprintf(why, n, "leading zero");
		return false;
	}
	*out = v;
	return true;
}

/* The kernel prints DEVMODE as "%#o": octal, permission bits only. */
static bool parse_mode(const char *s, mode_t *out, char *why, size_t n)
{
	unsigned int v = 0;

	if (*s == '\0') {
		snprintf(why, n, "empty mode");
		return false;
	}
	for (const char *p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '7') {
			snprintf(why, n, "byte 0x%02x at index %zu is not an octal digit",
				 (unsigned char)*p, (size_t)(p - s));
			return false;
		}
		v = v * 8 + (unsigned int)(*p - '0');
		if (v > 07777) {
			snprintf(why, n, "exceeds 07777");
			return false;
		}
	}
	*out = (mode_t)v;
	return true;
}

static bool is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

/* "0" for a bare write to the uevent file, else the writer's UUID. */
static bool synth_uuid_ok(const char *s)
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
	size_t i;

	if (strcmp(s, "0") == 0)
		return true;
	/* s[i] == '\0' fails both tests, so a short s stops the loop */
	for (i = 0; shape[i] != '\0'; i++)
		if (shape[i] == '-' ? s[i] != '-' : !is_hex(s[i]))
			return false;
	return s[i] == '\0';
}

/* ---- per-key handlers ------------------------------------------------- */

typedef result_t (*setter_t)(struct pctx *c, const char *var, const char *val);

static result_t set_action(struct pctx *c, const char *var, const char *val)
{
	int a = uevent_action_from_name(val);

	if (a < 0)
		return bad_var(c, var, "not one of the kernel's actions");
	c->ev->action = (enum uevent_action)a;
	c->have_action = true;
	return UEVENT_PARSE_OK;
}

/* Shared by DEVPATH and DEVPATH_OLD. */
static result_t check_devpath(struct pctx *c, const char *var, const char *val,
			      const char **dst)
{
	char why[WHY_MAX];

	if (!devpath_ok(val, why, sizeof(why)))
		return bad_var(c, var, "%s", why);
	*dst = val;
	return UEVENT_PARSE_OK;
}

static result_t set_devpath(struct pctx *c, const char *var, const char *val)
{
	return check_devpath(c, var, val, &c->ev->devpath);
}

static result_t set_devpath_old(struct pctx *c, const char *var, const char *val)
{
	return check_devpath(c, var, val, &c->ev->devpath_old);
}

static result_t set_subsystem(struct pctx *c, const char *var, const char *val)
{
	char why[WHY_MAX];

	if (!subsystem_ok(val, why, sizeof(why)))
		return bad_var(c, var, "%s", why);
	c->ev->subsystem = val;
	return UEVENT_PARSE_OK;
}

static result_t set_devname(struct pctx *c, const char *var, const char *val)
{
	char why[WHY_MAX];

	if (!devname_ok(val, why, sizeof(why)))
		return bad_var(c, var, "%s", why);
	c->ev->devname = val;
	return UEVENT_PARSE_OK;
}

static result_t number(struct pctx *c, const char *var, const char *val,
		       uint64_t max, uint64_t *out)
{
	char why[WHY_MAX];

	if (!parse_dec(val, max, out, why, sizeof(why)))
		return bad_var(c, var, "%s", why);
	return UEVENT_PARSE_OK;
}

static result_t set_seqnum(struct pctx *c, const char *var, const char *val)
{
	c->have_seqnum = true;
	return number(c, var, val, UINT64_MAX, &c->ev->seqnum);
}

static result_t set_diskseq(struct pctx *c, const char *var, const char *val)
{
	c->ev->has_diskseq = true;
	return number(c, var, val, UINT64_MAX, &c->ev->diskseq);
}

static result_t set_major(struct pctx *c, const char *var, const char *val)
{
	uint64_t v = 0;
	result_t r = number(c, var, val, UEVENT_MAJOR_MAX, &v);

	c->ev->major = (unsigned int)v;
	c->have_major = true;
	return r;
}

static result_t set_minor(struct pctx *c, const char *var, const char *val)
{
	uint64_t v = 0;
	result_t r = number(c, var, val, UEVENT_MINOR_MAX, &v);

	c->ev->minor = (unsigned int)v;
	c->have_minor = true;
	return r;
}

/* (uid_t)-1 means "no change" to chown(), so it can never be an owner. */
static result_t set_devuid(struct pctx *c, const char *var, const char *val)
{
	uint64_t v = 0;
	result_t r = number(c, var, val, (uint64_t)(uid_t)-1 - 1, &v);

	c->ev->devuid = (uid_t)v;
	c->ev->has_devuid = true;
	return r;
}

static result_t set_devgid(struct pctx *c, const char *var, const char *val)
{
	uint64_t v = 0;
	result_t r = number(c, var, val, (uint64_t)(gid_t)-1 - 1, &v);

	c->ev->devgid = (gid_t)v;
	c->ev->has_devgid = true;
	return r;
}

static result_t set_devmode(struct pctx *c, const char *var, const char *val)
{
	char why[WHY_MAX];

	if (!parse_mode(val, &c->ev->devmode, why, sizeof(why)))
		return bad_var(c, var, "%s", why);
	c->ev->has_devmode = true;
	return UEVENT_PARSE_OK;
}

static result_t set_synth_uuid(struct pctx *c, const char *var, const char *val)
{
	if (!synth_uuid_ok(val))
		return bad_var(c, var, "neither \"0\" nor an 8-4-4-4-12 hex UUID");
	c->ev->synth_uuid = val;
	return UEVENT_PARSE_OK;
}

/* Free-form values: kept as sent, escaped by whoever logs them. */
static result_t set_devtype(struct pctx *c, const char *var, const char *val)
{
	(void)var;
	c->ev->devtype = val;
	return UEVENT_PARSE_OK;
}

static result_t set_modalias(struct pctx *c, const char *var, const char *val)
{
	(void)var;
	c->ev->modalias = val;
	return UEVENT_PARSE_OK;
}

static result_t set_driver(struct pctx *c, const char *var, const char *val)
{
	(void)var;
	c->ev->driver = val;
	return UEVENT_PARSE_OK;
}

static const struct {
	const char *key;
	setter_t set;
} known_keys[] = {
	{ "ACTION", set_action },       { "DEVPATH", set_devpath },
	{ "DEVPATH_OLD", set_devpath_old }, { "SUBSYSTEM", set_subsystem },
	{ "SEQNUM", set_seqnum },       { "DEVNAME", set_devname },
	{ "DEVTYPE", set_devtype },     { "MAJOR", set_major },
	{ "MINOR", set_minor },         { "DEVMODE", set_devmode },
	{ "DEVUID", set_devuid },       { "DEVGID", set_devgid },
	{ "MODALIAS", set_modalias },   { "DRIVER", set_driver },
	{ "DISKSEQ", set_diskseq },     { "SYNTH_UUID", set_synth_uuid },
};

/* Hand var to its key's setter; unknown keys are only kept in env[]. */
static result_t apply_known(struct pctx *c, const char *var, size_t klen)
{
	for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++) {
		const char *k = known_keys[i].key;

		if (strlen(k) == klen && memcmp(k, var, klen) == 0)
			return known_keys[i].set(c, var, var + klen + 1);
	}
	return UEVENT_PARSE_OK;
}

/* ---- variables -------------------------------------------------------- */

static bool is_key_byte(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

/* Key length of var, or a refusal if the key is not [A-Za-z0-9_]{1,64}. */
static result_t check_key(struct pctx *c, const char *var, size_t *klen)
{
	char k[EXCERPT_MAX];
	size_t n = strcspn(var, "=");
	size_t off = offset_of(c, var);

	if (var[n] != '=')
		return fail(c, "variable \"%s\" (offset %zu): no '=' after the key",
			    excerpt(k, var, n), off);
	if (n == 0 || n > UEVENT_KEY_MAX)
		return fail(c, "key \"%s\" (offset %zu): %zu bytes, want 1 to %d",
			    excerpt(k, var, n), off, n, UEVENT_KEY_MAX);
	for (size_t i = 0; i < n; i++)
		if (!is_key_byte(var[i]))
			return fail(c, "key \"%s\" (offset %zu): byte 0x%02x at index %zu is not in [A-Za-z0-9_]",
				    excerpt(k, var, n), off, (unsigned char)var[i], i);
	*klen = n;
	return UEVENT_PARSE_OK;
}

/* A repeated key would make "the" value depend on who reads first. */
static result_t check_unique(struct pctx *c, const char *var, size_t klen)
{
	const struct uevent *ev = c->ev;
	char k[EXCERPT_MAX];

	for (size_t i = 0; i < ev->nenv; i++)
		if (memcmp(ev->env[i], var, klen + 1) == 0)
			return fail(c, "duplicate key \"%s\" (offset %zu, first at offset %zu)",
				    excerpt(k, var, klen), offset_of(c, var),
				    offset_of(c, ev->env[i]));
	return UEVENT_PARSE_OK;
}

static result_t add_var(struct pctx *c, const char *var)
{
	struct uevent *ev = c->ev;
	size_t klen = 0;
	result_t r;

	if (*var == '\0')
		return fail(c, "empty variable at offset %zu (two NULs in a row)",
			    offset_of(c, var));
	if (ev->nenv == UEVENT_ENV_MAX_VARS)
		return fail(c, "more than %d variables (the next at offset %zu)",
			    UEVENT_ENV_MAX_VARS, offset_of(c, var));
	r = check_key(c, var, &klen);
	if (r == UEVENT_PARSE_OK)
		r = check_unique(c, var, klen);
	if (r != UEVENT_PARSE_OK)
		return r;
	ev->env[ev->nenv++] = var;
	return apply_known(c, var, klen);
}

/* The environment: NUL-terminated variables from start to the end. */
static result_t parse_env(struct pctx *c, size_t start)
{
	struct uevent *ev = c->ev;

	if (ev->len - start > UEVENT_ENV_MAX_BYTES)
		return fail(c, "environment is %zu bytes, more than the kernel's %d",
			    ev->len - start, UEVENT_ENV_MAX_BYTES);
	for (size_t off = start; off < ev->len; off += strlen(ev->buf + off) + 1) {
		result_t r = add_var(c, ev->buf + off);

		if (r != UEVENT_PARSE_OK)
			return r;
	}
	return UEVENT_PARSE_OK;
}

/* ---- framing, header and cross-key rules ------------------------------ */

static result_t check_frame(struct pctx *c, const unsigned char *data, size_t len)
{
	if (len == 0)
		return fail(c, "empty payload");
	if (len >= sizeof(udev_magic) && memcmp(data, udev_magic, sizeof(udev_magic)) == 0) {
		fail(c, "\"libudev\" framing: udev's re-broadcast, not a kernel uevent");
		return UEVENT_PARSE_UDEV_FRAMING;
	}
	if (len > UEVENT_MSG_MAX)
		return fail(c, "payload is %zu bytes, more than %d", len, UEVENT_MSG_MAX);
	if (data[len - 1] != '\0')
		return fail(c, "payload of %zu bytes does not end in NUL (unterminated)", len);
	return UEVENT_PARSE_OK;
}

/* "ACTION@DEVPATH": the action must be the kernel's; DEVPATH is checked later. */
static result_t check_header(struct pctx *c)
{
	const char *h = c->ev->buf;
	const char *at = strchr(h, '@');
	char x[EXCERPT_MAX];

	if (at == NULL)
		return fail(c, "header \"%s\" (offset 0): no '@' between action and devpath",
			    excerpt(x, h, strlen(h)));
	if (action_from_name_n(h, (size_t)(at - h)) < 0)
		return fail(c, "header action \"%s\" (offset 0): not one of the kernel's actions",
			    excerpt(x, h, (size_t)(at - h)));
	return UEVENT_PARSE_OK;
}

static result_t check_required(struct pctx *c)
{
	const struct uevent *ev = c->ev;
	const char *missing = !c->have_action ? "ACTION" :
			      ev->devpath == NULL ? "DEVPATH" :
			      ev->subsystem == NULL ? "SUBSYSTEM" :
			      !c->have_seqnum ? "SEQNUM" : NULL;

	if (missing != NULL)
		return fail(c, "missing %s, which the kernel always sends", missing);
	return UEVENT_PARSE_OK;
}

/* The header is what udev-less listeners read; it must say the same thing. */
static result_t check_header_matches(struct pctx *c)
{
	const struct uevent *ev = c->ev;
	const char *at = strchr(ev->buf, '@');
	const char *name = action_names[ev->action];
	size_t alen = (size_t)(at - ev->buf);
	char x[EXCERPT_MAX];

	if (strlen(name) != alen || memcmp(name, ev->buf, alen) != 0)
		return fail(c, "header action \"%s\" (offset 0) does not match ACTION \"%s\"",
			    excerpt(x, ev->buf, alen), name);
	if (strcmp(at + 1, ev->devpath) != 0)
		return fail(c, "header devpath \"%s\" (offset %zu) does not match DEVPATH",
			    excerpt(x, at + 1, strlen(at + 1)), offset_of(c, at + 1));
	return UEVENT_PARSE_OK;
}

/* A device node needs both halves of its number, and a name needs a number. */
static result_t check_devnum(struct pctx *c)
{
	struct uevent *ev = c->ev;
	char x[EXCERPT_MAX];

	if (c->have_major != c->have_minor)
		return fail(c, "%s without %s", c->have_major ? "MAJOR" : "MINOR",
			    c->have_major ? "MINOR" : "MAJOR");
	ev->has_devnum = c->have_major;
	if (ev->devname != NULL && !ev->has_devnum)
		return fail(c, "DEVNAME \"%s\" (offset %zu) without MAJOR/MINOR",
			    excerpt(x, ev->devname, strlen(ev->devname)),
			    offset_of(c, ev->devname));
	return UEVENT_PARSE_OK;
}

/* ---- entry points ----------------------------------------------------- */

/* Clear everything but buf: copying over it is enough, zeroing 8 KiB is not needed. */
static void reset(struct uevent *ev)
{
	size_t from = offsetof(struct uevent, len);

	memset((char *)ev + from, 0, sizeof(*ev) - from);
	ev->buf[0] = '\0';
}

static result_t parse_copy(struct pctx *c)
{
	size_t hlen = strlen(c->ev->buf);
	result_t r = check_header(c);

	if (r == UEVENT_PARSE_OK)
		r = parse_env(c, hlen + 1);
	if (r == UEVENT_PARSE_OK)
		r = check_required(c);
	if (r == UEVENT_PARSE_OK)
		r = check_header_matches(c);
	if (r == UEVENT_PARSE_OK)
		r = check_devnum(c);
	return r;
}

enum uevent_parse_result uevent_parse(struct uevent *ev, const void *data,
				      size_t len, char *err, size_t errlen)
{
	struct pctx c = { .ev = ev, .err = err, .errlen = errlen };
	result_t r;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	reset(ev);
	r = check_frame(&c, data, len);
	if (r != UEVENT_PARSE_OK)
		return r;
	memcpy(ev->buf, data, len);
	ev->buf[len] = '\0';
	ev->len = len;
	r = parse_copy(&c);
	if (r != UEVENT_PARSE_OK)
		reset(ev); /* never leave a half-filled event to be misused */
	return r;
}

const char *uevent_get(const struct uevent *ev, const char *key)
{
	size_t klen;

	/* a key holding '=' could match inside a value */
	if (key == NULL || strchr(key, '=') != NULL)
		return NULL;
	klen = strlen(key);
	for (size_t i = 0; i < ev->nenv; i++)
		if (strncmp(ev->env[i], key, klen) == 0 && ev->env[i][klen] == '=')
			return ev->env[i] + klen + 1;
	return NULL;
}

/* p pointed into src->buf: the same offset in dst->buf. */
static const char *rebase(const struct uevent *dst, const struct uevent *src, const char *p)
{
	return p ? dst->buf + (p - src->buf) : NULL;
}

void uevent_copy(struct uevent *dst, const struct uevent *src)
{
	const char *const *from[] = { &src->devpath, &src->subsystem, &src->devname,
				      &src->devpath_old, &src->devtype, &src->modalias,
				      &src->driver, &src->synth_uuid };
	const char **to[] = { &dst->devpath, &dst->subsystem, &dst->devname,
			      &dst->devpath_old, &dst->devtype, &dst->modalias,
			      &dst->driver, &dst->synth_uuid };

	/* the fields, then only the bytes of buf in use (not all 8 KiB) */
	size_t fields = offsetof(struct uevent, len);

	memcpy((char *)dst + fields, (const char *)src + fields, sizeof(*src) - fields);
	memcpy(dst->buf, src->buf, src->len + 1);
	for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++)
		*to[i] = rebase(dst, src, *from[i]);
	for (size_t i = 0; i < src->nenv; i++)
		dst->env[i] = rebase(dst, src, src->env[i]);
}
