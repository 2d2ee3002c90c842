/* SPDX-License-Identifier: MIT */
/*
 * The event the kernel would send for a device now, made from sysfs the
 * way `udevadm test` and udev's test-udev make theirs: DEVPATH and
 * SUBSYSTEM, the device's uevent file, ACTION. For `initdev rules test`
 * and the stand-in that runs udev's own rules suite (tests/test-udev.c).
 * The uevent file is sysfs' (bounded by rsys_uevent_props); the result is
 * parsed by the gate's own parser, so it meets every bound a kernel event
 * meets (a DEVNAME outside /dev is already dropped).
 */
#pragma once

#include <stdint.h>

#include "gate/uevent.h"
#include "rules/props.h"
#include "util/sysdev.h"

/*
 * devpath's properties into env, in udevadm's order (DEVPATH, the uevent
 * file's, ACTION, SUBSYSTEM; DEVNAME as "/dev/NAME"). 0 or -errno.
 */
int synth_env(const struct sysdev_root *sys, const char *devpath, const char *action,
	      struct props *env);

/* env (from synth_env) as the kernel's message, parsed into ev with SEQNUM seqnum. 0, -E2BIG, -EINVAL. */
int synth_uevent(const struct props *env, uint64_t seqnum, struct uevent *ev);
