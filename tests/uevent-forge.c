/* SPDX-License-Identifier: MIT */
/*
 * uevent-forge: send a forged "add" uevent for a fake block device from user
 * space. For tests and the demo only: proves the gate refuses it.
 *   uevent-forge [--unicast PORT] [--creds PID:UID] [--size N]
 *                [--devpath P] [--devname N]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forge.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "unicast", required_argument, NULL, 'u' },
		{ "creds", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "devpath", required_argument, NULL, 'p' },
		{ "devname", required_argument, NULL, 'n' },
		{ 0 },
	};
	struct forge f = { 0 };
	const char *devpath = "/devices/virtual/block/forged0", *devname = "forged0";
	static char buf[65536];
	size_t min_len = 0, len;
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			f.unicast = true;
			f.dst_port = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			f.creds = true;
			if (sscanf(optarg, "%d:%u", &f.pid, &f.uid) != 2)
				return 2;
			break;
		case 's': min_len = strtoul(optarg, NULL, 10); break;
		case 'p': devpath = optarg; break;
		case 'n': devname = optarg; break;
		default: return 2;
		}
	}
	if (min_len > sizeof(buf))
		min_len = sizeof(buf);
	len = forge_fake_add(buf, sizeof(buf), devpath, devname, min_len);
	r = forge_send(&f, buf, len);
	if (r < 0) {
		fprintf(stderr, "uevent-forge: send: %s\n", strerror(-r));
		return 1;
	}
	printf("sent %zu bytes %s\n", len, f.unicast ? "unicast" : "to group 1");
	return 0;
}
