/* SPDX-License-Identifier: MIT */
#include "util/sigfd.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/signalfd.h>

int sigfd_open(bool server)
{
	sigset_t set;
	int fd;

	/* a shell starts background jobs with SIGINT ignored; signalfd needs it live */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (server) {
		signal(SIGPIPE, SIG_IGN);
		signal(SIGHUP, SIG_DFL);
		sigaddset(&set, SIGHUP);
	}
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}
