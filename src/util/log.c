/* SPDX-License-Identifier: MIT */
#include "util/log.h"

#include "util/number.h"
#include "util/oneline.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static const char *const level_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

static bool in_initramfs(void)
{
	return access("/etc/initrd-release", F_OK) == 0;
}

bool log_kmsg_limited(const char *devkmsg)
{
	static const char *const unlimited[] = { "on", "on\n", "off", "off\n" };

	for (size_t i = 0; devkmsg && i < sizeof(unlimited) / sizeof(unlimited[0]); i++)
		if (strcmp(devkmsg, unlimited[i]) == 0)
			return false;
	return true;
}

/* /proc/sys/kernel/printk_devkmsg's first line into buf, or NULL. */
static const char *read_devkmsg(char *buf, size_t size)
{
	int fd = open("/proc/sys/kernel/printk_devkmsg", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

void log_init(struct logger *log, enum log_target target, int max_level)
{
	char devkmsg[32];

	log->fd = STDERR_FILENO;
	log->kmsg = false;
	log->max_level = max_level;
	log->ident = "initdev";
	log->echo_fd = -1;
	log->limit_store = (struct log_limit){
		.rl = RATELIMIT_INIT(LOG_KMSG_INTERVAL_USEC, LOG_KMSG_BURST),
	};
	pthread_mutex_init(&log->limit_store.lock, NULL);
	log->limit = &log->limit_store;
	if (target == LOG_TARGET_KMSG ||
	    (target == LOG_TARGET_AUTO && in_initramfs())) {
		int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

		if (fd >= 0) {
			log->fd = fd;
			log->kmsg = true;
			log->limit->on = log_kmsg_limited(read_devkmsg(devkmsg, sizeof(devkmsg)));
		}
	}
}

uint64_t log_dropped(const struct logger *log)
{
	return log->limit ? atomic_load(&log->limit->dropped) : 0;
}

/*
 * May a line of priority prio go to /dev/kmsg now (log_limit)? Called with
 * the lock held. *report: the lines dropped in the window that just
 * closed, for a line saying so (it takes one of the new window's lines).
 */
static bool limit_take(struct log_limit *l, int prio, uint64_t *report)
{
	uint64_t now = now_monotonic_usec();
	unsigned int cap = prio <= LOG_WARNING ? LOG_KMSG_BURST
					      : LOG_KMSG_BURST - LOG_KMSG_RESERVED;

	if (ratelimit_allow_upto(&l->rl, now, cap, report)) {
		/* the note about the last window takes a line of this one */
		if (*report && !ratelimit_allow(&l->rl, now, NULL))
			*report = 0;
		return true;
	}
	atomic_fetch_add(&l->dropped, 1);
	return false;
}

/* One record to the log's fd, within /dev/kmsg's rate limit. */
static void emit(const struct logger *log, int prio, const char *line, size_t n)
{
	struct log_limit *l = log->limit;
	uint64_t report = 0;
	bool ok = true;

	if (!l || !l->on) {
		if (write(log->fd, line, n) < 0 && log->kmsg)
			(void)write(STDERR_FILENO, line, n);
		return;
	}
	pthread_mutex_lock(&l->lock);
	ok = limit_take(l, prio, &report);
	if (report) {
		char note[160];
		int k = snprintf(note, sizeof(note),
				 "<%d>%s[%d]: %llu log lines were not written (/dev/kmsg's rate "
				 "limit: %d lines per 5 s; initdev status counts them)\n",
				 LOG_WARNING, log->ident, (int)getpid(),
				 (unsigned long long)report, LOG_KMSG_BURST);

		if (k > 0 && (size_t)k < sizeof(note))
			(void)write(log->fd, note, (size_t)k);
	}
	/* one write per line: kmsg takes one record per write */
	if (ok && write(log->fd, line, n) < 0)
		(void)write(STDERR_FILENO, line, n);
	pthread_mutex_unlock(&l->lock);
}

void log_close(struct logger *log)
{
	if (log->kmsg)
		close(log->fd);
	log->fd = STDERR_FILENO;
	log->kmsg = false;
	if (log->limit)
		log->limit->on = false;
}

void log_vmsg(const struct logger *log, int prio, const char *fmt, va_list ap)
{
	char line[1024];
	int n, head;

	if (prio > log->max_level)
		return;
	if (log->kmsg)
		head = snprintf(line, sizeof(line), "<%d>%s[%d]: ", prio,
				log->ident, (int)getpid());
	else
		head = snprintf(line, sizeof(line), "%s: ", log->ident);
	if (head < 0)
		return;
	vsnprintf(line + head, sizeof(line) - (size_t)head, fmt, ap);
	/* one record, one line: outside bytes come escaped, this is the last guard */
	(void)oneline_flatten(line + head);
	n = (int)strlen(line);
	if (n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	emit(log, prio, line, (size_t)n);
	if (log->echo_fd >= 0 && log->echo_fd != log->fd && prio <= LOG_ERR)
		(void)dprintf(log->echo_fd, "%s: %.*s", log->ident, n - head, line + head);
}

const char *errno_text(int err)
{
	const char *d = strerrordesc_np(err < 0 ? -err : err);

	return d ? d : "Unknown error";
}

int log_verrno(const struct logger *log, int prio, int err, const char *fmt, va_list ap)
{
	char what[768];
	int saved = errno;

	vsnprintf(what, sizeof(what), fmt, ap);
	log_msg(log, prio, "%s: %s", what, errno_text(err));
	errno = saved;
	return err < 0 ? err : -err;
}

int log_errno(const struct logger *log, int prio, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = log_verrno(log, prio, err, fmt, ap);
	va_end(ap);
	return err;
}

void log_msg(const struct logger *log, int prio, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_vmsg(log, prio, fmt, ap);
	va_end(ap);
	errno = saved;
}

int log_level_from_name(const char *name)
{
	int v;

	for (int i = 0; i < (int)(sizeof(level_names) / sizeof(level_names[0])); i++)
		if (strcasecmp(name, level_names[i]) == 0)
			return i;
	if (strcasecmp(name, "error") == 0)
		return LOG_ERR;
	if (strcasecmp(name, "warn") == 0)
		return LOG_WARNING;
	return number_parse_int(name, 0, 7, &v) == 0 ? v : -1;
}

bool ratelimit_allow(struct ratelimit *rl, uint64_t now_usec, uint64_t *was_suppressed)
{
	return ratelimit_allow_upto(rl, now_usec, rl->burst, was_suppressed);
}

bool ratelimit_allow_upto(struct ratelimit *rl, uint64_t now_usec, unsigned int cap,
			  uint64_t *was_suppressed)
{
	if (was_suppressed)
		*was_suppressed = 0;
	if (rl->begin == 0 || now_usec - rl->begin >= rl->interval_usec) {
		if (was_suppressed)
			*was_suppressed = rl->suppressed;
		rl->begin = now_usec ? now_usec : 1;
		rl->emitted = 0;
		rl->suppressed = 0;
	}
	if (rl->emitted < cap && rl->emitted < rl->burst) {
		rl->emitted++;
		return true;
	}
	rl->suppressed++;
	return false;
}

uint64_t now_monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
