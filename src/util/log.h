/* SPDX-License-Identifier: MIT */
/*
 * Logging: to /dev/kmsg with syslog priorities inside an initramfs, to stderr
 * otherwise. There is no global logger; callers pass one explicitly.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

enum log_target {
	LOG_TARGET_AUTO,   /* kmsg in an initramfs (/etc/initrd-release), else stderr */
	LOG_TARGET_STDERR,
	LOG_TARGET_KMSG,
};

struct logger {
	int fd;            /* stderr or /dev/kmsg */
	bool kmsg;
	int max_level;     /* LOG_ERR .. LOG_DEBUG */
	const char *ident; /* "initdev" */
	int echo_fd;       /* >= 0: errors are also written here (a starting
			    * daemon's caller); -1 normally */
};

void log_init(struct logger *log, enum log_target target, int max_level);
void log_close(struct logger *log);

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

/* Allow at most burst messages per interval; count what was suppressed. */
struct ratelimit {
	uint64_t interval_usec;
	unsigned int burst;
	uint64_t begin;
	unsigned int emitted;
	uint64_t suppressed;
};

#define RATELIMIT_INIT(interval, n) { .interval_usec = (interval), .burst = (n) }

/*
 * True if a message may be emitted now. When a new interval starts after
 * suppression, *was_suppressed (if not NULL) receives how many were dropped.
 */
bool ratelimit_allow(struct ratelimit *rl, uint64_t now_usec, uint64_t *was_suppressed);

uint64_t now_monotonic_usec(void);
