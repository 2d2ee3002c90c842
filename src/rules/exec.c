/* SPDX-License-Identifier: MIT */
#include "rules/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define BLANKS " \t\n\r"

int exec_split(const char *cmd, char *buf, size_t size, char **argv, size_t max)
{
	const char *p = cmd;
	size_t w = 0;
	int n = 0;

	for (;;) {
		char quote = 0;

		p += strspn(p, BLANKS);
		if (!*p)
			break;
		if ((size_t)n + 1 >= max)
			return -E2BIG;
		argv[n++] = buf + w;
		for (; *p; p++) {
			if (quote) {
				if (*p == quote) {
					quote = 0;
					continue;
				}
			} else if (*p == '\'' || *p == '"') {
				quote = *p;
				continue;
			} else if (strchr(BLANKS, *p)) {
				break;
			}
			if (w + 1 >= size)
				return -E2BIG;
			buf[w++] = *p;
		}
		if (w + 1 > size)
			return -E2BIG;
		buf[w++] = '\0';
	}
	argv[n] = NULL;
	return n;
}

/* In the child: only async-signal-safe calls from here on. */
static void child(char *const argv[], char *const envp[], int out, int err, int report, long maxfd)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int e;

	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out >= 0 ? out : null, 1) < 0 ||
	    dup2(err >= 0 ? err : null, 2) < 0 || (report != 3 && dup3(report, 3, O_CLOEXEC) < 0))
		goto fail;
	if (syscall(SYS_close_range, 4U, ~0U, 0U) < 0)
		for (long fd = 4; fd < maxfd; fd++)
			close((int)fd);
	execve(argv[0], argv, envp);
fail:
	e = errno;
	(void)!write(3, &e, sizeof(e));
	_exit(127);
}

struct reader {
	int fd;
	char *buf;
	size_t size, len;
	bool truncated;
};

/* Read what is there; false at EOF or error. */
static bool drain(struct reader *r)
{
	char scratch[4096];

	for (;;) {
		bool room = r->buf && r->len + 1 < r->size;
		ssize_t n = room ? read(r->fd, r->buf + r->len, r->size - 1 - r->len)
				 : read(r->fd, scratch, sizeof(scratch));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN;
		if (n == 0)
			return false;
		if (room)
			r->len += (size_t)n;
		else if (r->buf)
			r->truncated = true;
		if (r->buf)
			r->buf[r->len] = '\0';
	}
}

static int poll_ms(uint64_t deadline)
{
	uint64_t now = now_monotonic_usec();

	if (!deadline)
		return 100;
	if (now >= deadline)
		return 0;
	return (deadline - now) / 1000 > 100 ? 100 : (int)((deadline - now) / 1000) + 1;
}

/* Wait for pid while reading its pipes; fills st. */
static void wait_child(pid_t pid, struct reader *rd, const struct exec_opts *o,
		       struct exec_status *st)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int status = 0;

	for (;;) {
		struct pollfd p[3] = { { rd[0].fd, POLLIN, 0 },
				       { rd[1].fd, POLLIN, 0 },
				       { pidfd, POLLIN, 0 } };
		pid_t w;

		if (o->deadline_usec && now_monotonic_usec() >= o->deadline_usec) {
			kill(pid, SIGKILL);
			st->timed_out = true;
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		/* without a pidfd (before 5.3) the exit is noticed by polling */
		if (poll(p, 3, pidfd >= 0 ? poll_ms(o->deadline_usec) : 5) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++)
			if (rd[i].fd >= 0 && (p[i].revents & (POLLIN | POLLHUP)) &&
			    !drain(&rd[i])) {
				close(rd[i].fd);
				rd[i].fd = -1;
			}
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno == ECHILD))
			break;
	}
	for (int i = 0; i < 2; i++)
		if (rd[i].fd >= 0) {
			drain(&rd[i]);
			close(rd[i].fd);
			rd[i].fd = -1;
		}
	if (pidfd >= 0)
		close(pidfd);
	if (!st->timed_out && WIFEXITED(status))
		st->exit_code = WEXITSTATUS(status);
	else if (!st->timed_out && WIFSIGNALED(status))
		st->signal = WTERMSIG(status);
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

int exec_run(char *const argv[], char *const envp[], const struct exec_opts *o,
	     struct exec_status *st)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, rep[2] = { -1, -1 }, e = 0;
	long maxfd = sysconf(_SC_OPEN_MAX);
	struct reader rd[2];
	pid_t pid;

	*st = (struct exec_status){ 0 };
	if ((o->out && pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0) ||
	    pipe2(err, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(rep, O_CLOEXEC) < 0) {
		e = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		e = -errno;
		goto out;
	}
	if (pid == 0)
		child(argv, envp, out[1], err[1], rep[1],
		      maxfd > 0 && maxfd < 65536 ? maxfd : 65536);
	close(out[1]);
	close(err[1]);
	close(rep[1]);
	out[1] = err[1] = rep[1] = -1;
	rd[0] = (struct reader){ .fd = out[0], .buf = o->out, .size = o->out_size };
	rd[1] = (struct reader){ .fd = err[0], .buf = o->err, .size = o->err_size };
	if (o->out && o->out_size)
		o->out[0] = '\0';
	if (o->err && o->err_size)
		o->err[0] = '\0';
	out[0] = err[0] = -1;
	wait_child(pid, rd, o, st);
	st->out_len = rd[0].len;
	st->truncated = rd[0].truncated;
	if (read(rep[0], &e, sizeof(e)) == (ssize_t)sizeof(e) && e > 0)
		e = -e;
	else
		e = 0;
out:
	close_pair(out);
	close_pair(err);
	close_pair(rep);
	return e;
}
