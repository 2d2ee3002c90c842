/* SPDX-License-Identifier: MIT */
#include "gate/uevent-socket.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int uevent_socket_configure(int fd, int rcvbuf, bool passcred,
			    struct uevent_socket_info *info)
{
	int on = 1, got = 0;
	socklen_t len = sizeof(got);

	if (passcred && setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0)
		return -errno;
	if (rcvbuf <= 0)
		rcvbuf = UEVENT_RCVBUF_DEFAULT;
	/* FORCE bypasses rmem_max (needs CAP_NET_ADMIN); plain RCVBUF clamps */
	info->forced = setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				  sizeof(rcvbuf)) == 0;
	if (!info->forced)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) < 0)
		return -errno;
	info->rcvbuf = got;
	return 0;
}

static int socket_port(int fd, unsigned int *port)
{
	struct sockaddr_nl addr;
	socklen_t len = sizeof(addr);

	if (getsockname(fd, (struct sockaddr *)&addr, &len) < 0)
		return -errno;
	*port = addr.nl_pid;
	return 0;
}

int uevent_socket_adopt(int fd, const struct uevent_socket_options *opts,
			struct uevent_socket_info *info)
{
	int r;

	memset(info, 0, sizeof(*info));
	r = uevent_socket_configure(fd, opts->rcvbuf, !opts->no_passcred, info);
	return r < 0 ? r : socket_port(fd, &info->port);
}

int uevent_socket_open(const struct uevent_socket_options *opts,
		       struct uevent_socket_info *info)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, r;

	memset(info, 0, sizeof(*info));
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	r = uevent_socket_configure(fd, opts->rcvbuf, !opts->no_passcred, info);
	if (r == 0 && bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		r = -errno;
	if (r == 0)
		r = socket_port(fd, &info->port);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

union cmsg_space {
	struct cmsghdr align;
	/* room for credentials and one unexpected extra, to spot CTRUNC honestly */
	char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(64)];
};

static void extract_creds(struct msghdr *mh, struct uevent_raw *raw)
{
	raw->has_creds = false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
			memcpy(&raw->creds, CMSG_DATA(c), sizeof(raw->creds));
			raw->has_creds = true;
		}
	}
}

int uevent_socket_recv(int fd, struct uevent_raw *raw, size_t n)
{
	struct mmsghdr mm[UEVENT_BATCH_MAX];
	struct iovec iov[UEVENT_BATCH_MAX];
	union cmsg_space cm[UEVENT_BATCH_MAX];
	int got;

	if (n > UEVENT_BATCH_MAX)
		n = UEVENT_BATCH_MAX;
	memset(mm, 0, sizeof(mm[0]) * n);
	for (size_t i = 0; i < n; i++) {
		iov[i] = (struct iovec){ raw[i].data, sizeof(raw[i].data) };
		mm[i].msg_hdr = (struct msghdr){
			.msg_name = &raw[i].sender,
			.msg_namelen = sizeof(raw[i].sender),
			.msg_iov = &iov[i],
			.msg_iovlen = 1,
			.msg_control = cm[i].buf,
			.msg_controllen = sizeof(cm[i].buf),
		};
	}
	do {
		got = recvmmsg(fd, mm, (unsigned int)n, MSG_DONTWAIT, NULL);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	for (int i = 0; i < got; i++) {
		raw[i].len = mm[i].msg_len < sizeof(raw[i].data) ?
			     mm[i].msg_len : sizeof(raw[i].data);
		raw[i].flags = mm[i].msg_hdr.msg_flags;
		raw[i].has_sender = mm[i].msg_hdr.msg_namelen == sizeof(raw[i].sender) &&
				    raw[i].sender.nl_family == AF_NETLINK;
		extract_creds(&mm[i].msg_hdr, &raw[i]);
	}
	return got;
}
