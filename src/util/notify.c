/* SPDX-License-Identifier: MIT */
#include "util/notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/number.h"

/* systemd refuses watchdog intervals it cannot represent; a year is plenty */
#define WATCHDOG_USEC_MAX (366ull * 24 * 3600 * 1000000)

/* NOTIFY_SOCKET into an address: "/path" or "@abstract". */
static int parse_address(struct notifier *n, const char *s, const char **why)
{
	size_t len = strlen(s);

	memset(&n->addr, 0, sizeof(n->addr));
	n->addr.sun_family = AF_UNIX;
	if ((s[0] != '/' && s[0] != '@') || len < 2) {
		*why = "NOTIFY_SOCKET is neither an absolute path nor an abstract (@) name";
		return -EINVAL;
	}
	if (len > sizeof(n->addr.sun_path) || (s[0] == '/' && len == sizeof(n->addr.sun_path))) {
		*why = "NOTIFY_SOCKET is too long for a socket address";
		return -EINVAL;
	}
	memcpy(n->addr.sun_path, s, len);
	if (s[0] == '@')
		n->addr.sun_path[0] = '\0'; /* abstract: no terminating NUL counted */
	n->addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (s[0] == '/'));
	return 0;
}

/* WATCHDOG_USEC, if WATCHDOG_PID is absent or ours. */
static int parse_watchdog(struct notifier *n, const char *usec, const char *pid, pid_t self,
			  const char **why)
{
	uint64_t v;
	int p;

	if (!usec)
		return 0;
	if (pid) {
		if (number_parse_int(pid, 1, INT32_MAX, &p) < 0) {
			*why = "WATCHDOG_PID is not a pid";
			return -EINVAL;
		}
		if (p != (int)self)
			return 0; /* meant for another process: not ours to ping */
	}
	if (number_parse_str(usec, WATCHDOG_USEC_MAX, &v) < 0 || v == 0) {
		*why = "WATCHDOG_USEC is not a positive number of microseconds";
		return -EINVAL;
	}
	n->watchdog_usec = v;
	return 0;
}

int notify_init(struct notifier *n, const char *socket_name, const char *wd_usec,
		const char *wd_pid, pid_t self, const char **why)
{
	int r;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	*why = NULL;
	if (!socket_name || !socket_name[0])
		return 0; /* no manager: the watchdog has no one to tell either */
	r = parse_address(n, socket_name, why);
	if (r == 0)
		r = parse_watchdog(n, wd_usec, wd_pid, self, why);
	if (r < 0) {
		n->watchdog_usec = 0;
		return r;
	}
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (n->fd < 0) {
		r = -errno;
		*why = "cannot create a datagram socket";
		n->watchdog_usec = 0;
	}
	return r;
}

int notify_init_env(struct notifier *n, const char **why)
{
	int r = notify_init(n, getenv("NOTIFY_SOCKET"), getenv("WATCHDOG_USEC"),
			    getenv("WATCHDOG_PID"), getpid(), why);

	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	return r;
}

int notify_send(const struct notifier *n, const char *msg)
{
	ssize_t w;

	if (n->fd < 0)
		return 0;
	do {
		w = sendto(n->fd, msg, strlen(msg), MSG_NOSIGNAL, (const struct sockaddr *)&n->addr,
			   n->addr_len);
	} while (w < 0 && errno == EINTR);
	return w < 0 ? -errno : 0;
}

int notify_status(const struct notifier *n, const char *pre, const char *fmt, ...)
{
	char msg[NOTIFY_MSG_MAX];
	int len;
	va_list ap;

	if (n->fd < 0)
		return 0;
	len = snprintf(msg, sizeof(msg), "%s%sSTATUS=", pre ? pre : "", pre ? "\n" : "");
	if (len < 0 || (size_t)len >= sizeof(msg))
		return -EINVAL;
	va_start(ap, fmt);
	(void)vsnprintf(msg + len, sizeof(msg) - (size_t)len, fmt, ap); /* cut: still a status */
	va_end(ap);
	/* a line break would start a field of its own: a status is one line */
	for (char *p = msg + len; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return notify_send(n, msg);
}

uint64_t notify_watchdog_next(const struct notifier *n, uint64_t now)
{
	return n->watchdog_usec ? now + n->watchdog_usec / 2 : 0;
}

void notify_close(struct notifier *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	n->watchdog_usec = 0;
}
