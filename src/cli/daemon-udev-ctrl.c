/* SPDX-License-Identifier: MIT */
/*
 * udev's control protocol (util/udev-ctrl.h) on the control socket PID 1
 * passed (systemd-udevd-control.socket, /run/udev/control), served as
 * udevd 252 serves it (udev-ctrl.c, on_ctrl_msg in udevd.c): one root peer
 * at a time, each message from root (SCM_CREDENTIALS), no replies; the
 * connection is closed at END_MESSAGES or at anything malformed, and that
 * hang-up is the client's answer (udevadm control --ping, udevadm settle).
 * Messages are read after the kernel socket in each turn of the loop (as
 * udevd serves them at idle priority). Alongside, /run/udev/queue exists
 * while the daemon is not settled, as udevd keeps it while events are
 * queued: the real `udevadm settle` and libudev's udev_queue wait on it.
 */
#include "cli/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/udev-ctrl.h"

static void hang_up(struct daemon *d)
{
	close(d->udev_conn_fd);
	d->udev_conn_fd = -1;
}

void udev_ctrl_accept(struct daemon *d)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd = accept4(d->pid1_control_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), on = 1;

	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != 0) {
		log_msg(&d->cli->log, LOG_WARNING, "udev control: refusing a peer that is not root");
		close(fd);
		return;
	}
	/* the credentials of each message are checked too, as udevd does */
	(void)setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	d->udev_conn_fd = fd; /* one at a time: the listening socket is not polled meanwhile */
}

/* The sender of one message is root; false if unsaid or another uid. */
static bool sent_by_root(struct msghdr *mh)
{
	struct cmsghdr *c = CMSG_FIRSTHDR(mh);
	struct ucred cred;

	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS ||
	    c->cmsg_len != CMSG_LEN(sizeof(cred)))
		return false;
	memcpy(&cred, CMSG_DATA(c), sizeof(cred));
	return cred.uid == 0;
}

static void carry_out(struct daemon *d, const struct udev_ctrl_msg *m)
{
	const struct logger *log = &d->cli->log;

	log_msg(log, LOG_DEBUG, "udev control: %s", udev_ctrl_type_name(m->type));
	switch (m->type) {
	case UDEV_CTRL_SET_LOG_LEVEL:
		d->cli->log.max_level = m->intval;
		break;
	case UDEV_CTRL_RELOAD:
		(void)engine_reload(&d->engine); /* logged there */
		break;
	case UDEV_CTRL_SET_ENV:
		if (engine_set_property(&d->engine, m->env) < 0)
			log_msg(log, LOG_WARNING, "udev control: ENV not taken");
		break;
	case UDEV_CTRL_EXIT:
		daemon_begin_stop(d, "Exiting");
		break;
	case UDEV_CTRL_STOP_EXEC_QUEUE:
	case UDEV_CTRL_START_EXEC_QUEUE:
	case UDEV_CTRL_SET_CHILDREN_MAX:
		/* events are never held back here, and the workers are fixed */
		log_msg(log, LOG_INFO, "udev control: %s accepted; initdev has no use for it",
			udev_ctrl_type_name(m->type));
		break;
	default: /* PING: the hang-up after END_MESSAGES is the answer */
		break;
	}
}

void udev_ctrl_serve(struct daemon *d)
{
	unsigned char buf[UDEV_CTRL_WIRE_SIZE + 1]; /* one more: a longer message shows */
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(struct ucred))];
	} cm;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			     .msg_controllen = sizeof(cm.b) };
	struct udev_ctrl_msg m;
	const char *why;
	ssize_t n = recvmsg(d->udev_conn_fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		hang_up(d);
		return;
	}
	why = mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC) ? "too long" :
	      !sent_by_root(&mh) ? "not from root" :
	      udev_ctrl_parse(buf, (size_t)n, &m);
	if (why) {
		log_msg(&d->cli->log, LOG_WARNING, "udev control: a message refused (%s); "
			"hanging up", why);
		hang_up(d);
	} else if (m.type == UDEV_CTRL_END_MESSAGES) {
		hang_up(d);
	} else {
		carry_out(d, &m);
	}
}

/* RUN/queue exists exactly while not settled (only with PID 1's control socket). */
void udev_queue_update(struct daemon *d, bool stopping)
{
	bool want = !stopping && d->pid1_control_fd >= 0 && !engine_settled(&d->engine);
	char path[PATH_MAX];
	int fd;

	if (want == d->udev_queue_made ||
	    (size_t)snprintf(path, sizeof(path), "%s/queue", d->cli->udev_run) >= sizeof(path))
		return;
	if (!want) {
		(void)unlink(path);
		d->udev_queue_made = false;
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		log_errno(&d->cli->log, LOG_WARNING, -errno, "%s", path);
	else
		close(fd);
	d->udev_queue_made = true; /* also when it failed: tried once per change */
}
