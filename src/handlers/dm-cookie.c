/* SPDX-License-Identifier: MIT */
#include "handlers/dm-cookie.h"

#include <errno.h>
#include <stdlib.h>
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

size_t dm_cookie_releases_last(struct rules_event *ev)
{
	struct rules_run tmp;
	size_t moved = 0;

	/* stable: bubble each release past the entries after it (a handful) */
	for (size_t i = ev->nrun; i-- > 0;) {
		if (ev->run[i].builtin >= 0 || !is_udevcomplete(ev->run[i].cmd))
			continue;
		tmp = ev->run[i];
		memmove(&ev->run[i], &ev->run[i + 1],
			(ev->nrun - moved - 1 - i) * sizeof(ev->run[0]));
		ev->run[ev->nrun - moved - 1] = tmp;
		moved++;
	}
	return moved;
}

/* ---- the book ---- */

void dm_cookie_book_init(struct dm_cookie_book *b)
{
	memset(b, 0, sizeof(*b));
	pthread_mutex_init(&b->lock, NULL);
}

void dm_cookie_book_fini(struct dm_cookie_book *b)
{
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
	pthread_mutex_destroy(&b->lock);
}

int dm_cookie_book_note(struct dm_cookie_book *b, const struct uevent *ev)
{
	uint32_t cookie;
	int r = 0;

	if (!dm_cookie_of(ev, &cookie) || !dm_cookie_waits(cookie))
		return 0;
	pthread_mutex_lock(&b->lock);
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		struct dm_cookie_note *v = realloc(b->v, cap * sizeof(*v));

		if (v) {
			b->v = v;
			b->cap = cap;
		}
	}
	if (b->n < b->cap)
		b->v[b->n++] = (struct dm_cookie_note){ ev->seqnum, cookie };
	else
		r = -ENOMEM;
	pthread_mutex_unlock(&b->lock);
	return r;
}

/* Take ev's note off (under the lock). Was it there? */
static bool take_note(struct dm_cookie_book *b, uint64_t seqnum, uint32_t cookie)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].seqnum == seqnum && b->v[i].cookie == cookie) {
			b->v[i] = b->v[--b->n];
			return true;
		}
	return false;
}

enum dm_cookie_outcome dm_cookie_book_end(struct dm_cookie_book *b, const struct uevent *ev,
					  bool (*release_fn)(void *u), void *u, int *err)
{
	enum dm_cookie_outcome o = DM_COOKIE_BY_RULES;
	uint32_t cookie;

	*err = 0;
	if (!dm_cookie_of(ev, &cookie) || !dm_cookie_waits(cookie)) {
		if (release_fn)
			(void)release_fn(u); /* the rules' entries run all the same */
		return DM_COOKIE_NONE;
	}
	pthread_mutex_lock(&b->lock);
	/* not noted and closed: the handoff released it with the others */
	if (!take_note(b, ev->seqnum, cookie) && b->closed) {
		pthread_mutex_unlock(&b->lock);
		return DM_COOKIE_HANDED_OFF;
	}
	/* under the lock: a handoff waits until this release is done */
	if (!release_fn || !release_fn(u)) {
		*err = dm_cookie_release(cookie);
		o = *err == 0 ? DM_COOKIE_BY_US : DM_COOKIE_FAILED;
	}
	pthread_mutex_unlock(&b->lock);
	return o;
}

enum dm_cookie_outcome dm_cookie_book_give_back(struct dm_cookie_book *b,
						const struct uevent *ev, int *err)
{
	uint32_t cookie;

	*err = 0;
	if (!dm_cookie_of(ev, &cookie) || !dm_cookie_waits(cookie))
		return DM_COOKIE_NONE;
	pthread_mutex_lock(&b->lock);
	(void)take_note(b, ev->seqnum, cookie);
	*err = dm_cookie_release(cookie);
	pthread_mutex_unlock(&b->lock);
	return *err == 0 ? DM_COOKIE_BY_US : DM_COOKIE_FAILED;
}

size_t dm_cookie_book_close(struct dm_cookie_book *b,
			    void (*each)(void *u, const struct dm_cookie_note *n, int r), void *u)
{
	size_t released = 0;

	pthread_mutex_lock(&b->lock);
	b->closed = true;
	for (size_t i = 0; i < b->n; i++) {
		int r = dm_cookie_release(b->v[i].cookie);

		released += r == 0;
		if (each)
			each(u, &b->v[i], r);
	}
	b->n = 0;
	pthread_mutex_unlock(&b->lock);
	return released;
}
