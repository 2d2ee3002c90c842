/* SPDX-License-Identifier: MIT */
/* Becoming a background daemon, and the files it keeps in its run directory. */
#include "cli/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/status.h"
#include "util/trace-file.h"

int write_pid_file(const char *run_dir)
{
	char path[PATH_MAX], buf[32];
	int fd, n;

	if ((size_t)snprintf(path, sizeof(path), "%s/pid", run_dir) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (write(fd, buf, (size_t)n) != n)
		n = -1;
	close(fd);
	return n < 0 ? -EIO : 0;
}

void remove_state(const char *run_dir)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/pid", run_dir) < sizeof(path))
		(void)unlink(path);
	if (control_path(run_dir, path, sizeof(path)) == 0)
		(void)unlink(path);
	(void)rmdir(run_dir); /* leave nothing behind; fails harmlessly if not empty */
}

void write_state(struct daemon *d)
{
	char path[PATH_MAX];
	struct engine_stats s;
	size_t len;
	int fd;

	engine_stats(&d->engine, &s);
	len = status_format(&s, true, d->reply, sizeof(d->reply));
	if (len >= sizeof(d->reply) ||
	    (size_t)snprintf(path, sizeof(path), "%s/status.json", d->cli->run) >= sizeof(path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || write(fd, d->reply, len) != (ssize_t)len)
		log_msg(&d->cli->log, LOG_WARNING, "%s: cannot write the state", path);
	if (fd >= 0)
		close(fd);
}

int write_trace(struct daemon *d)
{
	int r;

	d->engine.trace.log_dropped = log_dropped(&d->cli->log);
	r = trace_file_save(&d->engine.trace, d->cli->run);

	if (r < 0)
		log_errno(&d->cli->log, LOG_WARNING, r, "%s/" TRACE_FILE_NAME ": cannot write the trace",
			  d->cli->run);
	return r;
}

bool already_running(const char *run_dir)
{
	int fd = control_connect(run_dir);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * A background daemon must not hold its caller's terminal or pipes open;
 * its messages go to /dev/kmsg from now on.
 */
static void detach_stdio(struct daemon *d)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return;
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	close(null);
	if (!d->cli->log.kmsg)
		log_init(&d->cli->log, LOG_TARGET_KMSG, d->cli->log.max_level);
}

int daemonize(struct daemon *d)
{
	int pfd[2];
	char ok = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid > 0) {
		/* the child's reason for failing, if it fails, is on our stderr */
		close(pfd[1]);
		_exit(read(pfd[0], &ok, 1) == 1 && ok == '1' ? EXIT_OK : EXIT_FAIL);
	}
	close(pfd[0]);
	d->ready_fd = pfd[1];
	(void)setsid();
	d->caller_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	detach_stdio(d);
	d->cli->log.echo_fd = d->caller_fd;
	return 0;
}

void signal_ready(struct daemon *d)
{
	d->cli->log.echo_fd = -1;
	if (d->caller_fd >= 0)
		close(d->caller_fd);
	d->caller_fd = -1;
	if (d->ready_fd < 0)
		return;
	(void)write(d->ready_fd, "1", 1);
	close(d->ready_fd);
	d->ready_fd = -1;
}
