/* SPDX-License-Identifier: MIT */
/*
 * The sockets PID 1 passed (systemd-udevd.service with its two socket
 * units): taken as udevd takes them, per sd_listen_fds. The kernel socket
 * carries the events the kernel sent before this process ran; the gate
 * reads it exactly as it reads its own.
 */
#include "cli/daemon.h"

#include <stdlib.h>
#include <unistd.h>

#include "handoff/listen-fds.h"

/* sd_listen_fds(true): nothing this daemon starts reads them as its own */
static void unset_listen_env(void)
{
	(void)unsetenv("LISTEN_FDS");
	(void)unsetenv("LISTEN_PID");
	(void)unsetenv("LISTEN_FDNAMES");
}

int daemon_take_listen_fds(struct daemon *d)
{
	const struct logger *log = &d->cli->log;
	struct listen_env e;
	struct listen_udevd got;
	int r = listen_env_read(&e);

	unset_listen_env(); /* e.names points into the environment: not used below */
	if (r < 0) {
		log_msg(log, LOG_ERR, "LISTEN_FDS for this process is not a count");
		return EXIT_FAIL;
	}
	r = listen_udevd_take(&e, &got);
	if (r < 0) {
		log_msg(log, LOG_ERR, "LISTEN_FDS: fd %d is refused: %s; the kernel socket "
			"must be NETLINK_KOBJECT_UEVENT bound to group 1 alone "
			"(systemd-udevd-kernel.socket)", got.bad_fd, listen_udevd_why(r));
		return EXIT_FAIL;
	}
	if (got.kernel_fd >= 0)
		d->cfg.uevent_fd = got.kernel_fd;
	d->pid1_control_fd = got.control_fd;
	if (e.n > 0)
		log_msg(log, LOG_INFO, "LISTEN_FDS: kernel socket %s, control socket %s",
			got.kernel_fd >= 0 ? "from PID 1" : "none (opened here)",
			got.control_fd >= 0 ? "from PID 1" : "none");
	return EXIT_OK;
}
