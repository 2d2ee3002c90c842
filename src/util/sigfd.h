/* SPDX-License-Identifier: MIT */
/*
 * SIGINT and SIGTERM as a file descriptor for poll loops (blocked, read
 * through signalfd).
 */
#pragma once

#include <stdbool.h>

/*
 * The signalfd (CLOEXEC, NONBLOCK), or -errno. ignore_sigpipe: a peer that
 * hangs up is an error return, not a death (servers; not filters like
 * `initdev monitor | head`).
 */
int sigfd_open(bool ignore_sigpipe);
