/* SPDX-License-Identifier: MIT */
/* sd_notify's protocol against a real receiver, as PID 1 reads it (SO_PASSCRED). */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/notify.h"

/* A receiver like PID 1's: datagrams, credentials on. name: "/path" or "@abstract". */
static int receiver(const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), on = 1;

	ATF_REQUIRE(fd >= 0);
	memcpy(a.sun_path, name, len);
	if (name[0] == '@')
		a.sun_path[0] = '\0';
	ATF_REQUIRE_EQ(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)), 0);
	ATF_REQUIRE_EQ(bind(fd, (struct sockaddr *)&a,
			    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)), 0);
	return fd;
}

/* One datagram and the pid the kernel says sent it. */
static void receive(int fd, char *buf, size_t size, pid_t *pid)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(struct ucred))];
	} cm;
	struct iovec iov = { buf, size - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			     .msg_controllen = sizeof(cm.b) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	ATF_REQUIRE(n >= 0);
	buf[n] = '\0';
	*pid = 0;
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_CREDENTIALS)
		*pid = ((struct ucred *)CMSG_DATA(c))->pid;
}

/* A child notifies: the receiver must see the child's pid, not ours. */
static void child_notifies(const char *name)
{
	char buf[256];
	pid_t child, from;
	int fd = receiver(name), st;

	child = fork();
	ATF_REQUIRE(child >= 0);
	if (child == 0) {
		struct notifier n;
		const char *why;

		setenv("NOTIFY_SOCKET", name, 1);
		if (notify_init_env(&n, &why) < 0 || getenv("NOTIFY_SOCKET"))
			_exit(2);
		_exit(notify_send(&n, "READY=1") == 0 &&
		      notify_status(&n, NULL, "Settled: %d events\nhandled", 3) == 0 ? 0 : 1);
	}
	ATF_REQUIRE_EQ(waitpid(child, &st, 0), child);
	ATF_REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	receive(fd, buf, sizeof(buf), &from);
	ATF_CHECK_STREQ(buf, "READY=1");
	ATF_CHECK_EQ(from, child);
	receive(fd, buf, sizeof(buf), &from);
	/* a status is one line: a line break would make a field of its own */
	ATF_CHECK_STREQ(buf, "STATUS=Settled: 3 events handled");
	close(fd);
}

ATF_TC_WITHOUT_HEAD(path_socket_gets_sender_pid);
ATF_TC_BODY(path_socket_gets_sender_pid, tc)
{
	char path[256];

	ATF_REQUIRE(getcwd(path, sizeof(path) - 16));
	strcat(path, "/notify");
	child_notifies(path);
}

ATF_TC_WITHOUT_HEAD(abstract_socket_gets_sender_pid);
ATF_TC_BODY(abstract_socket_gets_sender_pid, tc)
{
	char name[64];

	snprintf(name, sizeof(name), "@initdev-notify-test-%d", (int)getpid());
	child_notifies(name);
}

ATF_TC_WITHOUT_HEAD(no_socket_is_silent);
ATF_TC_BODY(no_socket_is_silent, tc)
{
	struct notifier n;
	const char *why;

	ATF_REQUIRE_EQ(notify_init(&n, NULL, "1000000", NULL, 1, &why), 0);
	ATF_CHECK_EQ(n.fd, -1);
	ATF_CHECK_EQ(n.watchdog_usec, 0); /* no manager: no one to ping */
	ATF_CHECK_EQ(notify_send(&n, "READY=1"), 0);
	ATF_CHECK_EQ(notify_watchdog_next(&n, 5), 0);
}

ATF_TC_WITHOUT_HEAD(watchdog_for_us_only);
ATF_TC_BODY(watchdog_for_us_only, tc)
{
	struct notifier n;
	const char *why;

	ATF_REQUIRE_EQ(notify_init(&n, "@x", "3000000", "42", 42, &why), 0);
	ATF_CHECK_EQ(n.watchdog_usec, 3000000);
	ATF_CHECK_EQ(notify_watchdog_next(&n, 100), 1500100); /* half the interval */
	notify_close(&n);
	ATF_REQUIRE_EQ(notify_init(&n, "@x", "3000000", NULL, 42, &why), 0);
	ATF_CHECK_EQ(n.watchdog_usec, 3000000);
	notify_close(&n);
	/* WATCHDOG_PID of another process: not ours to ping */
	ATF_REQUIRE_EQ(notify_init(&n, "@x", "3000000", "43", 42, &why), 0);
	ATF_CHECK_EQ(n.watchdog_usec, 0);
	notify_close(&n);
}

ATF_TC_WITHOUT_HEAD(malformed_values_refused);
ATF_TC_BODY(malformed_values_refused, tc)
{
	static const char *const sockets[] = { "relative", "@", "/", "x/y" };
	static const char *const usecs[] = { "0", "-1", "12x", " 5", "", "99999999999999999999" };
	char longname[200];
	struct notifier n;
	const char *why;

	for (size_t i = 0; i < sizeof(sockets) / sizeof(sockets[0]); i++) {
		ATF_CHECK_EQ(notify_init(&n, sockets[i], NULL, NULL, 1, &why), -EINVAL);
		ATF_CHECK(why != NULL);
		ATF_CHECK_EQ(n.fd, -1);
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	ATF_CHECK_EQ(notify_init(&n, longname, NULL, NULL, 1, &why), -EINVAL);
	ATF_CHECK_EQ(n.fd, -1);
	for (size_t i = 0; i < sizeof(usecs) / sizeof(usecs[0]); i++) {
		ATF_CHECK_EQ(notify_init(&n, "@x", usecs[i], NULL, 1, &why), -EINVAL);
		ATF_CHECK_EQ(n.fd, -1);
		ATF_CHECK_EQ(n.watchdog_usec, 0);
	}
	ATF_CHECK_EQ(notify_init(&n, "@x", "1000", "pid", 1, &why), -EINVAL);
	ATF_CHECK_EQ(n.fd, -1);
}

ATF_TC_WITHOUT_HEAD(receiver_gone_is_an_error);
ATF_TC_BODY(receiver_gone_is_an_error, tc)
{
	struct notifier n;
	const char *why;
	char path[256];

	ATF_REQUIRE(getcwd(path, sizeof(path) - 16));
	strcat(path, "/none");
	ATF_REQUIRE_EQ(notify_init(&n, path, NULL, NULL, 1, &why), 0);
	ATF_CHECK_EQ(notify_send(&n, "READY=1"), -ENOENT);
	notify_close(&n);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, path_socket_gets_sender_pid);
	ATF_TP_ADD_TC(tp, abstract_socket_gets_sender_pid);
	ATF_TP_ADD_TC(tp, no_socket_is_silent);
	ATF_TP_ADD_TC(tp, watchdog_for_us_only);
	ATF_TP_ADD_TC(tp, malformed_values_refused);
	ATF_TP_ADD_TC(tp, receiver_gone_is_an_error);
	return atf_no_error();
}
