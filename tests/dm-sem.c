/* SPDX-License-Identifier: MIT */
#include "dm-sem.h"

#include <atf-c.h>
#include <errno.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>

#include "handlers/dm-cookie.h"

void dm_sem_make(struct dm_sem *c, uint16_t flags, int val)
{
	for (unsigned int base = (unsigned int)getpid() & 0xFFFF;; base = (base + 7919) & 0xFFFF) {
		key_t key;

		if (base == 0)
			continue;
		key = (key_t)(DM_COOKIE_MAGIC << 16 | base);
		c->semid = semget(key, 1, IPC_CREAT | IPC_EXCL | 0600);
		if (c->semid >= 0) {
			c->value = (uint32_t)flags << 16 | base;
			break;
		}
		ATF_REQUIRE_EQ_MSG(errno, EEXIST, "semget: %s", strerror(errno));
	}
	ATF_REQUIRE(semctl(c->semid, 0, SETVAL, val) == 0);
}

int dm_sem_val(const struct dm_sem *c)
{
	return semctl(c->semid, 0, GETVAL);
}

void dm_sem_drop(struct dm_sem *c)
{
	(void)semctl(c->semid, 0, IPC_RMID);
}
