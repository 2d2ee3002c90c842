/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the input_id builtin's capability bitmaps (sysfs text of
 * a device anyone can create with uinput). Each of the five attributes is
 * one NUL-separated piece of the input; parsing stays in the words given
 * and the classification is one of udev's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names/input-id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PIECE(field) (c.field), sizeof(c.field) / sizeof(c.field[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[5 * SYSDEV_ATTR_MAX];
	struct input_caps c = { 0 };
	const char *piece[5];
	size_t n = 0;
	unsigned int k;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; n < 5; n++) {
		piece[n] = i <= size ? text + i : "";
		i += strlen(piece[n]) + 1;
	}
	input_caps_parse(piece[0], PIECE(ev));
	input_caps_parse(piece[1], PIECE(abs));
	input_caps_parse(piece[2], PIECE(key));
	input_caps_parse(piece[3], PIECE(rel));
	input_caps_parse(piece[4], PIECE(props));
	c.bustype = size ? data[0] : 0;
	k = input_id_classify(&c);
	if (k >= INPUT_SWITCH << 1)
		abort();
	/* an accelerometer is nothing else that points */
	if ((k & INPUT_ACCELEROMETER) &&
	    (k & ~(INPUT_ACCELEROMETER | INPUT_KEY | INPUT_KEYBOARD | INPUT_SWITCH)))
		abort();
	for (unsigned int b = 1; b <= INPUT_SWITCH; b <<= 1)
		if (!input_class_name(b))
			abort();
	return 0;
}
