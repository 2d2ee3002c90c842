/* SPDX-License-Identifier: MIT */
/* The baseline for scripts/bench/coldplug: write "add" to each uevent file
 * named on stdin, nothing else. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char path[4096];
	int n = 0;

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
