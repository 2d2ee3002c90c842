/* SPDX-License-Identifier: MIT */
/*
 * Stand-in for a running udevd in tests: listen on an AF_UNIX seqpacket
 * socket at PATH (udevd's control socket type), say "ready", and wait to be
 * killed; the socket file is removed on SIGTERM. Never reads a byte.
 * Usage: unix-listen PATH
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	sigset_t set;
	int fd, sig;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: unix-listen PATH\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4) < 0) {
		perror("unix-listen");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	sigwait(&set, &sig);
	unlink(argv[1]);
	return 0;
}
