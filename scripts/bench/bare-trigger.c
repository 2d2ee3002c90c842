/* SPDX-License-Identifier: MIT */
/*
 * The baseline for scripts/bench/coldplug: write "add" to each uevent file
 * named on stdin, nothing else. With --listen, a uevent socket is bound to
 * group 1 first (and never read), so the kernel also broadcasts each event,
 * as it does whenever a device manager listens.
 */
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int listen_uevents(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int size = 16 << 20, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	/* room for every event: a full buffer would skip the copy work */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	char path[4096];
	int n = 0;

	if (argc > 1 && strcmp(argv[1], "--listen") == 0 && listen_uevents() < 0) {
		perror("bare-trigger: uevent socket");
		return 1;
	}
	while (fgets(path, sizeof(path), stdin)) {
		int fd;

		path[strcspn(path, "\n")] = '\0';
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (write(fd, "add", 3) == 3)
			n++;
		close(fd);
	}
	fprintf(stderr, "%d writes\n", n);
	return 0;
}
