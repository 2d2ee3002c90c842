/* SPDX-License-Identifier: MIT */
/* The trace file: the writer here, the reader in trace-parse.c. */
#include "util/trace-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

struct out {
	int fd;
	int err; /* the first write error */
	const struct trace *t;
	size_t len;
	char buf[65536];
};

static void flush(struct out *o)
{
	size_t done = 0;

	while (done < o->len && o->err == 0) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->err = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	o->len = 0;
}

/* Room for one line of any record (names escaped: 4 bytes a byte at most). */
#define LINE_ROOM (4 * TRACE_DEVPATH_MAX + 512)

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sizeof(o->buf) - o->len < LINE_ROOM)
		flush(o);
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n < sizeof(o->buf) - o->len ? (size_t)n : 0;
}

/* " NAME", escaped: no blank, no control byte, no backslash but \xNN. */
static void put_name(struct out *o, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = strnlen(s, max);
	char *p;

	if (sizeof(o->buf) - o->len < LINE_ROOM)
		flush(o);
	p = o->buf + o->len;
	*p++ = ' ';
	if (len == 0)
		*p++ = '-'; /* never an empty field */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c > 0x20 && c < 0x7f && c != '\\') {
			*p++ = (char)c;
			continue;
		}
		*p++ = '\\';
		*p++ = 'x';
		*p++ = hex[c >> 4];
		*p++ = hex[c & 15];
	}
	o->len = (size_t)(p - o->buf);
}

const char *trace_module_result(int result, char buf[TRACE_RESULT_MAX])
{
	if (result == 0)
		return "loaded";
	if (result > 0)
		return "blacklisted";
	if (result == -EEXIST)
		return "already";
	if (result == -ENOENT || result == -ENODEV)
		return "no-device";
	snprintf(buf, TRACE_RESULT_MAX, "error:%d", result == INT_MIN ? 0 : -result);
	return buf;
}

static void put_handled(struct out *o, const struct trace *t, const struct trace_rec *r)
{
	unsigned int n = r->nhandlers <= TRACE_HANDLERS_MAX ? r->nhandlers : TRACE_HANDLERS_MAX;

	put(o, "handled %llu %llu %s", (unsigned long long)r->t, (unsigned long long)r->seqnum,
	    r->flags & TRACE_WORKER ? "worker" : "main");
	for (unsigned int i = 0; i < n; i++) {
		char name[TRACE_HANDLER_NAME_MAX + 8];

		if (i < t->nhandlers && t->handler[i][0])
			snprintf(name, sizeof(name), "%s", t->handler[i]);
		else
			snprintf(name, sizeof(name), "handler%u", i);
		put_name(o, name, sizeof(name));
		put(o, "=%u", r->u.hdur[i]);
	}
	put(o, "\n");
}

static void put_record(void *u, const struct trace_rec *r)
{
	struct out *o = u;
	char result[TRACE_RESULT_MAX];

	switch (r->kind) {
	case TRACE_TRIGGER: put(o, "trigger %llu", (unsigned long long)r->t); break;
	case TRACE_EVENT:
		put(o, "event %llu %llu", (unsigned long long)r->t, (unsigned long long)r->seqnum);
		put_name(o, r->u.dev.action, sizeof(r->u.dev.action));
		put_name(o, r->u.dev.subsystem, sizeof(r->u.dev.subsystem));
		break;
	case TRACE_HANDLED: put_handled(o, o->t, r); return;
	case TRACE_MODULE:
		put(o, "module %llu %u %llu %s", (unsigned long long)r->t, r->dur,
		    (unsigned long long)r->seqnum, trace_module_result(r->result, result));
		put_name(o, r->u.module, sizeof(r->u.module));
		put(o, "\n");
		return;
	default: return; /* a torn record (trace.c): left out */
	}
	put_name(o, r->u.dev.devpath, sizeof(r->u.dev.devpath));
	put(o, "\n");
}

int trace_file_write(const struct trace *t, int fd)
{
	struct out *o = malloc(sizeof(*o)); /* 64 KiB: not on the stack */
	struct trace_totals tot;
	int r;

	if (!o)
		return -ENOMEM;
	o->fd = fd;
	o->err = 0;
	o->t = t;
	o->len = 0;
	put(o, "initdev-trace %d\n", TRACE_FILE_VERSION);
	put(o, "start_monotonic_us %llu\ncapacity %zu\n", (unsigned long long)t->start, t->cap);
	for (unsigned int i = 0; i < t->nmarks; i++) {
		put(o, "phase %llu", (unsigned long long)t->marks[i].t);
		put_name(o, t->marks[i].name, TRACE_HANDLER_NAME_MAX);
		put(o, "\n");
	}
	trace_foreach(t, put_record, o, &tot);
	put(o, "dropped %llu\nmarks_dropped %llu\nlog_dropped %llu\n",
	    (unsigned long long)tot.dropped, (unsigned long long)t->marks_dropped,
	    (unsigned long long)t->log_dropped);
	/* taken last: every record above is older */
	put(o, "end %llu\n", (unsigned long long)trace_now(t));
	flush(o);
	r = o->err;
	free(o);
	return r;
}

int trace_file_save(const struct trace *t, const char *dir)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd, r;

	if ((size_t)snprintf(path, sizeof(path), "%s/" TRACE_FILE_NAME, dir) >= sizeof(path) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.new", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	r = trace_file_write(t, fd);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		(void)unlink(tmp);
	return r;
}
