/* SPDX-License-Identifier: MIT */
/*
 * evdev-keycode NODE SCANCODE: print the key code NODE maps the scan code
 * (hex) to (EVIOCGKEYCODE), for the boot tests of the keyboard builtin.
 * Exit 1 if the node cannot say.
 */
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned int map[2] = { 0, 0 };
	int fd;

	if (argc != 3)
		return 2;
	map[0] = (unsigned int)strtoul(argv[2], NULL, 16);
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, EVIOCGKEYCODE, map) < 0) {
		perror(argv[1]);
		return 1;
	}
	printf("%u\n", map[1]);
	close(fd);
	return 0;
}
