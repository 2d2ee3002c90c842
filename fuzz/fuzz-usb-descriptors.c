/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what usb_id reads from a USB device, which the device
 * itself reports: the raw "descriptors" attribute (packed into
 * ID_USB_INTERFACES) and its strings (\xNN-encoded into ID_VENDOR_ENC /
 * ID_MODEL_ENC). Outputs stay in udev's buffers and in their alphabet. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names/usb-id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ifs(const char *ifs)
{
	size_t len = strlen(ifs);

	if (len >= USB_IFS_MAX)
		abort();
	/* ":CCSSPP" pieces, closed by ':' unless the data was corrupt */
	for (size_t i = 0; i + 7 <= len; i += 7) {
		if (ifs[i] != ':')
			abort();
		for (size_t j = 1; j < 7; j++)
			if (!strchr("0123456789abcdef", ifs[i + j]) || !ifs[i + j])
				abort();
	}
	if (len % 7 > 1 || (len % 7 == 1 && ifs[len - 1] != ':'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[8192];
	char ifs[USB_IFS_MAX], enc[257];

	usb_ifs_pack(data, size, ifs);
	check_ifs(ifs);
	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	usb_encode(text, enc, sizeof(enc));
	if (strlen(enc) > 256)
		abort();
	/* nothing that needs escaping is left raw */
	for (const unsigned char *p = (const unsigned char *)enc; *p; p++)
		if (*p < 0x80 &&
		    !strchr("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#+-.:=@_\\",
			    *p))
			abort();
	return 0;
}
