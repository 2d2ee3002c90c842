/* SPDX-License-Identifier: MIT */
/* The real drive behind rules/cdrom-id.h: its node's ioctls and SG_IO. */
#include "rules/cdrom-id.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/cdrom.h>
#include <scsi/sg.h>

#define SG_TIMEOUT_MS 10000 /* per command: the call runs on a worker, unkillable */
#define OPEN_TRIES 20

static int capability(void *u)
{
	int r = ioctl(*(int *)u, CDROM_GET_CAPABILITY, NULL);

	return r < 0 ? -errno : r;
}

static int drive_status(void *u)
{
	int r = ioctl(*(int *)u, CDROM_DRIVE_STATUS, CDSL_CURRENT);

	return r < 0 ? -errno : r;
}

static int sg(void *u, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len)
{
	unsigned char cmd[16] = { 0 }, sense[18] = { 0 };
	struct sg_io_hdr io = {
		.interface_id = 'S',
		.cmd_len = (unsigned char)cdb_len,
		.cmdp = cmd,
		.mx_sb_len = sizeof(sense),
		.sbp = sense,
		.dxfer_direction = len ? SG_DXFER_FROM_DEV : SG_DXFER_NONE,
		.dxferp = buf,
		.dxfer_len = (unsigned int)len,
		.timeout = SG_TIMEOUT_MS,
		.flags = SG_FLAG_LUN_INHIBIT | SG_FLAG_DIRECT_IO,
	};
	int code;

	if (cdb_len > sizeof(cmd))
		return -EINVAL;
	memcpy(cmd, cdb, cdb_len);
	if (ioctl(*(int *)u, SG_IO, &io) < 0)
		return -errno;
	if ((io.info & SG_INFO_OK_MASK) == SG_INFO_OK)
		return 0;
	code = (sense[2] & 0x0f) << 16 | sense[12] << 8 | sense[13];
	return (io.masked_status & 0x01) && code ? code : -EIO;
}

static void lock_media(int fd, bool lock)
{
	(void)ioctl(fd, CDROM_CLEAR_OPTIONS, CDO_LOCK); /* the kernel's own lock logic off */
	(void)ioctl(fd, CDROM_LOCKDOOR, lock ? 1 : 0);
}

static void eject(int fd)
{
	static const uint8_t cdb[6] = { 0x1b, 0, 0, 0, 0x02, 0 }; /* START STOP UNIT: eject */

	lock_media(fd, false);
	(void)sg(&fd, cdb, sizeof(cdb), NULL, 0);
}

/* cdrom_id's open: a drive busy with another opener is tried again. */
static int open_drive(const char *devnode)
{
	for (int i = 0;; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 + (i % 10) * 10 * 1000 * 1000 };
		int fd = open(devnode, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);

		if (fd >= 0 || errno != EBUSY || i + 1 >= OPEN_TRIES)
			return fd < 0 ? -errno : fd;
		nanosleep(&ts, NULL);
	}
}

int rules_cdrom_id_program(const char *devnode, int argc, char **argv, char *out, size_t size)
{
	bool lock = false, unlock = false, ej = false;
	int ndev = 0, fd, r;
	struct cdrom_info info;
	struct cdrom_drive d = { .capability = capability,
				 .drive_status = drive_status,
				 .scsi = sg };

	if (size)
		out[0] = '\0';
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--lock-media") || !strcmp(a, "-l"))
			lock = true;
		else if (!strcmp(a, "--unlock-media") || !strcmp(a, "-u"))
			unlock = true;
		else if (!strcmp(a, "--eject-media") || !strcmp(a, "-e"))
			ej = true;
		else if (!strcmp(a, "--debug") || !strcmp(a, "-d"))
			continue;
		else if (a[0] == '-')
			return 1; /* cdrom_id: unknown option */
		else
			ndev++;
	}
	if (ndev != 1)
		return 1; /* cdrom_id: "Need exactly one DEVICE argument." */
	fd = open_drive(devnode);
	if (fd < 0)
		return 1;
	d.u = &fd;
	r = cdrom_probe(&d, &info);
	if (r >= 0) {
		if (lock && info.has_media)
			lock_media(fd, true);
		if (unlock && info.has_media)
			lock_media(fd, false);
		if (ej)
			eject(fd);
		r = cdrom_format(&info, out, size);
	}
	close(fd);
	return r < 0 ? 1 : 0;
}
