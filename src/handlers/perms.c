/* SPDX-License-Identifier: MIT */
#include "handlers/perms.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"

/* A rules file larger than this is refused whole: it cannot be a sane one. */
#define RULES_FILE_MAX (4u << 20)
/* getpwnam_r/getgrnam_r scratch space never grows past this. */
#define NSS_BUF_MAX (1u << 20)
/* Longest user or group name we pass to NSS. */
#define NAME_MAX_LEN 64
#define NFIELDS 5
/* Room for an escaped field in a message; longer ones end in "...". */
#define ESC_MAX 160

struct parse_ctx {
	struct perms *r;
	const char *origin;
	const struct logger *log;
	unsigned int line;
	size_t cap;
	bool limit_reported;
};

/* Count and report one skipped line as "origin:line: what: why". */
__attribute__((format(printf, 2, 3)))
static void line_error(struct parse_ctx *c, const char *fmt, ...)
{
	char msg[ESC_MAX + 192];
	va_list ap;

	c->r->errors++;
	if (c->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(c->log, LOG_ERR, "%s:%u: %s", c->origin, c->line, msg);
}

/* Escaped copy of a field for messages (fields may hold any byte). */
static const char *esc(char out[ESC_MAX], const char *s)
{
	return escape_log(out, ESC_MAX, s, strlen(s));
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/*
 * Split line in place at blanks. A field starting with '#' ends the line.
 * Returns the number of fields found (at most max + 1: "too many").
 */
static int split_fields(char *line, char *field[], int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (is_blank(*p))
			*p++ = '\0';
		if (*p == '\0' || *p == '#')
			return n;
		if (n == max)
			return max + 1;
		field[n++] = p;
		while (*p != '\0' && !is_blank(*p))
			p++;
	}
}

static bool has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Decimal id; (uid_t)-1 is chown's "no change", so it is not an id. */
static bool parse_id(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* Names NSS may see: portable user-name bytes, plus a trailing '$' (machine accounts). */
static bool name_ok(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > NAME_MAX_LEN || s[0] == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
			  ch == '.' || (ch == '$' && i == len - 1);

		if (!ok)
			return false;
	}
	return true;
}

/* Next scratch size for an NSS lookup that said ERANGE; 0 when past the bound. */
static size_t nss_grow(size_t size)
{
	return size * 2 > NSS_BUF_MAX ? 0 : size * 2;
}

/* 0 and *uid, -ENOENT for no such user, other -errno for a failed lookup. */
static int lookup_user(const char *name, uid_t *uid)
{
	struct passwd pw, *res = NULL;
	int r = ERANGE;

	for (size_t size = 1024; size != 0 && r == ERANGE; size = nss_grow(size)) {
		char *buf = malloc(size);

		if (buf == NULL)
			return -ENOMEM;
		r = getpwnam_r(name, &pw, buf, size, &res);
		if (r == 0 && res != NULL)
			*uid = pw.pw_uid;
		free(buf);
	}
	if (r != 0)
		return -r;
	return res != NULL ? 0 : -ENOENT;
}

static int lookup_group(const char *name, gid_t *gid)
{
	struct group gr, *res = NULL;
	int r = ERANGE;

	for (size_t size = 1024; size != 0 && r == ERANGE; size = nss_grow(size)) {
		char *buf = malloc(size);

		if (buf == NULL)
			return -ENOMEM;
		r = getgrnam_r(name, &gr, buf, size, &res);
		if (r == 0 && res != NULL)
			*gid = gr.gr_gid;
		free(buf);
	}
	if (r != 0)
		return -r;
	return res != NULL ? 0 : -ENOENT;
}

/*
 * OWNER or GROUP field: "-", a number, or a name. Returns 0, -EINVAL (already
 * reported) or -ENOMEM.
 */
static int parse_account(struct parse_ctx *c, const char *s, bool group,
			 bool *has, uint32_t *id)
{
	const char *what = group ? "group" : "user";
	char x[ESC_MAX];
	uid_t uid = 0;
	gid_t gid = 0;
	int r;

	*has = strcmp(s, "-") != 0;
	if (!*has || parse_id(s, id))
		return 0;
	if (strspn(s, "0123456789") == strlen(s)) {
		line_error(c, "%s '%s': number out of range", what, esc(x, s));
		return -EINVAL;
	}
	if (!name_ok(s)) {
		line_error(c, "%s '%s': not a valid name or number", what, esc(x, s));
		return -EINVAL;
	}
	r = group ? lookup_group(s, &gid) : lookup_user(s, &uid);
	if (r == -ENOMEM)
		return r;
	if (r == -ENOENT)
		line_error(c, "unknown %s '%s': not in the %s database", what,
			   esc(x, s), group ? "group" : "passwd");
	else if (r < 0)
		line_error(c, "%s '%s': lookup failed: %s", what, esc(x, s), errno_text(r));
	*id = group ? (uint32_t)gid : (uint32_t)uid;
	return r < 0 ? -EINVAL : 0;
}

static int parse_mode_field(struct parse_ctx *c, const char *s, struct perm_rule *rule)
{
	char x[ESC_MAX];
	unsigned int v = 0;

	rule->has_mode = strcmp(s, "-") != 0;
	if (!rule->has_mode)
		return 0;
	for (const char *p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '7') {
			line_error(c, "mode '%s': not an octal number", esc(x, s));
			return -EINVAL;
		}
		v = v * 8 + (unsigned int)(*p - '0');
		if (v > 07777) {
			line_error(c, "mode '%s': larger than 07777", esc(x, s));
			return -EINVAL;
		}
	}
	rule->mode = (mode_t)v;
	return 0;
}

static int check_match_fields(struct parse_ctx *c, const char *subsystem, const char *glob)
{
	char x[ESC_MAX];

	if (strcmp(subsystem, "*") != 0 && strchr(subsystem, '/') != NULL) {
		line_error(c, "subsystem '%s': a subsystem name has no '/'", esc(x, subsystem));
		return -EINVAL;
	}
	if (glob[0] == '/') {
		line_error(c, "glob '%s': DEVNAME is relative to /dev, a leading '/' never matches",
			   esc(x, glob));
		return -EINVAL;
	}
	return 0;
}

static int append_rule(struct parse_ctx *c, struct perm_rule *rule,
		       const char *subsystem, const char *glob)
{
	struct perms *r = c->r;

	if (r->n == PERMS_MAX) {
		if (!c->limit_reported)
			line_error(c, "too many rules: more than %d, this and later rules ignored",
				   PERMS_MAX);
		else
			r->errors++;
		c->limit_reported = true;
		return 0;
	}
	if (r->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 16;
		struct perm_rule *v = realloc(r->v, ncap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		r->v = v;
		c->cap = ncap;
	}
	rule->subsystem = strdup(subsystem);
	rule->glob = strdup(glob);
	if (rule->subsystem == NULL || rule->glob == NULL) {
		free(rule->subsystem);
		free(rule->glob);
		return -ENOMEM;
	}
	r->v[r->n++] = *rule;
	return 0;
}

/* One line (NUL-terminated copy). Returns 0 (added or skipped) or -ENOMEM. */
static int parse_line(struct parse_ctx *c, char *line)
{
	char *f[NFIELDS];
	struct perm_rule rule = { .line = c->line };
	uint32_t uid = 0, gid = 0;
	int n = split_fields(line, f, NFIELDS), r;

	if (n == 0)
		return 0;
	if (n != NFIELDS) {
		if (n > NFIELDS)
			line_error(c, "too many fields: want SUBSYSTEM DEVNAME-GLOB OWNER GROUP MODE");
		else
			line_error(c, "%d field%s: want SUBSYSTEM DEVNAME-GLOB OWNER GROUP MODE",
				   n, n == 1 ? "" : "s");
		return 0;
	}
	for (int i = 0; i < NFIELDS; i++) {
		if (has_control(f[i])) {
			char x[ESC_MAX];

			line_error(c, "field %d '%s': control character", i + 1, esc(x, f[i]));
			return 0;
		}
	}
	r = check_match_fields(c, f[0], f[1]);
	if (r == 0)
		r = parse_account(c, f[2], false, &rule.has_uid, &uid);
	if (r == 0)
		r = parse_account(c, f[3], true, &rule.has_gid, &gid);
	if (r == 0)
		r = parse_mode_field(c, f[4], &rule);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	rule.uid = (uid_t)uid;
	rule.gid = (gid_t)gid;
	return append_rule(c, &rule, f[0], f[1]);
}

/* Copy one line of len bytes out of the text and parse it; bad lines are reported. */
static int take_line(struct parse_ctx *c, const char *p, size_t len)
{
	char line[PERMS_LINE_MAX];
	const char *nul;

	if (len >= sizeof(line)) {
		line_error(c, "line too long: %zu bytes, at most %d", len, PERMS_LINE_MAX - 1);
		return 0;
	}
	nul = memchr(p, '\0', len);
	if (nul != NULL) {
		line_error(c, "NUL byte at column %zu: not a text file",
			   (size_t)(nul - p) + 1);
		return 0;
	}
	memcpy(line, p, len);
	line[len] = '\0';
	return parse_line(c, line);
}

int perms_parse(struct perms *r, const char *text, size_t len, const char *origin,
		const struct logger *log)
{
	struct parse_ctx c = { .r = r, .origin = origin ? origin : "rules", .log = log };
	size_t pos = 0;

	*r = (struct perms){ 0 };
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int e;

		c.line++;
		e = take_line(&c, text + pos, llen);
		if (e < 0) {
			perms_free(r);
			return e;
		}
		pos += llen + 1;
	}
	return 0;
}

/* Whole regular file, at most RULES_FILE_MAX bytes. */
static int read_file(int fd, char **out, size_t *outlen)
{
	struct stat st;
	char *buf;
	size_t n = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > RULES_FILE_MAX)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL)
		return -ENOMEM;
	/* the file may change under us: read at most what was allocated */
	while (n < (size_t)st.st_size + 1) {
		ssize_t k = read(fd, buf + n, (size_t)st.st_size + 1 - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = -errno;

			free(buf);
			return e;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	*out = buf;
	*outlen = n;
	return 0;
}

int perms_load(struct perms *r, const char *path, const struct logger *log)
{
	char *text = NULL;
	size_t len = 0;
	int fd, e;

	*r = (struct perms){ 0 };
	/* O_NONBLOCK: a FIFO planted at path must not hang early boot */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	e = read_file(fd, &text, &len);
	close(fd);
	if (e < 0)
		return e;
	e = perms_parse(r, text, len, path, log);
	free(text);
	return e;
}

static bool rule_matches(const struct perm_rule *rule, const char *subsystem, const char *devname)
{
	if (strcmp(rule->subsystem, "*") != 0 &&
	    (subsystem == NULL || strcmp(rule->subsystem, subsystem) != 0))
		return false;
	return fnmatch(rule->glob, devname, FNM_PATHNAME) == 0;
}

const struct perm_rule *perms_match(const struct perms *r, const char *subsystem,
			       const char *devname)
{
	if (r == NULL || devname == NULL)
		return NULL;
	for (size_t i = r->n; i > 0; i--)
		if (rule_matches(&r->v[i - 1], subsystem, devname))
			return &r->v[i - 1];
	return NULL;
}

void perms_free(struct perms *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].subsystem);
		free(r->v[i].glob);
	}
	free(r->v);
	*r = (struct perms){ 0 };
}
