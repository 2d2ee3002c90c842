/* SPDX-License-Identifier: MIT */
#include "util/readfull.h"

#include <errno.h>
#include <unistd.h>

ssize_t read_full(int fd, void *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		ssize_t r = read(fd, (char *)buf + got, size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}
