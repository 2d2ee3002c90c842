/* SPDX-License-Identifier: MIT */
/*
 * udev 252's keyboard builtin: what the hwdb says about an evdev device,
 * applied to it. KEYBOARD_KEY_<hex scan code>=<key> remaps a scan code
 * (EVIOCSKEYCODE; a key name as udev spells them, "leftctrl", "key_a",
 * "btn_left", or a number), a leading '!' also puts the scan code on the
 * atkbd's force_release list (its serio parent's attribute);
 * EVDEV_ABS_<hex axis>=min:max:res:fuzz:flat overrides an axis
 * (EVIOCSABS); POINTINGSTICK_SENSITIVITY=0..255 goes to the serio parent's
 * "sensitivity". Each failure is logged and skipped, as in udev.
 *
 * Hostile: the property values (from the hwdb file and the rules) and the
 * current force_release list (sysfs): all parsed strictly and bounded.
 * Thread-safe (one device's node and attributes per call).
 */
#pragma once

#include "rules/props.h"
#include "util/log.h"
#include "util/sysdev.h"

/* The key code of a name as udev's keyboard builtin reads it; -1 if none. */
int keyboard_key_code(const char *name);

/*
 * The builtin for devpath (its node devnode, "" if none) with the event's
 * properties. 0; -ENODEV without a node when there is something to do with
 * it, -errno when it cannot be opened (udev fails then too).
 */
int keyboard_builtin(const struct sysdev_root *root, const char *devpath, const char *devnode,
		     const struct props *props, const struct logger *log);
