/* SPDX-License-Identifier: MIT */
#include "cli/udev-control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int udev_run_default(const char *run_dir, char *out, size_t size)
{
	const char *slash = strrchr(run_dir, '/');
	int n;

	if (!slash)
		n = snprintf(out, size, "udev");
	else if (slash == run_dir)
		n = snprintf(out, size, "/udev");
	else
		n = snprintf(out, size, "%.*s/udev", (int)(slash - run_dir), run_dir);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static int control_path(const char *udev_run, char *out, size_t size)
{
	int n = snprintf(out, size, "%s/control", udev_run);

	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

bool udev_control_answers(const char *udev_run)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;
	bool up;

	if (control_path(udev_run, sa.sun_path, sizeof(sa.sun_path)) < 0)
		return false;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	up = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return up;
}

int udev_presence_start(struct udev_presence *p, const char *udev_run, const struct logger *log)
{
	struct stat st;
	int fd, r;

	memset(p, 0, sizeof(*p));
	r = control_path(udev_run, p->path, sizeof(p->path));
	if (r == 0 && mkdir(udev_run, 0755) < 0 && errno != EEXIST)
		r = -errno;
	if (r < 0)
		goto fail;
	if (udev_control_answers(udev_run)) {
		log_msg(log, LOG_NOTICE, "%s: a udevd answers there; initdev leaves it alone",
			p->path);
		p->path[0] = '\0';
		return 1;
	}
	/* stale: a crashed initdev's file, or a socket nobody answers on */
	if (unlink(p->path) < 0 && errno != ENOENT) {
		r = -errno;
		goto fail;
	}
	fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	close(fd);
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	return 0;
fail:
	log_errno(log, LOG_WARNING, r, "%s: cannot make it exist: device-mapper tools will "
		  "believe no udev runs and make /dev/mapper nodes themselves (lvm makes none)",
		  p->path[0] ? p->path : udev_run);
	p->path[0] = '\0';
	return r;
}

void udev_presence_stop(struct udev_presence *p)
{
	struct stat st;

	if (p->path[0] && lstat(p->path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_dev == p->dev && st.st_ino == p->ino)
		(void)unlink(p->path);
	p->path[0] = '\0';
}
