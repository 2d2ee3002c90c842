/* SPDX-License-Identifier: MIT */
#include "forge.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static size_t put(char *buf, size_t size, size_t off, const char *s)
{
	size_t n = strlen(s) + 1;

	if (off + n > size)
		return off;
	memcpy(buf + off, s, n);
	return off + n;
}

size_t forge_fake_add(char *buf, size_t size, const char *devpath,
		      const char *devname, size_t min_len)
{
	char line[512];
	size_t off = 0;

	snprintf(line, sizeof(line), "add@%s", devpath);
	off = put(buf, size, off, line);
	off = put(buf, size, off, "ACTION=add");
	snprintf(line, sizeof(line), "DEVPATH=%s", devpath);
	off = put(buf, size, off, line);
	off = put(buf, size, off, "SUBSYSTEM=block");
	off = put(buf, size, off, "SEQNUM=4294967000");
	snprintf(line, sizeof(line), "DEVNAME=%s", devname);
	off = put(buf, size, off, line);
	off = put(buf, size, off, "MAJOR=7");
	off = put(buf, size, off, "MINOR=250");
	off = put(buf, size, off, "DEVMODE=0666");
	if (off + 10 < min_len && min_len <= size) {
		memcpy(buf + off, "PADDING=", 8);
		memset(buf + off + 8, 'x', min_len - off - 9);
		buf[min_len - 1] = '\0';
		off = min_len;
	}
	return off;
}

int forge_send(const struct forge *f, const void *payload, size_t len)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };
	struct iovec iov = { (void *)payload, len };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} cm;
	struct msghdr mh = { .msg_name = &dst, .msg_namelen = sizeof(dst),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	int fd, sndbuf = 1 << 20, r = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (f->unicast)
		dst.nl_pid = f->dst_port;
	else
		dst.nl_groups = 1;
	if (f->creds) {
		struct ucred uc = { .pid = f->pid, .uid = f->uid, .gid = f->gid };
		struct cmsghdr *c;

		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_CREDENTIALS;
		c->cmsg_len = CMSG_LEN(sizeof(uc));
		memcpy(CMSG_DATA(c), &uc, sizeof(uc));
	}
	if (sendmsg(fd, &mh, 0) < 0)
		r = -errno;
	close(fd);
	return r;
}
