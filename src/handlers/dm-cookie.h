/* SPDX-License-Identifier: MIT */
/*
 * device-mapper's udev cookies (docs/stacked-roots.md §1): a tool that
 * changes a dm device (cryptsetup, lvm, dmsetup) passes a cookie with the
 * ioctl, the kernel puts it into the device's change/remove uevent as
 * DM_COOKIE=<u32>, and the tool then waits, with no timeout, until the
 * SysV semaphore the cookie names is back to zero. udev releases it with
 * 95-dm-notify.rules' RUN `dmsetup udevcomplete $env{DM_COOKIE}`. These
 * are the parts initdev needs to make sure every cookie it was handed is
 * released once: read it from an event, tell whether an event's RUN list
 * released it, and release it itself otherwise.
 *
 * The cookie value comes from a kernel uevent (checked by the gate); it is
 * still parsed strictly. Only the semaphore it names is touched, by one
 * non-blocking decrement, as dmsetup does.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gate/uevent.h"
#include "rules/rules.h"

/* libdevmapper's constants (libdm/libdevmapper.h, libdm-common.h) */
#define DM_COOKIE_MAGIC 0x0D4Du
#define DM_COOKIE_FLAGS_SHIFT 16
#define DM_COOKIE_BASE_MASK 0xFFFFu

/* DM_COOKIE of ev as a number; false if absent or not a decimal u32. */
bool dm_cookie_of(const struct uevent *ev, uint32_t *cookie);

/*
 * Does the cookie name a semaphore to release? A cookie whose low 16 bits
 * are 0 carries flags only ("not meant for notification"): nothing waits.
 */
bool dm_cookie_waits(uint32_t cookie);

/*
 * Did ev's RUN list release a cookie: a `dmsetup udevcomplete ...` entry
 * that rules_run_list ran with success?
 */
bool dm_cookie_released_by(const struct rules_event *ev);

/*
 * Release the cookie as `dmsetup udevcomplete` does: decrement the
 * semaphore with key DM_COOKIE_MAGIC << 16 | (cookie & 0xFFFF), without
 * waiting. 0 done; -ENOENT no such semaphore (nobody waits: already
 * released, or the waiter gave up); -EAGAIN it is already zero; -errno.
 */
int dm_cookie_release(uint32_t cookie);

/*
 * Move the run list's `dmsetup udevcomplete` entries to its end, keeping
 * the order of both parts, so the release can run on its own (the book's
 * end). How many were moved.
 */
size_t dm_cookie_releases_last(struct rules_event *ev);

/*
 * The cookies of the events in hand, so that a handoff giving the events
 * up releases each cookie exactly once. An event with a cookie is noted
 * when it comes in (main thread, before any worker sees it); its release,
 * when the event is done, takes it off under the book's lock. A handoff
 * that gives up the events in hand takes each given-back event off and
 * releases its cookie, then closes the book: every cookie still noted
 * (running events, events kept behind them) is released there, and a
 * worker that gets to its release afterwards releases nothing. Zeroed,
 * then dm_cookie_book_init; thread-safe.
 */
struct dm_cookie_note {
	uint64_t seqnum;
	uint32_t cookie;
};

struct dm_cookie_book {
	pthread_mutex_t lock;
	bool closed;            /* dm_cookie_book_close ran */
	struct dm_cookie_note *v;
	size_t n, cap;
};

void dm_cookie_book_init(struct dm_cookie_book *b);
void dm_cookie_book_fini(struct dm_cookie_book *b);

/* Note ev's cookie if it names a semaphore. 0, or -ENOMEM (not noted:
 * the event's own release still happens, a handoff's does not). */
int dm_cookie_book_note(struct dm_cookie_book *b, const struct uevent *ev);

/* How an event's cookie was released (dm_cookie_book_end). */
enum dm_cookie_outcome {
	DM_COOKIE_NONE,      /* no cookie, or flags only: nothing waits */
	DM_COOKIE_BY_RULES,  /* the rules' udevcomplete (release_fn) did it */
	DM_COOKIE_BY_US,     /* dm_cookie_release here (the rules did not) */
	DM_COOKIE_HANDED_OFF,/* a handoff released it already: nothing done */
	DM_COOKIE_FAILED,    /* dm_cookie_release failed: *err */
};

/*
 * The end of ev's handling: unless a handoff closed the book with ev still
 * in hand, under the book's lock, run release_fn(u) (the rules'
 * udevcomplete entries; NULL: none; true if they released it) and, if it
 * did not release the cookie, dm_cookie_release. *err: that call's result.
 */
enum dm_cookie_outcome dm_cookie_book_end(struct dm_cookie_book *b, const struct uevent *ev,
					  bool (*release_fn)(void *u), void *u, int *err);

/*
 * A handoff gives ev back (it will not be handled here): take it off and
 * release its cookie. DM_COOKIE_NONE, _BY_US or _FAILED (*err).
 */
enum dm_cookie_outcome dm_cookie_book_give_back(struct dm_cookie_book *b,
						const struct uevent *ev, int *err);

/*
 * A handoff abandons every event still in hand: release each noted cookie
 * (each(u, note, result of dm_cookie_release) if each is not NULL) and
 * close the book. How many were released.
 */
size_t dm_cookie_book_close(struct dm_cookie_book *b,
			    void (*each)(void *u, const struct dm_cookie_note *n, int r), void *u);
