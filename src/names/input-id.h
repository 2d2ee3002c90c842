/* SPDX-License-Identifier: MIT */
/*
 * udev 252's input_id builtin: what kind of input device an evdev node is
 * (ID_INPUT_KEY, _KEYBOARD, _MOUSE, _TOUCHPAD, _JOYSTICK, ...), from the
 * capability bitmaps the kernel prints in sysfs (capabilities/ev, abs, key,
 * rel, properties) and the bus type. The rules of a systemd image, and
 * systemd-logind and libinput after them, read these properties.
 *
 * Hostile: every bitmap attribute (any text, any length up to one sysfs
 * page); words that do not parse are skipped and extra words ignored, as
 * udev does. Pure functions but input_id_props, which reads sysfs and asks
 * the evdev node its axes' resolution (ID_INPUT_WIDTH_MM/HEIGHT_MM).
 * Thread-safe.
 */
#pragma once

#include <linux/input.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sysdev.h"

#define INPUT_LONG_BITS (sizeof(unsigned long) * 8)
#define INPUT_LONGS(max) ((max) / INPUT_LONG_BITS + 1)

/* The kernel's bitmaps, in its own word size (sysfs prints them in it). */
struct input_caps {
	unsigned long ev[INPUT_LONGS(EV_MAX)];
	unsigned long abs[INPUT_LONGS(ABS_MAX)];
	unsigned long key[INPUT_LONGS(KEY_MAX)];
	unsigned long rel[INPUT_LONGS(REL_MAX)];
	unsigned long props[INPUT_LONGS(INPUT_PROP_MAX)];
	uint16_t bustype;
};

/* The classes, in the order udev adds their properties. */
enum input_class {
	INPUT_ACCELEROMETER = 1U << 0,
	INPUT_POINTINGSTICK = 1U << 1,
	INPUT_MOUSE = 1U << 2,
	INPUT_TOUCHPAD = 1U << 3,
	INPUT_TOUCHSCREEN = 1U << 4,
	INPUT_JOYSTICK = 1U << 5,
	INPUT_TABLET = 1U << 6,
	INPUT_TABLET_PAD = 1U << 7,
	INPUT_KEY = 1U << 8,
	INPUT_KEYBOARD = 1U << 9,
	INPUT_SWITCH = 1U << 10,
};

/*
 * A bitmap attribute's text ("1f 0 ffffffff ...", most significant word
 * first) into bits (n words, zeroed first). A word that is not hex as
 * strtoul reads it is skipped (its position still counts), words beyond n
 * are ignored: udev's get_cap_mask.
 */
void input_caps_parse(const char *text, unsigned long *bits, size_t n);

/* The enum input_class bits udev 252 sets for these capabilities. */
unsigned int input_id_classify(const struct input_caps *c);

/* The property name of one class bit ("ID_INPUT_MOUSE"); NULL if none. */
const char *input_class_name(unsigned int bit);

typedef int (*input_set_fn)(void *u, const char *key, const char *value);

/*
 * input_id for devpath: finds the input device (devpath or the nearest
 * input ancestor with capabilities/ev), sets ID_INPUT and the class
 * properties through set; for an event* device, ID_INPUT_WIDTH_MM and
 * ID_INPUT_HEIGHT_MM from the node devnode (NULL: skipped) when it reports
 * a resolution. Nothing set for a device that is not an input device.
 * 0, or what set returned.
 */
int input_id_props(const struct sysdev_root *root, const char *devpath, const char *devnode,
		   input_set_fn set, void *u);
