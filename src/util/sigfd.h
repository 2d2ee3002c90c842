/* SPDX-License-Identifier: MIT */
/*
 * SIGINT and SIGTERM (and, for a daemon, SIGHUP) as a file descriptor for
 * poll loops (blocked, read through signalfd).
 */
#pragma once

#include <stdbool.h>

/*
 * The signalfd (CLOEXEC, NONBLOCK), or -errno. server: a peer that hangs
 * up is an error return, not a death (SIGPIPE ignored), and SIGHUP is read
 * too, not a death (a reload: systemd 257's Type=notify-reload sends it);
 * not for filters like `initdev monitor | head`.
 */
int sigfd_open(bool server);
