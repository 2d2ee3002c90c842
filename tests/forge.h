/* SPDX-License-Identifier: MIT */
/* Test helper: send forged uevents from user space, the way an attacker would. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct forge {
	bool unicast;          /* send to dst_port instead of group 1 */
	unsigned int dst_port;
	bool creds;            /* attach SCM_CREDENTIALS of our choosing */
	pid_t pid;
	uid_t uid;
	gid_t gid;
};

/* Send payload once. Returns 0 or -errno. */
int forge_send(const struct forge *f, const void *payload, size_t len);

/*
 * Build "add@DEVPATH\0ACTION=add\0DEVPATH=...\0SUBSYSTEM=...\0SEQNUM=...\0
 * DEVNAME=...\0MAJOR=...\0MINOR=...\0" for a fake block device, padded with
 * a PADDING=xxx variable up to at least min_len bytes. Returns the length.
 */
size_t forge_fake_add(char *buf, size_t size, const char *devpath,
		      const char *devname, size_t min_len);
