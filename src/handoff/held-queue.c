/* SPDX-License-Identifier: MIT */
#include "handoff/held-queue.h"

#include <errno.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gate/uevent.h"
#include "util/number.h"

/* SEQNUM=N from a datagram (hostile: bounded, digits only). 0 if none. */
static unsigned long long datagram_seqnum(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i += strnlen(buf + i, len - i) + 1) {
		size_t flen = strnlen(buf + i, len - i);
		uint64_t v;

		if (flen > 7 && memcmp(buf + i, "SEQNUM=", 7) == 0)
			return number_parse(buf + i + 7, flen - 7, UINT64_MAX, &v) == 0 ? v : 0;
	}
	return 0;
}

/*
 * The oldest queued kernel event's SEQNUM, by MSG_PEEK. Not if an overflow
 * is pending: a receive would report and clear the ENOBUFS the next owner
 * needs to see (poll shows it as POLLERR without clearing it).
 */
static void peek_first(int nl_fd, struct held_queue *q)
{
	char buf[UEVENT_MSG_MAX];
	struct pollfd p = { nl_fd, POLLIN, 0 };
	struct sockaddr_nl from;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (poll(&p, 1, 0) < 0 || (p.revents & POLLERR)) {
		q->overflow = true;
		return;
	}
	if (!(p.revents & POLLIN))
		return;
	n = recvmsg(nl_fd, &mh, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0 && mh.msg_namelen >= sizeof(from) && from.nl_pid == 0)
		q->first = datagram_seqnum(buf, (size_t)n);
}

static unsigned long long read_seqnum(int fd)
{
	uint64_t v;

	return fd >= 0 && number_pread(fd, UINT64_MAX, &v) == 0 ? v : 0;
}

void held_queue_measure(int nl_fd, int seqnum_fd, struct held_queue *q)
{
	unsigned int mi[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mi);

	memset(q, 0, sizeof(*q));
	/* netlink has no FIONREAD/SIOCINQ (ENOTTY); SO_MEMINFO works */
	if (getsockopt(nl_fd, SOL_SOCKET, SO_MEMINFO, mi, &len) == 0) {
		q->rmem = mi[SK_MEMINFO_RMEM_ALLOC];
		if (len > SK_MEMINFO_DROPS * sizeof(mi[0]))
			q->drops = mi[SK_MEMINFO_DROPS];
	}
	peek_first(nl_fd, q);
	q->last = read_seqnum(seqnum_fd);
}

/*
 * "about N events (SEQNUM a..b), B bytes": the count assumes every uevent
 * since a reached this socket, so it is an upper bound.
 */
void held_queue_format(const struct held_queue *q, char *buf, size_t size)
{
	int n;

	if (q->rmem == 0 && !q->overflow)
		n = snprintf(buf, size, "no events");
	else if (q->first && q->last >= q->first)
		n = snprintf(buf, size, "about %llu events (SEQNUM %llu..%llu), %u bytes",
			     q->last - q->first + 1, q->first, q->last, q->rmem);
	else
		n = snprintf(buf, size, "events of %u bytes", q->rmem);
	if (n >= 0 && (size_t)n < size && q->overflow)
		snprintf(buf + n, size - (size_t)n, ", overflowed (%u dropped in its lifetime)",
			 q->drops);
}
