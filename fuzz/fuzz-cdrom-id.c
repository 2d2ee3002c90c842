/* SPDX-License-Identifier: MIT */
/* libFuzzer target: what a CD drive answers cdrom_id (rules/cdrom-id.h):
 * its capability mask, its drive status and every SCSI reply (GET
 * CONFIGURATION, READ TOC, READ DISC INFORMATION, READ DVD STRUCTURE, READ
 * FORMAT CAPACITIES, READ(10)), each reply as long as the input says and
 * failed or sensed as the input says. The probe stays in its buffers,
 * terminates, and prints only ID_CDROM* lines of udev's names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rules/cdrom-id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *p;
	size_t n;
	unsigned int calls;
};

static uint32_t take(struct input *in, size_t bytes)
{
	uint32_t v = 0;

	for (size_t i = 0; i < bytes; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

static int capability(void *u)
{
	uint32_t v = take(u, 4);

	return v & 0x80000000u ? -EIO : (int)v;
}

static int drive_status(void *u)
{
	return (int)take(u, 1) % 6;
}

static int scsi(void *u, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len)
{
	struct input *in = u;
	uint32_t how = take(in, 1), n = take(in, 2);

	if (cdb_len < 6 || cdb_len > 12 || ++in->calls > 16)
		abort(); /* a command cdrom_id does not send, or a loop */
	for (size_t i = 0; i < len; i++)
		if (buf[i])
			abort(); /* not zeroed for the drive */
	if (n > len)
		n = (uint32_t)len;
	if (n > in->n)
		n = (uint32_t)in->n;
	memcpy(buf, in->p, n);
	in->p += n;
	in->n -= n;
	switch (how % 4) {
	case 1: return -EIO;
	case 2: return 0x052000; /* ILLEGAL REQUEST, invalid command: pre-MMC2 */
	case 3: return 0x023a00; /* NOT READY, medium not present */
	default: return 0;
	}
}

static void check_output(const char *out, int len)
{
	if (len < 0 || (size_t)len != strlen(out))
		abort();
	for (const char *l = out; *l; l = strchr(l, '\n') + 1) {
		const char *end = strchr(l, '\n');

		if (!end || strncmp(l, "ID_CDROM", 8) != 0 || !memchr(l, '=', (size_t)(end - l)))
			abort();
		for (const char *c = l; c < end; c++)
			if (*c < 0x20 || *c > 0x7e)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .p = data, .n = size };
	struct cdrom_drive d = { .capability = capability,
				 .drive_status = drive_status,
				 .scsi = scsi,
				 .u = &in };
	struct cdrom_info info;
	char out[4096], small[64];

	if (cdrom_probe(&d, &info) < 0)
		return 0;
	check_output(out, cdrom_format(&info, out, sizeof(out)));
	/* too small a buffer: refused, never cut */
	if (cdrom_format(&info, small, sizeof(small)) >= 0 ? strlen(small) >= sizeof(small)
							   : small[0] != '\0')
		abort();
	return 0;
}
