/* SPDX-License-Identifier: MIT */
/*
 * Logging: to /dev/kmsg with syslog priorities inside an initramfs, to stderr
 * otherwise. There is no global logger; callers pass one explicitly.
 */
#pragma once

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

enum log_target {
	LOG_TARGET_AUTO,   /* kmsg in an initramfs (/etc/initrd-release), else stderr */
	LOG_TARGET_STDERR,
	LOG_TARGET_KMSG,
};

/*
 * /dev/kmsg's rate limit (printk.devkmsg=ratelimit, the kernel's default):
 * per open file, 10 lines per 5 s; the kernel drops the rest without a
 * word (the write still succeeds). So the logger keeps the same budget
 * itself, counts what it does not write, and says so when the next window
 * opens: nothing is dropped unseen. Notice, info and debug lines may use
 * 7 of the 10; warnings and errors get the last 3.
 */
#define LOG_KMSG_BURST 10
#define LOG_KMSG_RESERVED 3                   /* of the burst, for warnings and errors */
#define LOG_KMSG_INTERVAL_USEC 5250000u       /* the kernel's 5 s, plus a margin for
					       * jiffies and the time a write takes */

/* Allow at most burst messages per interval; count what was suppressed. */
struct ratelimit {
	uint64_t interval_usec;
	unsigned int burst;
	uint64_t begin;
	unsigned int emitted;
	uint64_t suppressed;
};

#define RATELIMIT_INIT(interval, n) { .interval_usec = (interval), .burst = (n) }

struct log_limit {
	pthread_mutex_t lock; /* one writer at a time: the kernel's limiter
			       * also drops a line when it meets another
			       * writer on the same file */
	bool on;              /* kmsg with printk_devkmsg "ratelimit" */
	struct ratelimit rl;
	_Atomic uint64_t dropped; /* since log_init */
};

struct logger {
	int fd;            /* stderr or /dev/kmsg */
	bool kmsg;
	int max_level;     /* LOG_ERR .. LOG_DEBUG */
	const char *ident; /* "initdev" */
	int echo_fd;       /* >= 0: errors are also written here (a starting
			    * daemon's caller); -1 normally */
	struct log_limit *limit; /* &limit_store: mutable through a const logger */
	struct log_limit limit_store;
};

void log_init(struct logger *log, enum log_target target, int max_level);
void log_close(struct logger *log);

/* Lines not written to /dev/kmsg because of its rate limit (log_limit). */
uint64_t log_dropped(const struct logger *log);

/*
 * The rate limit for this process's writes to /dev/kmsg, from
 * /proc/sys/kernel/printk_devkmsg's text ("on", "off", "ratelimit"; NULL:
 * unreadable, then the kernel's default, ratelimit). True: limit.
 */
bool log_kmsg_limited(const char *devkmsg);

__attribute__((format(printf, 3, 4)))
void log_msg(const struct logger *log, int prio, const char *fmt, ...);
__attribute__((format(printf, 3, 0)))
void log_vmsg(const struct logger *log, int prio, const char *fmt, va_list ap);

/*
 * log_msg with ": <description of err>" appended; err is an errno value,
 * negative or positive. Returns -|err|, for "return log_errno(...)".
 * Thread-safe (no strerror buffer).
 */
__attribute__((format(printf, 4, 5)))
int log_errno(const struct logger *log, int prio, int err, const char *fmt, ...);

__attribute__((format(printf, 4, 0)))
int log_verrno(const struct logger *log, int prio, int err, const char *fmt, va_list ap);

/* The description of an errno value (negative or positive), thread-safe. */
const char *errno_text(int err);

/* "err", "warning", "notice", "info", "debug" or a number 0..7; -1 if bad. */
int log_level_from_name(const char *name);

/*
 * True if a message may be emitted now. When a new interval starts after
 * suppression, *was_suppressed (if not NULL) receives how many were dropped.
 */
bool ratelimit_allow(struct ratelimit *rl, uint64_t now_usec, uint64_t *was_suppressed);
/* The same, for a message that may use only the first cap of the burst. */
bool ratelimit_allow_upto(struct ratelimit *rl, uint64_t now_usec, unsigned int cap,
			  uint64_t *was_suppressed);

uint64_t now_monotonic_usec(void);
