/* SPDX-License-Identifier: MIT */
/*
 * device-mapper cookies for tests: a real SysV semaphore made as
 * libdevmapper makes one (key DM_COOKIE_MAGIC << 16 | base, IPC_EXCL, a
 * free base found by probing), read and removed. Every helper fails the
 * case on error; the caller removes what it made (dm_sem_drop).
 */
#pragma once

#include <stdint.h>

struct dm_sem {
	uint32_t value; /* what the kernel puts into DM_COOKIE: flags << 16 | base */
	int semid;
};

/* A new semaphore set to val (libdm: 1, plus one per task using the cookie). */
void dm_sem_make(struct dm_sem *c, uint16_t flags, int val);
int dm_sem_val(const struct dm_sem *c);
void dm_sem_drop(struct dm_sem *c);
