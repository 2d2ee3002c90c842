/* SPDX-License-Identifier: MIT */
#include "handlers/dm-cookie.h"

#include <errno.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>

#include "rules/exec.h"
#include "util/number.h"

bool dm_cookie_of(const struct uevent *ev, uint32_t *cookie)
{
	const char *v = uevent_get(ev, "DM_COOKIE");
	uint64_t n;

	if (!v || number_parse_str(v, UINT32_MAX, &n) < 0)
		return false;
	*cookie = (uint32_t)n;
	return true;
}

bool dm_cookie_waits(uint32_t cookie)
{
	return (cookie & DM_COOKIE_BASE_MASK) != 0;
}

/* "dmsetup udevcomplete COOKIE" (dmsetup by any path; options before the command allowed) */
static bool is_udevcomplete(const char *cmd)
{
	char words[RULES_LINE_MAX], *argv[16];
	const char *prog;
	int n = exec_split(cmd, words, sizeof(words), argv, 16);

	if (n < 2)
		return false;
	prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (strcmp(prog, "dmsetup") != 0)
		return false;
	for (int i = 1; i < n; i++)
		if (argv[i][0] != '-')
			return strcmp(argv[i], "udevcomplete") == 0;
	return false;
}

bool dm_cookie_released_by(const struct rules_event *ev)
{
	for (size_t i = 0; i < ev->nrun; i++)
		if (ev->run[i].ok && ev->run[i].builtin < 0 && is_udevcomplete(ev->run[i].cmd))
			return true;
	return false;
}

int dm_cookie_release(uint32_t cookie)
{
	key_t key = (key_t)(DM_COOKIE_MAGIC << DM_COOKIE_FLAGS_SHIFT |
			    (cookie & DM_COOKIE_BASE_MASK));
	struct sembuf dec = { .sem_num = 0, .sem_op = -1, .sem_flg = IPC_NOWAIT };
	int id;

	if (!dm_cookie_waits(cookie))
		return 0;
	id = semget(key, 1, 0);
	if (id < 0)
		return -errno;
	return semop(id, &dec, 1) < 0 ? -errno : 0;
}
