/* SPDX-License-Identifier: MIT */
/*
 * Reading a trace file (trace-file.h): hostile input. Every line is checked
 * whole before it is kept; the first fault ends the parse with its line,
 * byte offset and reason.
 */
#include "util/trace-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/number.h"

#define FIELDS_MAX (4 + TRACE_HANDLERS_MAX)
#define NAME_FIELD_MAX (4 * TRACE_DEVPATH_MAX) /* an escaped devpath */

enum { HDR_START = 1, HDR_CAPACITY = 2, HDR_DROPPED = 4, HDR_MARKS_DROPPED = 8, HDR_LOG_DROPPED = 16 };

struct parser {
	struct trace_log *log;
	struct trace_error *err;
	uint32_t line;
	size_t offset;
	char *f[FIELDS_MAX];
	unsigned int nf;
	unsigned int seen; /* header keys */
	bool ended;
	size_t cap; /* entries allocated */
};

__attribute__((format(printf, 2, 3))) static int fail(struct parser *p, const char *fmt, ...)
{
	struct trace_error *e = p->err;
	va_list ap;
	int n = 0;

	e->line = p->line;
	e->offset = p->offset;
	if (p->line)
		n = snprintf(e->why, sizeof(e->why), "line %u (byte %zu): ", p->line, p->offset);
	va_start(ap, fmt);
	vsnprintf(e->why + n, sizeof(e->why) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A field quoted in a message: escaped and short. */
static const char *quote(const char *s, char *buf, size_t size)
{
	return escape_log(buf, size, s, strnlen(s, 64));
}

static int num(struct parser *p, unsigned int i, const char *what, uint64_t max, uint64_t *v)
{
	char q[80];

	if (number_parse_str(p->f[i], max, v) == 0)
		return 0;
	return fail(p, "%s: '%s' is not a number (0..%llu)", what, quote(p->f[i], q, sizeof(q)),
		    (unsigned long long)max);
}

static bool in_set(const char *s, size_t max, const char *set)
{
	size_t n = strspn(s, set);

	return n > 0 && n <= max && s[n] == '\0';
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define DIGITS "0123456789"

/* What the writer makes of any bytes: printable, no blank, \xNN escapes. */
static bool escaped_ok(const char *s, size_t max)
{
	size_t n = 0;

	for (; s[n]; n++) {
		if (s[n] != '\\')
			continue;
		if (s[n + 1] != 'x' || !strchr("0123456789abcdefABCDEF", s[n + 2]) || !s[n + 2] ||
		    !strchr("0123456789abcdefABCDEF", s[n + 3]) || !s[n + 3])
			return false;
		n += 3;
	}
	return n > 0 && n <= max;
}

static int name_field(struct parser *p, unsigned int i, const char *what, bool ok)
{
	char q[80];

	return ok ? 0 : fail(p, "%s: '%s' is not valid", what, quote(p->f[i], q, sizeof(q)));
}

static int devpath(struct parser *p, unsigned int i)
{
	const char *s = p->f[i];
	bool ok = (s[0] == '/' || strncmp(s, "...", 3) == 0) && escaped_ok(s, NAME_FIELD_MAX);

	return name_field(p, i, "devpath", ok);
}

static struct trace_entry *new_entry(struct parser *p, uint8_t kind)
{
	struct trace_log *log = p->log;
	struct trace_entry *e;

	if (log->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;

		if (p->cap >= TRACE_LOG_ENTRIES_MAX) {
			fail(p, "more than %u records", TRACE_LOG_ENTRIES_MAX);
			return NULL;
		}
		e = realloc(log->e, cap * sizeof(*e));
		if (!e) {
			fail(p, "out of memory");
			return NULL;
		}
		log->e = e;
		p->cap = cap;
	}
	e = &log->e[log->n++];
	*e = (struct trace_entry){ .kind = kind, .line = p->line, .offset = p->offset };
	return e;
}

/* ---- one kind of line each ---- */

static int header_key(struct parser *p, unsigned int bit, uint64_t *v)
{
	if (p->seen & bit)
		return fail(p, "%s: given twice", p->f[0]);
	p->seen |= bit;
	return num(p, 1, p->f[0], TRACE_TIME_MAX, v);
}

static int parse_header(struct parser *p)
{
	struct trace_log *log = p->log;

	if (strcmp(p->f[0], "start_monotonic_us") == 0)
		return header_key(p, HDR_START, &log->start_monotonic_us);
	if (strcmp(p->f[0], "capacity") == 0)
		return header_key(p, HDR_CAPACITY, &log->capacity);
	if (strcmp(p->f[0], "dropped") == 0)
		return header_key(p, HDR_DROPPED, &log->dropped);
	if (strcmp(p->f[0], "log_dropped") == 0) /* optional: traces before it lack it */
		return header_key(p, HDR_LOG_DROPPED, &log->log_dropped);
	return header_key(p, HDR_MARKS_DROPPED, &log->marks_dropped);
}

static int parse_phase(struct parser *p)
{
	struct trace_log *log = p->log;
	uint64_t t;
	int r = num(p, 1, "time", TRACE_TIME_MAX, &t);

	if (r == 0)
		r = name_field(p, 2, "phase", in_set(p->f[2], TRACE_HANDLER_NAME_MAX - 1, LOWER));
	if (r == 0 && log->nphases == TRACE_MARKS_MAX)
		r = fail(p, "more than %d phase lines", TRACE_MARKS_MAX);
	if (r < 0)
		return r;
	log->phase[log->nphases].t = t;
	log->phase[log->nphases].line = p->line;
	log->phase[log->nphases].offset = p->offset;
	log->phase[log->nphases++].name = p->f[2];
	return 0;
}

static int parse_trigger(struct parser *p)
{
	struct trace_entry *e;
	uint64_t t;
	int r = num(p, 1, "time", TRACE_TIME_MAX, &t);

	if (r == 0)
		r = devpath(p, 2);
	if (r < 0 || !(e = new_entry(p, TRACE_TRIGGER)))
		return -EINVAL;
	e->t = t;
	e->name = p->f[2];
	return 0;
}

static int parse_event(struct parser *p)
{
	struct trace_entry *e;
	uint64_t t, seqnum;
	int r = num(p, 1, "time", TRACE_TIME_MAX, &t);

	if (r == 0)
		r = num(p, 2, "seqnum", UINT64_MAX, &seqnum);
	if (r == 0)
		r = name_field(p, 3, "action", in_set(p->f[3], TRACE_ACTION_MAX - 1, LOWER));
	if (r == 0)
		r = name_field(p, 4, "subsystem", escaped_ok(p->f[4], 4 * TRACE_SUBSYSTEM_MAX));
	if (r == 0)
		r = devpath(p, 5);
	if (r < 0 || !(e = new_entry(p, TRACE_EVENT)))
		return -EINVAL;
	e->t = t;
	e->seqnum = seqnum;
	e->action = p->f[3];
	e->subsystem = p->f[4];
	e->name = p->f[5];
	return 0;
}

/* The index of a handler's name in the log's table, added if new; -1 if full. */
static int handler_index(struct trace_log *log, const char *name)
{
	for (unsigned int i = 0; i < log->nhandlers; i++)
		if (strcmp(log->handler[i], name) == 0)
			return (int)i;
	if (log->nhandlers == TRACE_HANDLERS_MAX)
		return -1;
	snprintf(log->handler[log->nhandlers], TRACE_HANDLER_NAME_MAX, "%s", name);
	return (int)log->nhandlers++;
}

/* "NAME=US" into e->hdur; each name once a line. */
static int handler_field(struct parser *p, unsigned int i, struct trace_entry *e,
			 unsigned int *seen)
{
	char *name = p->f[i], *eq = strchr(name, '=');
	uint64_t us;
	int k, r;

	if (!eq)
		return fail(p, "handler %u: expected NAME=MICROSECONDS", i - 3);
	*eq = '\0';
	r = name_field(p, i, "handler",
		       in_set(name, TRACE_HANDLER_NAME_MAX - 1, LOWER DIGITS "_-"));
	p->f[i] = eq + 1;
	if (r == 0)
		r = num(p, i, "handler time", UINT32_MAX, &us);
	if (r < 0)
		return r;
	k = handler_index(p->log, name);
	if (k < 0)
		return fail(p, "more than %d handler names", TRACE_HANDLERS_MAX);
	if (*seen & (1u << k))
		return fail(p, "handler %s: given twice", name);
	*seen |= 1u << k;
	e->hdur[k] = (uint32_t)us;
	e->dur += us;
	if ((unsigned int)k + 1 > e->nh)
		e->nh = (uint8_t)(k + 1);
	return 0;
}

static int parse_handled(struct parser *p)
{
	struct trace_entry *e;
	uint64_t t, seqnum;
	unsigned int seen = 0;
	int r = num(p, 1, "time", TRACE_TIME_MAX, &t);

	if (r == 0)
		r = num(p, 2, "seqnum", UINT64_MAX, &seqnum);
	if (r == 0)
		r = name_field(p, 3, "thread",
			       strcmp(p->f[3], "main") == 0 || strcmp(p->f[3], "worker") == 0);
	if (r < 0 || !(e = new_entry(p, TRACE_HANDLED)))
		return -EINVAL;
	e->t = t;
	e->seqnum = seqnum;
	e->worker = p->f[3][0] == 'w';
	for (unsigned int i = 4; i < p->nf; i++) {
		r = handler_field(p, i, e, &seen);
		if (r < 0)
			return r;
	}
	return 0;
}

/* loaded, blacklisted, already, no-device, error:ERRNO */
static int module_result(const char *s, int *result)
{
	uint64_t v;

	if (strcmp(s, "loaded") == 0)
		*result = 0;
	else if (strcmp(s, "blacklisted") == 0)
		*result = 1;
	else if (strcmp(s, "already") == 0)
		*result = -EEXIST;
	else if (strcmp(s, "no-device") == 0)
		*result = -ENODEV;
	else if (strncmp(s, "error:", 6) == 0 && number_parse_str(s + 6, 4095, &v) == 0 && v > 0)
		*result = -(int)v;
	else
		return -EINVAL;
	return 0;
}

static int parse_module(struct parser *p)
{
	struct trace_entry *e;
	uint64_t t, dur, seqnum;
	int result = 0, r = num(p, 1, "time", TRACE_TIME_MAX, &t);

	if (r == 0)
		r = num(p, 2, "duration", UINT32_MAX, &dur);
	if (r == 0)
		r = num(p, 3, "seqnum", UINT64_MAX, &seqnum);
	if (r == 0)
		r = name_field(p, 4, "result", module_result(p->f[4], &result) == 0);
	if (r == 0)
		r = name_field(p, 5, "module",
			       in_set(p->f[5], TRACE_MODULE_MAX - 1,
				      LOWER DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-"));
	if (r < 0 || !(e = new_entry(p, TRACE_MODULE)))
		return -EINVAL;
	e->t = t;
	e->dur = dur;
	e->seqnum = seqnum;
	e->result = result;
	e->name = p->f[5];
	return 0;
}

static int parse_end(struct parser *p)
{
	p->ended = true;
	return num(p, 1, "end", TRACE_TIME_MAX, &p->log->end);
}

static const struct {
	const char *word;
	unsigned int min, max; /* fields, the word included */
	int (*parse)(struct parser *p);
} kinds[] = {
	{ "trigger", 3, 3, parse_trigger },
	{ "event", 6, 6, parse_event },
	{ "handled", 4, FIELDS_MAX, parse_handled },
	{ "module", 6, 6, parse_module },
	{ "phase", 3, 3, parse_phase },
	{ "start_monotonic_us", 2, 2, parse_header },
	{ "capacity", 2, 2, parse_header },
	{ "dropped", 2, 2, parse_header },
	{ "marks_dropped", 2, 2, parse_header },
	{ "log_dropped", 2, 2, parse_header },
	{ "end", 2, 2, parse_end },
};

/* ---- lines ---- */

/* Printable ASCII only; fields split at single blanks. */
static int split(struct parser *p, char *s, size_t len)
{
	p->nf = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e)
			return fail(p, "byte 0x%02x at column %zu", c, i + 1);
	}
	for (char *f = s;; f++) {
		char *sp = strchr(f, ' ');

		if (p->nf == FIELDS_MAX)
			return fail(p, "more than %d fields", FIELDS_MAX);
		if (sp == f || *f == '\0')
			return fail(p,
				    "an empty field (two blanks, or a blank at the start or end)");
		p->f[p->nf++] = f;
		if (!sp)
			return 0;
		*sp = '\0';
		f = sp;
	}
}

static int parse_first(struct parser *p, char *s)
{
	char q[80];

	if (strncmp(s, "initdev-trace ", 14) != 0)
		return fail(p, "not an initdev trace: the first line is '%s'",
			    quote(s, q, sizeof(q)));
	if (strcmp(s + 14, "1") != 0)
		return fail(p, "version '%s': this initdev reads version %d",
			    quote(s + 14, q, sizeof(q)), TRACE_FILE_VERSION);
	p->log->version = TRACE_FILE_VERSION;
	return 0;
}

static int parse_line(struct parser *p, char *s, size_t len)
{
	char q[80];
	int r;

	if (p->line == 1)
		return parse_first(p, s);
	if (len == 0 || s[0] == '#')
		return 0; /* blank lines and comments: for whoever edits it */
	if (p->ended)
		return fail(p, "a record after the 'end' line");
	r = split(p, s, len);
	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(p->f[0], kinds[i].word) != 0)
			continue;
		if (p->nf < kinds[i].min || p->nf > kinds[i].max)
			return fail(p, "%s: %u fields, expected %u%s", kinds[i].word, p->nf,
				    kinds[i].min, kinds[i].max > kinds[i].min ? " or more" : "");
		return kinds[i].parse(p);
	}
	return fail(p, "unknown record '%s'", quote(p->f[0], q, sizeof(q)));
}

/* After the last line: the file is whole, and every time inside it. */
static int check_whole(struct parser *p, size_t len)
{
	const struct trace_log *log = p->log;
	const unsigned int needed = HDR_START | HDR_CAPACITY | HDR_DROPPED;

	if (!p->ended) {
		p->line++; /* where it should be */
		p->offset = len;
		return fail(p, "no 'end' line: the file is cut short");
	}
	p->line = 0; /* about the file as a whole */
	if ((p->seen & needed) != needed)
		return fail(p, "a header line is missing (start_monotonic_us, capacity, dropped)");
	for (unsigned int i = 0; i < log->nphases; i++) {
		if (log->phase[i].t <= log->end)
			continue;
		p->line = log->phase[i].line;
		p->offset = log->phase[i].offset;
		return fail(p, "phase %s at %llu us, after the trace's end (%llu us)",
			    log->phase[i].name, (unsigned long long)log->phase[i].t,
			    (unsigned long long)log->end);
	}
	for (size_t i = 0; i < log->n; i++) {
		const struct trace_entry *e = &log->e[i];

		if (e->t > log->end || e->dur > log->end - e->t) {
			p->line = e->line;
			p->offset = e->offset;
			return fail(p, "%llu us + %llu us ends after the trace's end (%llu us)",
				    (unsigned long long)e->t, (unsigned long long)e->dur,
				    (unsigned long long)log->end);
		}
	}
	return 0;
}

static int parse_lines(struct parser *p, char *buf, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		char *nl = memchr(buf + pos, '\n', len - pos);
		size_t linelen = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		int r;

		p->line++;
		p->offset = pos;
		if (linelen > TRACE_LINE_MAX)
			return fail(p, "longer than %d bytes", TRACE_LINE_MAX);
		if (!nl)
			return fail(p, "the file ends inside this line: it is cut short");
		*nl = '\0';
		r = parse_line(p, buf + pos, linelen);
		if (r < 0)
			return r;
		pos += linelen + 1;
	}
	if (p->line == 0)
		return fail(p, "an empty file: not an initdev trace");
	return check_whole(p, len);
}

/* Parse buf[0..len) (buf[len] is writable), which the log then owns. */
static int parse_owned(struct trace_log *log, char *buf, size_t len, struct trace_error *err)
{
	struct parser p = { .log = log, .err = err };
	int r;

	memset(log, 0, sizeof(*log));
	memset(err, 0, sizeof(*err));
	log->buf = buf;
	buf[len] = '\0';
	r = len > TRACE_FILE_MAX ? fail(&p, "larger than %u bytes", TRACE_FILE_MAX)
				 : parse_lines(&p, buf, len);
	if (r < 0)
		trace_log_free(log);
	return r;
}

int trace_log_parse(struct trace_log *log, const char *data, size_t len, struct trace_error *err)
{
	char *buf = malloc(len + 1);

	memset(log, 0, sizeof(*log));
	memset(err, 0, sizeof(*err));
	if (!buf)
		return -ENOMEM;
	memcpy(buf, data, len);
	return parse_owned(log, buf, len, err);
}

void trace_log_free(struct trace_log *log)
{
	free(log->buf);
	free(log->e);
	memset(log, 0, sizeof(*log));
}

/* The whole file into *buf (malloc'd, one byte spare); -EFBIG above the limit. */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 0;

	*buf = NULL;
	*len = 0;
	for (;;) {
		ssize_t n;

		if (*len == cap) {
			char *b = cap > TRACE_FILE_MAX ? NULL : realloc(*buf, cap * 2 + 65536 + 1);

			if (!b)
				return cap > TRACE_FILE_MAX ? -EFBIG : -ENOMEM;
			*buf = b;
			cap = cap * 2 + 65536;
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		*len += (size_t)n;
	}
}

int trace_log_load(struct trace_log *log, const char *path, struct trace_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	char *buf;
	size_t len;
	int r;

	memset(log, 0, sizeof(*log));
	memset(err, 0, sizeof(*err));
	if (fd < 0)
		return -errno;
	r = read_all(fd, &buf, &len);
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	return parse_owned(log, buf, len, err);
}
