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

#include <stdbool.h>
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
