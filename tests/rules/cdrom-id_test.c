/* SPDX-License-Identifier: MIT */
/*
 * udev's cdrom_id as initdev runs it (src/rules/cdrom-id.c) on canned
 * drive replies: the order and shape of the commands, the properties as
 * udev 252's cdrom_id prints them for the drive QEMU emulates (an ATAPI
 * DVD-ROM with a one-track data CD: the stock boot's database lines in
 * tests/boot/live_test), a pre-MMC2 drive, and replies that lie about
 * their lengths and counts (bounded, never read past). The program's
 * entry point on nodes that are no CD drive.
 */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/cdrom.h>

#include "rules/cdrom-id.h"

struct reply {
	uint8_t opcode; /* what the command must be */
	int rc;         /* 0, -errno or a sense code */
	uint8_t data[64];
	size_t len;
};

struct script {
	int cap, status;
	const struct reply *r;
	size_t n, next;
	size_t max_len; /* the largest buffer offered */
};

static int cap(void *u)
{
	return ((struct script *)u)->cap;
}

static int status(void *u)
{
	return ((struct script *)u)->status;
}

static int scsi(void *u, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t len)
{
	struct script *s = u;
	const struct reply *r;

	ATF_REQUIRE(cdb_len >= 6);
	if (s->next >= s->n)
		return -EIO; /* more than scripted: the drive fails it */
	r = &s->r[s->next++];
	ATF_CHECK_EQ_MSG(cdb[0], r->opcode, "command %zu: 0x%02x, wanted 0x%02x", s->next, cdb[0],
			 r->opcode);
	if (len > s->max_len)
		s->max_len = len;
	memcpy(buf, r->data, r->len < len ? r->len : len);
	return r->rc;
}

static int probe(struct script *s, char *out, size_t size)
{
	struct cdrom_drive d = { .capability = cap, .drive_status = status, .scsi = scsi, .u = s };
	struct cdrom_info info;
	int r = cdrom_probe(&d, &info);

	if (r < 0)
		return r;
	return cdrom_format(&info, out, size);
}

#define INQ_MMC                      \
	{                            \
		0x12, 0, { 0x05 }, 1 \
	}

/* QEMU's ATAPI DVD-ROM holding a data CD (an ISO), as a real drive answers */
static const struct reply qemu_cd[] = {
	INQ_MMC,
	/*
	 * GET CONFIGURATION: QEMU's data length (16: the bytes after the length
	 * field) read as the whole reply's, as cdrom_id reads it, cuts the
	 * profile list after its first entry: udev sees DVD-ROM, not CD-ROM
	 */
	{ 0x46, 0, { 0, 0, 0, 0x10, 0, 0, 0x00, 0x08 }, 8 },
	/* the profile list feature: DVD-ROM (current flag clear), CD-ROM (current) */
	{ 0x46,
	  0,
	  { 0,    0,    0,    0x10, 0,    0,    0x00, 0x08, 0x00, 0x00,
	    0x03, 0x08, 0x00, 0x10, 0x00, 0x00, 0x00, 0x08, 0x01, 0x00 },
	  20 },
	/* READ TOC: 18 bytes follow, tracks 1..1 */
	{ 0x43, 0, { 0, 0x12, 1, 1 }, 4 },
	{ 0x43,
	  0,
	  { 0, 0x12, 1, 1, 0, 0x14, 1, 0, 0, 0, 0, 0, 0, 0x16, 0xaa, 0, 0, 0, 0x10, 0 },
	  20 },
	/* session info: last session's first track at block 0 */
	{ 0x43, 0, { 0, 0x0a, 1, 1, 0, 0x14, 1, 0, 0, 0, 0, 0 }, 12 },
	/* READ DISC INFORMATION: complete, 1 session, 1 track */
	{ 0x51, 0, { 0, 0x20, 0x0e, 1, 1, 1, 1 }, 7 },
};

ATF_TC_WITHOUT_HEAD(qemu_data_cd_as_udev);
ATF_TC_BODY(qemu_data_cd_as_udev, tc)
{
	struct script s = { .cap = CDC_DVD | CDC_PLAY_AUDIO,
			    .status = CDS_DISC_OK,
			    .r = qemu_cd,
			    .n = sizeof(qemu_cd) / sizeof(qemu_cd[0]) };
	char out[1024];

	ATF_REQUIRE(probe(&s, out, sizeof(out)) > 0);
	ATF_CHECK_STREQ(out, "ID_CDROM=1\n"
			     "ID_CDROM_DVD=1\n"
			     "ID_CDROM_MEDIA=1\n"
			     "ID_CDROM_MEDIA_CD=1\n"
			     "ID_CDROM_MEDIA_SESSION_COUNT=1\n"
			     "ID_CDROM_MEDIA_TRACK_COUNT=1\n"
			     "ID_CDROM_MEDIA_TRACK_COUNT_DATA=1\n");
	ATF_CHECK_EQ(s.next, s.n);
}

ATF_TC_WITHOUT_HEAD(empty_drive_no_media);
ATF_TC_BODY(empty_drive_no_media, tc)
{
	static const struct reply r[] = {
		INQ_MMC,
		{ 0x46, 0, { 0, 0, 0, 0x0c }, 8 }, /* no current profile */
		{ 0x46, 0, { 0, 0, 0, 0x0c, 0, 0, 0, 0, 0, 0, 0x03, 0x04, 0, 0x10, 0, 0 }, 16 },
	};
	struct script s = { .cap = CDC_DVD, .status = CDS_NO_DISC, .r = r, .n = 3 };
	char out[1024];

	ATF_REQUIRE(probe(&s, out, sizeof(out)) > 0);
	ATF_CHECK_STREQ(out, "ID_CDROM=1\nID_CDROM_DVD=1\n");
	ATF_CHECK_EQ(s.next, 3); /* no TOC, no disc information asked */
}

ATF_TC_WITHOUT_HEAD(pre_mmc2_reads_disc_info);
ATF_TC_BODY(pre_mmc2_reads_disc_info, tc)
{
	static const struct reply r[] = {
		INQ_MMC,
		{ 0x46, 0x052000, { 0 }, 0 }, /* ILLEGAL REQUEST: no GET CONFIGURATION */
		{ 0x51, 0, { 0, 0x20 }, 2 },
		{ 0x51, 0, { 0, 0x20, 0x10 }, 3 }, /* erasable */
	};
	struct script s = { .cap = CDC_CD_R | CDC_CD_RW, .status = CDS_DISC_OK, .r = r, .n = 4 };
	char out[1024];

	ATF_REQUIRE(probe(&s, out, sizeof(out)) > 0);
	ATF_CHECK_STREQ(out, "ID_CDROM=1\nID_CDROM_CD_R=1\nID_CDROM_CD_RW=1\n"
			     "ID_CDROM_MEDIA=1\nID_CDROM_MEDIA_CD_RW=1\n");
}

/* Replies that lie: lengths past the buffers, a descriptor running past the
 * reply, a track range that wraps, unknown profiles. */
ATF_TC_WITHOUT_HEAD(lying_replies_bounded);
ATF_TC_BODY(lying_replies_bounded, tc)
{
	static const struct reply r[] = {
		INQ_MMC,
		{ 0x46, 0, { 0xff, 0xff, 0xff, 0xff, 0, 0, 0x12, 0x34 }, 8 },
		/* a profile list of 252 bytes in a 16-byte reply: the rest reads as zero */
		{ 0x46,
		  0,
		  { 0, 0, 0, 0x10, 0, 0, 0x12, 0x34, 0, 0, 0x03, 0xfc, 0x00, 0x40, 0, 0 },
		  16 },
		/* READ TOC: 0xffff + 2 bytes (more than the buffer): refused */
		{ 0x43, 0, { 0xff, 0xff, 9, 1 }, 4 },
		{ 0x51, 0, { 0, 0x20, 0x01, 0, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff, 0xff }, 12 },
	};
	struct script s = { .cap = 0, .status = CDS_DISC_OK, .r = r, .n = 5 };
	char out[1024];

	ATF_REQUIRE(probe(&s, out, sizeof(out)) > 0);
	/* 0x1234 is no profile udev names: no ID_CDROM_MEDIA_ name line */
	ATF_CHECK_STREQ(out, "ID_CDROM=1\nID_CDROM_BD=1\nID_CDROM_MEDIA=1\n"
			     "ID_CDROM_MEDIA_STATE=appendable\n"
			     "ID_CDROM_MEDIA_SESSION_NEXT=65535\n"
			     "ID_CDROM_MEDIA_SESSION_COUNT=65535\n"
			     "ID_CDROM_MEDIA_TRACK_COUNT=65535\n");
	ATF_CHECK(s.max_len <= 65536);
	ATF_CHECK_EQ(s.next, 5); /* the second READ TOC was never sent */
}

/* a TOC whose track range wraps (first 9, last 1): the count stops at its length */
ATF_TC_WITHOUT_HEAD(wrapping_track_range_stops_at_length);
ATF_TC_BODY(wrapping_track_range_stops_at_length, tc)
{
	struct reply r[8];
	struct script s = { .cap = CDC_DVD, .status = CDS_DISC_OK, .r = r, .n = 7 };
	char out[1024];

	memcpy(r, qemu_cd, sizeof(qemu_cd));
	r[3].data[2] = 9;    /* first track 9, last 1: (1 - 9 + 1) wraps */
	r[3].data[1] = 0x1a; /* 28 bytes: three descriptors (the third all zero) */
	ATF_REQUIRE(probe(&s, out, sizeof(out)) > 0);
	ATF_CHECK(strstr(out, "ID_CDROM_MEDIA_TRACK_COUNT_DATA=2\n") != NULL);
	ATF_CHECK(strstr(out, "ID_CDROM_MEDIA_TRACK_COUNT_AUDIO=1\n") != NULL);
}

ATF_TC_WITHOUT_HEAD(no_cd_drive_fails);
ATF_TC_BODY(no_cd_drive_fails, tc)
{
	struct script s = { .cap = -ENOTTY };
	char out[64];
	char *argv[] = { (char *)"cdrom_id", (char *)"--lock-media", (char *)"/dev/null", NULL };
	char *bad[] = { (char *)"cdrom_id", (char *)"--frobnicate", (char *)"/dev/null", NULL };
	char *two[] = { (char *)"cdrom_id", (char *)"/dev/null", (char *)"/dev/zero", NULL };

	ATF_CHECK_EQ(probe(&s, out, sizeof(out)), -ENOTTY);
	/* /dev/null is no CD drive (CDROM_GET_CAPABILITY fails): exit 1, nothing printed */
	strcpy(out, "x");
	ATF_CHECK_EQ(rules_cdrom_id_program("/dev/null", 3, argv, out, sizeof(out)), 1);
	ATF_CHECK_STREQ(out, "");
	ATF_CHECK_EQ(rules_cdrom_id_program("/dev/null", 3, bad, out, sizeof(out)), 1);
	ATF_CHECK_EQ(rules_cdrom_id_program("/dev/null", 3, two, out, sizeof(out)), 1);
	ATF_CHECK_EQ(rules_cdrom_id_program("/nonexistent/sr0", 3, argv, out, sizeof(out)), 1);
}

ATF_TC_WITHOUT_HEAD(format_refuses_small_buffer);
ATF_TC_BODY(format_refuses_small_buffer, tc)
{
	struct script s = { .cap = CDC_DVD | CDC_PLAY_AUDIO,
			    .status = CDS_DISC_OK,
			    .r = qemu_cd,
			    .n = sizeof(qemu_cd) / sizeof(qemu_cd[0]) };
	char out[40];

	ATF_CHECK_EQ(probe(&s, out, sizeof(out)), -ENOBUFS);
	ATF_CHECK_STREQ(out, "");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, qemu_data_cd_as_udev);
	ATF_TP_ADD_TC(tp, empty_drive_no_media);
	ATF_TP_ADD_TC(tp, pre_mmc2_reads_disc_info);
	ATF_TP_ADD_TC(tp, lying_replies_bounded);
	ATF_TP_ADD_TC(tp, wrapping_track_range_stops_at_length);
	ATF_TP_ADD_TC(tp, no_cd_drive_fails);
	ATF_TP_ADD_TC(tp, format_refuses_small_buffer);
	return atf_no_error();
}
