/* SPDX-License-Identifier: MIT */
#include "names/input-id.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "names/udev-string.h"

static bool bit(const unsigned long *bits, size_t n, unsigned int b)
{
	size_t w = b / INPUT_LONG_BITS;

	return w < n && (bits[w] >> (b % INPUT_LONG_BITS)) & 1UL;
}

#define HAS(field, b) bit(c->field, sizeof(c->field) / sizeof(c->field[0]), (b))

void input_caps_parse(const char *text, unsigned long *bits, size_t n)
{
	char copy[SYSDEV_ATTR_MAX];
	size_t i = 0;
	char *space;

	memset(bits, 0, n * sizeof(*bits));
	/* udev reads the attribute into a page-sized buffer: the rest is not seen */
	snprintf(copy, sizeof(copy), "%s", text);
	/* words are separated by single spaces, least significant last */
	for (;;) {
		unsigned long v;
		char *word = copy;

		space = strrchr(copy, ' ');
		if (space)
			word = space + 1;
		if (ustr_parse_ulong(word, 16, &v) && i < n)
			bits[i] = v;
		i++;
		if (!space)
			return;
		*space = '\0';
	}
}

static size_t count_bits(const unsigned long *bits, size_t n, unsigned int from, unsigned int to)
{
	size_t k = 0;

	for (unsigned int b = from; b <= to; b++)
		k += bit(bits, n, b);
	return k;
}

/* Buttons a joystick has: none counted for a mouse whose buttons run into the range. */
static size_t joystick_buttons(const struct input_caps *c)
{
	size_t n = sizeof(c->key) / sizeof(c->key[0]);

	if (HAS(key, BTN_JOYSTICK - 1))
		return 0;
	return count_bits(c->key, n, BTN_JOYSTICK, BTN_DIGI - 1) +
	       count_bits(c->key, n, BTN_TRIGGER_HAPPY1, BTN_TRIGGER_HAPPY40) +
	       count_bits(c->key, n, BTN_DPAD_UP, BTN_DPAD_RIGHT);
}

static size_t joystick_axes(const struct input_caps *c)
{
	return count_bits(c->abs, sizeof(c->abs) / sizeof(c->abs[0]), ABS_RX, ABS_PRESSURE - 1);
}

/* Keyboards with a few joystick buttons are keyboards (libinput's heuristic too). */
static bool keyboard_not_joystick(const struct input_caps *c, size_t controls)
{
	static const unsigned int well_known[] = {
		KEY_LEFTCTRL, KEY_CAPSLOCK, KEY_NUMLOCK, KEY_INSERT,    KEY_MUTE,
		KEY_CALC,     KEY_FILE,     KEY_MAIL,    KEY_PLAYPAUSE, KEY_BRIGHTNESSDOWN,
	};
	size_t known = 0;

	if (HAS(ev, EV_KEY))
		for (size_t i = 0; i < sizeof(well_known) / sizeof(well_known[0]); i++)
			known += HAS(key, well_known[i]);
	return known >= 4 || controls < 2;
}

struct pointer_facts {
	bool abs_xy, mt_xy, rel_xy, stylus, pen, finger_no_pen, mouse_button, direct, touch;
	size_t controls; /* joystick buttons + axes */
};

static struct pointer_facts pointer_facts(const struct input_caps *c)
{
	struct pointer_facts f = { 0 };

	f.abs_xy = HAS(abs, ABS_X) && HAS(abs, ABS_Y);
	f.mt_xy = HAS(abs, ABS_MT_POSITION_X) && HAS(abs, ABS_MT_POSITION_Y);
	/* a device that claims every axis up to the slot is not multitouch */
	if (f.mt_xy && HAS(abs, ABS_MT_SLOT) && HAS(abs, ABS_MT_SLOT - 1))
		f.mt_xy = false;
	f.rel_xy = HAS(ev, EV_REL) && HAS(rel, REL_X) && HAS(rel, REL_Y);
	f.stylus = HAS(key, BTN_STYLUS);
	f.pen = HAS(key, BTN_TOOL_PEN);
	f.finger_no_pen = HAS(key, BTN_TOOL_FINGER) && !f.pen;
	f.mouse_button = count_bits(c->key, sizeof(c->key) / sizeof(c->key[0]), BTN_MOUSE,
				    BTN_JOYSTICK - 1) > 0;
	f.direct = HAS(props, INPUT_PROP_DIRECT);
	f.touch = HAS(key, BTN_TOUCH);
	f.controls = joystick_buttons(c) + joystick_axes(c);
	return f;
}

/* What the absolute (single- or multitouch) axes make of the device. */
static unsigned int abs_class(const struct pointer_facts *f, bool mt)
{
	if (f->stylus || f->pen)
		return INPUT_TABLET;
	if (f->finger_no_pen && !f->direct)
		return INPUT_TOUCHPAD;
	if (!mt && f->mouse_button)
		return INPUT_MOUSE; /* VMware's USB mouse: absolute axes, no touch */
	if (f->touch || f->direct)
		return INPUT_TOUCHSCREEN;
	if (!mt && f->controls > 0)
		return INPUT_JOYSTICK;
	return 0;
}

static unsigned int pointer_class(const struct input_caps *c)
{
	struct pointer_facts f = pointer_facts(c);
	unsigned int k = 0;
	bool rel_mouse;

	if (f.abs_xy)
		k |= abs_class(&f, false);
	else if (f.controls > 0)
		k |= INPUT_JOYSTICK;
	if (f.mt_xy)
		k |= abs_class(&f, true);
	if ((k & INPUT_TABLET) && HAS(key, BTN_0) && f.stylus && !f.pen)
		k |= INPUT_TABLET_PAD;
	rel_mouse = !(k & (INPUT_TABLET | INPUT_TOUCHPAD | INPUT_JOYSTICK)) && f.mouse_button &&
		    (f.rel_xy || !f.abs_xy);
	if (rel_mouse)
		k |= INPUT_MOUSE;
	/* there is no such thing as an i2c mouse (an absolute one aside) */
	if (HAS(props, INPUT_PROP_POINTING_STICK) || (rel_mouse && c->bustype == BUS_I2C))
		k |= INPUT_POINTINGSTICK;
	if ((k & INPUT_JOYSTICK) && keyboard_not_joystick(c, f.controls))
		k &= ~INPUT_JOYSTICK;
	return k;
}

static unsigned int key_class(const struct input_caps *c)
{
	size_t n = sizeof(c->key) / sizeof(c->key[0]);
	bool any = false;

	if (!HAS(ev, EV_KEY))
		return 0;
	/* KEY_* below BTN_MISC, whole words as udev tests them, then two ranges above it */
	for (size_t w = 0; w < BTN_MISC / INPUT_LONG_BITS; w++)
		any |= c->key[w] != 0;
	any = any || count_bits(c->key, n, KEY_OK, BTN_DPAD_UP - 1) ||
	      count_bits(c->key, n, KEY_ALS_TOGGLE, BTN_TRIGGER_HAPPY - 1);
	/* ESC, the digits and Q to D (not KEY_RESERVED): a full keyboard */
	if ((c->key[0] & 0xFFFFFFFEUL) == 0xFFFFFFFEUL)
		return INPUT_KEYBOARD | (any ? INPUT_KEY : 0);
	return any ? INPUT_KEY : 0;
}

unsigned int input_id_classify(const struct input_caps *c)
{
	bool has_keys = HAS(ev, EV_KEY);
	unsigned int k;

	if (HAS(props, INPUT_PROP_ACCELEROMETER) ||
	    (!has_keys && HAS(abs, ABS_X) && HAS(abs, ABS_Y) && HAS(abs, ABS_Z)))
		k = INPUT_ACCELEROMETER;
	else
		k = pointer_class(c);
	k |= key_class(c);
	/* some evdev nodes have only a scroll wheel */
	if (!k && HAS(ev, EV_REL) && (HAS(rel, REL_WHEEL) || HAS(rel, REL_HWHEEL)))
		k |= INPUT_KEY;
	if (HAS(ev, EV_SW))
		k |= INPUT_SWITCH;
	return k;
}

const char *input_class_name(unsigned int b)
{
	switch (b) {
	case INPUT_ACCELEROMETER: return "ID_INPUT_ACCELEROMETER";
	case INPUT_POINTINGSTICK: return "ID_INPUT_POINTINGSTICK";
	case INPUT_MOUSE: return "ID_INPUT_MOUSE";
	case INPUT_TOUCHPAD: return "ID_INPUT_TOUCHPAD";
	case INPUT_TOUCHSCREEN: return "ID_INPUT_TOUCHSCREEN";
	case INPUT_JOYSTICK: return "ID_INPUT_JOYSTICK";
	case INPUT_TABLET: return "ID_INPUT_TABLET";
	case INPUT_TABLET_PAD: return "ID_INPUT_TABLET_PAD";
	case INPUT_KEY: return "ID_INPUT_KEY";
	case INPUT_KEYBOARD: return "ID_INPUT_KEYBOARD";
	case INPUT_SWITCH: return "ID_INPUT_SWITCH";
	default: return NULL;
	}
}

/* Attribute dir/name of devpath (dir NULL: the device's own). */
static int attr_in(const struct sysdev_root *root, const char *devpath, const char *dir,
		   const char *name, char *out, size_t size)
{
	char sub[SYSDEV_PATH_MAX];

	if (!dir)
		return sysdev_attr(root, devpath, name, out, size);
	if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", devpath, dir) >= sizeof(sub))
		return -ENAMETOOLONG;
	return sysdev_attr(root, sub, name, out, size);
}

static void read_caps(const struct sysdev_root *root, const char *devpath, const char *dir,
		      const char *name, unsigned long *bits, size_t n)
{
	char text[SYSDEV_ATTR_MAX];

	/* absent or unreadable reads as empty, as in udev: no bits */
	if (attr_in(root, devpath, dir, name, text, sizeof(text)) < 0)
		text[0] = '\0';
	input_caps_parse(text, bits, n);
}

static uint16_t read_bustype(const struct sysdev_root *root, const char *devpath)
{
	char text[64];
	unsigned long v;

	if (attr_in(root, devpath, "id", "bustype", text, sizeof(text)) < 0 ||
	    !ustr_parse_ulong(text, 16, &v) || v > 0xffff)
		return 0;
	return (uint16_t)v;
}

#define READ_CAPS(root, dp, dir, name, field) \
	read_caps(root, dp, dir, name, c->field, sizeof(c->field) / sizeof(c->field[0]))

static void read_all_caps(const struct sysdev_root *root, const char *dp, struct input_caps *c)
{
	READ_CAPS(root, dp, "capabilities", "ev", ev);
	READ_CAPS(root, dp, "capabilities", "abs", abs);
	READ_CAPS(root, dp, "capabilities", "rel", rel);
	READ_CAPS(root, dp, "capabilities", "key", key);
	READ_CAPS(root, dp, NULL, "properties", props);
	c->bustype = read_bustype(root, dp);
}

/* The device itself or its nearest input ancestor that has capabilities/ev. */
static bool find_input(const struct sysdev_root *root, const char *devpath, char *out, size_t size)
{
	char probe[8];
	int r;

	if ((size_t)snprintf(out, size, "%s", devpath) >= size)
		return false;
	/* too long for probe is there all the same */
	while ((r = attr_in(root, out, "capabilities", "ev", probe, sizeof(probe))) < 0 &&
	       r != -EFBIG) {
		char up[SYSDEV_PATH_MAX];

		if (sysdev_find_parent(root, out, "input", NULL, up, sizeof(up)) < 0 ||
		    (size_t)snprintf(out, size, "%s", up) >= size)
			return false;
	}
	return true;
}

/* Axis size in mm: units over resolution (units/mm for ABS_X/Y). */
static int size_mm(const struct input_absinfo *a)
{
	return (int)(((long long)a->maximum - a->minimum) / a->resolution);
}

static int set_size(const char *devnode, input_set_fn set, void *u)
{
	struct input_absinfo x = { 0 }, y = { 0 };
	char w[16], h[16];
	int fd, r;

	if (!devnode)
		return 0;
	fd = open(devnode, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	r = ioctl(fd, EVIOCGABS(ABS_X), &x) < 0 || ioctl(fd, EVIOCGABS(ABS_Y), &y) < 0;
	close(fd);
	if (r || x.resolution <= 0 || y.resolution <= 0)
		return 0;
	snprintf(w, sizeof(w), "%d", size_mm(&x));
	snprintf(h, sizeof(h), "%d", size_mm(&y));
	r = set(u, "ID_INPUT_WIDTH_MM", w);
	return r ?: set(u, "ID_INPUT_HEIGHT_MM", h);
}

static int set_classes(unsigned int k, input_set_fn set, void *u)
{
	int r = set(u, "ID_INPUT", "1");

	for (unsigned int b = 1; !r && b <= INPUT_SWITCH; b <<= 1)
		if (k & b)
			r = set(u, input_class_name(b), "1");
	return r;
}

int input_id_props(const struct sysdev_root *root, const char *devpath, const char *devnode,
		   input_set_fn set, void *u)
{
	char dev[SYSDEV_PATH_MAX], sysname[SYSDEV_NAME_MAX];
	struct input_caps caps;
	int r;

	if (find_input(root, devpath, dev, sizeof(dev))) {
		struct input_caps *c = &caps;

		read_all_caps(root, dev, c);
		r = set_classes(input_id_classify(c), set, u);
		if (r < 0)
			return r;
	}
	sysdev_sysname(devpath, sysname);
	return strncmp(sysname, "event", 5) == 0 ? set_size(devnode, set, u) : 0;
}
