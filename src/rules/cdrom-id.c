/* SPDX-License-Identifier: MIT */
#include "rules/cdrom-id.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/cdrom.h>

/* the profiles cdrom_id names, sorted by number (its feature_to_string) */
static const struct {
	uint16_t id;
	const char *name;
} features[] = {
	{ 0x01, "RW_NONREMOVABLE" }, { 0x02, "RW_REMOVABLE" }, { 0x03, "MO_SE" },
	{ 0x04, "MO_WO" },           { 0x05, "MO_AS" },        { 0x08, "CD" },
	{ 0x09, "CD_R" },            { 0x0a, "CD_RW" },        { 0x10, "DVD" },
	{ 0x11, "DVD_R" },           { 0x12, "DVD_RAM" },      { 0x13, "DVD_RW_RO" },
	{ 0x14, "DVD_RW_SEQ" },      { 0x15, "DVD_R_DL_SEQ" }, { 0x16, "DVD_R_DL_JR" },
	{ 0x17, "DVD_RW_DL" },       { 0x18, "DVD_R_DDR" },    { 0x1a, "DVD_PLUS_RW" },
	{ 0x1b, "DVD_PLUS_R" },      { 0x20, "DDCD" },         { 0x21, "DDCD_R" },
	{ 0x22, "DDCD_RW" },         { 0x2a, "DVD_PLUS_RW_DL" }, { 0x2b, "DVD_PLUS_R_DL" },
	{ 0x40, "BD" },              { 0x41, "BD_R_SRM" },     { 0x42, "BD_R_RRM" },
	{ 0x43, "BD_RE" },           { 0x50, "HDDVD" },        { 0x51, "HDDVD_R" },
	{ 0x52, "HDDVD_RAM" },       { 0x53, "HDDVD_RW" },     { 0x58, "HDDVD_R_DL" },
	{ 0x5a, "HDDVD_RW_DL" },     { 0x5b, "MRW" },          { 0x5c, "MRW_W" },
};

enum {
	F_MO_SE = 0x03, F_MO_WO = 0x04, F_MO_AS = 0x05, F_CD_ROM = 0x08, F_CD_R = 0x09,
	F_CD_RW = 0x0a, F_DVD_ROM = 0x10, F_DVD_R = 0x11, F_DVD_RAM = 0x12, F_DVD_RW_RO = 0x13,
	F_DVD_RW_SEQ = 0x14, F_DVD_R_DL_SEQ = 0x15, F_DVD_R_DL_JR = 0x16, F_DVD_R_DDR = 0x18,
	F_DVD_PLUS_RW = 0x1a, F_DVD_PLUS_RW_DL = 0x2a, F_BD_R_SRM = 0x41, F_BD_R_RRM = 0x42,
	F_MRW = 0x5b, F_MRW_W = 0x5c,
};

enum { ST_BLANK, ST_APPENDABLE, ST_COMPLETE, ST_OTHER };

#define SK(e) (((e) >> 16) & 0xf)
#define ASC(e) (((e) >> 8) & 0xff)

#define FEATURES_BUF 65530 /* cdrom_id's GET CONFIGURATION buffer */
#define TOC_BUF 65536
#define DVD_BLOCKS 32

static const char *feature_name(int f)
{
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].id == f)
			return features[i].name;
	return NULL;
}

static bool has_feature(const struct cdrom_info *c, int f)
{
	for (size_t i = 0; i < c->nfeatures; i++)
		if (c->features[i] == f)
			return true;
	return false;
}

/* Only named profiles are kept: cdrom_id prints no other. */
static void add_feature(struct cdrom_info *c, int f)
{
	if (!feature_name(f) || has_feature(c, f) || c->nfeatures >= CDROM_FEATURES_MAX)
		return;
	c->features[c->nfeatures++] = (uint16_t)f;
}

static unsigned int be16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int scsi(const struct cdrom_drive *d, const uint8_t *cdb, size_t n, uint8_t *buf,
		size_t len)
{
	memset(buf, 0, len);
	return d->scsi(d->u, cdb, n, buf, len);
}

static void capability_compat(struct cdrom_info *c, int cap)
{
	static const struct {
		int cdc, feature;
	} map[] = {
		{ CDC_CD_R, F_CD_R },       { CDC_CD_RW, F_CD_RW }, { CDC_DVD, F_DVD_ROM },
		{ CDC_DVD_R, F_DVD_R },     { CDC_DVD_RAM, F_DVD_RAM }, { CDC_MRW, F_MRW },
		{ CDC_MRW_W, F_MRW_W },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (cap & map[i].cdc)
			add_feature(c, map[i].feature);
}

/* INQUIRY: an MMC unit (peripheral device type 5)? */
static bool is_mmc(const struct cdrom_drive *d)
{
	static const uint8_t cdb[6] = { 0x12, 0, 0, 0, 36, 0 };
	uint8_t inq[36];

	return scsi(d, cdb, sizeof(cdb), inq, sizeof(inq)) == 0 && (inq[0] & 0x1f) == 5;
}

/* Pre-MMC2 drives without GET CONFIGURATION: READ DISC INFORMATION. */
static int profiles_old_mmc(const struct cdrom_drive *d, struct cdrom_info *c)
{
	uint8_t cdb[10] = { 0x51, 0, 0, 0, 0, 0, 0, 0, 2, 0 };
	uint8_t info[sizeof(disc_information)];
	size_t len;
	int r = scsi(d, cdb, sizeof(cdb), info, 2);

	if (r == 0) {
		len = be16(info) + 2;
		if (len > sizeof(info))
			len = sizeof(info);
		cdb[8] = (uint8_t)len;
		r = scsi(d, cdb, sizeof(cdb), info, len);
	}
	if (r != 0) {
		if (!c->has_media)
			return -ENOMEDIUM;
		c->media_feature = F_CD_ROM;
		c->track_count = c->track_count_data = 1;
		return 1;
	}
	c->has_media = true;
	if (info[2] & 0x10) /* erasable */
		c->media_feature = F_CD_RW;
	else if ((info[2] & 3) < 2 && has_feature(c, F_CD_R))
		c->media_feature = F_CD_R;
	else
		c->media_feature = F_CD_ROM;
	return 0;
}

/* The profile list feature (0x0000) of a GET CONFIGURATION reply of len bytes. */
static void parse_features(struct cdrom_info *c, const uint8_t *buf, size_t len)
{
	for (size_t i = 8; i + 4 < len; i += 4 + (size_t)buf[i + 3]) {
		size_t n = buf[i + 3];

		if (be16(buf + i) != 0)
			continue;
		if (n > len - i - 4)
			n = len - i - 4;
		for (size_t j = 0; j + 4 <= n; j += 4)
			add_feature(c, (int)be16(buf + i + 4 + j));
	}
}

/* GET CONFIGURATION: the current profile and the drive's. >0: media, 0: none. */
static int profiles(const struct cdrom_drive *d, struct cdrom_info *c, uint8_t *buf)
{
	uint8_t cdb[10] = { 0x46, 0, 0, 0, 0, 0, 0, 0, 8, 0 };
	unsigned int cur;
	size_t len;
	int r;

	memset(buf, 0, FEATURES_BUF); /* the second reply may claim more than it wrote */
	r = scsi(d, cdb, sizeof(cdb), buf, 8);
	if (r > 0 && SK(r) == 5 && (ASC(r) == 0x20 || ASC(r) == 0x24))
		return profiles_old_mmc(d, c);
	if (r != 0)
		return r < 0 ? r : -EIO;
	cur = be16(buf + 6);
	c->has_media = cur > 0;
	if (cur > 0)
		c->media_feature = (int)cur;
	len = be32(buf);
	if (len > FEATURES_BUF || len <= 8)
		len = FEATURES_BUF;
	cdb[7] = (uint8_t)(len >> 8);
	cdb[8] = (uint8_t)len;
	r = scsi(d, cdb, sizeof(cdb), buf, len);
	if (r != 0)
		return r < 0 ? r : -EIO;
	len = be32(buf);
	if (len > FEATURES_BUF)
		len = FEATURES_BUF;
	parse_features(c, buf, len);
	return c->has_media;
}

/* READ TOC: data and audio tracks, and where the last session starts. */
static int media_toc(const struct cdrom_drive *d, struct cdrom_info *c, uint8_t *toc)
{
	uint8_t cdb[10] = { 0x43, 0, 0, 0, 0, 0, 1, 0, 12, 0 };
	uint8_t hdr[12];
	unsigned int tracks;
	size_t len;
	int r = scsi(d, cdb, sizeof(cdb), hdr, sizeof(hdr));

	if (r != 0)
		return -EIO;
	len = be16(hdr) + 2;
	if (len > TOC_BUF)
		return -EIO;
	if (len < 8) /* empty media has no tracks */
		return 0;
	/* cdrom_id's count wraps as an unsigned int does */
	tracks = (unsigned int)hdr[3] - hdr[2] + 1;
	cdb[6] = hdr[2];
	cdb[7] = (uint8_t)(len >> 8);
	cdb[8] = (uint8_t)len;
	if (scsi(d, cdb, sizeof(cdb), toc, len) != 0)
		return -EIO;
	for (size_t i = 4; i + 8 <= len && tracks > 0; i += 8, tracks--) {
		if (toc[i + 1] & 0x04)
			c->track_count_data++;
		else
			c->track_count_audio++;
	}
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x43;
	cdb[2] = 1; /* session info */
	cdb[8] = sizeof(hdr);
	if (scsi(d, cdb, sizeof(cdb), hdr, sizeof(hdr)) != 0)
		return -EIO;
	c->session_last_offset = (uint64_t)be32(hdr + 8) * 2048;
	return 0;
}

/* A write-protected or unformatted DVD-RAM: 1 when the state is known. */
static int dvd_ram_state(const struct cdrom_drive *d, struct cdrom_info *c)
{
	static const uint8_t scdb[12] = { 0xad, 0, 0, 0, 0, 0, 0, 0xc0, 0, 8, 0, 0 };
	static const uint8_t fcdb[10] = { 0x23, 0, 0, 0, 0, 0, 0, 0, 12, 0 };
	uint8_t st[8], fmt[12];

	if (c->media_feature != F_DVD_RAM)
		return 0;
	if (scsi(d, scdb, sizeof(scdb), st, sizeof(st)) != 0)
		return -EIO;
	if (st[4] & 0x02) {
		c->media_state = ST_COMPLETE;
		return 1;
	}
	if (scsi(d, fcdb, sizeof(fcdb), fmt, sizeof(fmt)) != 0)
		return -EIO;
	if ((fmt[3] & 7) || fmt[3] < 16)
		return -EINVAL;
	switch (fmt[8] & 3) {
	case 1: return 1;
	case 3: c->has_media = false; return -ENOMEDIUM;
	default: return 0;
	}
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Formatted rewritable media: blank unless blocks 0 or 16 hold data. */
static int dvd_state(const struct cdrom_drive *d, struct cdrom_info *c, uint8_t *buf)
{
	static const uint8_t cdb[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0, DVD_BLOCKS, 0 };
	int r = dvd_ram_state(d, c);

	if (r != 0)
		return r;
	if (scsi(d, cdb, sizeof(cdb), buf, DVD_BLOCKS * 2048) != 0) {
		c->has_media = false;
		return -EIO;
	}
	if (all_zero(buf + 16 * 2048, 2048) && all_zero(buf, 2048))
		c->media_state = ST_BLANK;
	return 0;
}

static bool rewritable(int f)
{
	return f == F_DVD_RW_RO || f == F_DVD_PLUS_RW || f == F_DVD_PLUS_RW_DL || f == F_DVD_RAM;
}

/* READ DISC INFORMATION: the media state, sessions and tracks. */
static int media_info(const struct cdrom_drive *d, struct cdrom_info *c, uint8_t *buf)
{
	static const uint8_t cdb[10] = { 0x51, 0, 0, 0, 0, 0, 0, 0, 32, 0 };
	uint8_t h[32];
	int state;

	if (scsi(d, cdb, sizeof(cdb), h, sizeof(h)) != 0)
		return -EIO;
	c->has_media = true;
	state = h[2] & 3;
	/* plain CD-ROMs: some fake drives say "blank" */
	if (c->media_feature != F_CD_ROM)
		c->media_state = state;
	if (c->media_feature == F_DVD_RW_RO && state == ST_APPENDABLE)
		c->media_state = ST_BLANK;
	if (rewritable(c->media_feature) && (state == ST_COMPLETE || state == ST_OTHER) &&
	    dvd_state(d, c, buf) < 0)
		return -EIO;
	if (c->media_feature != F_DVD_RW_RO && (state == ST_BLANK || state == ST_APPENDABLE))
		c->session_next = (unsigned int)h[10] << 8 | h[5];
	c->session_count = (unsigned int)h[9] << 8 | h[4];
	c->track_count = (unsigned int)h[11] << 8 | h[6];
	return 0;
}

int cdrom_probe(const struct cdrom_drive *d, struct cdrom_info *c)
{
	uint8_t *buf;
	int cap = d->capability(d->u);

	memset(c, 0, sizeof(*c));
	c->media_feature = c->media_state = -1;
	if (cap < 0)
		return cap;
	capability_compat(c, cap);
	c->has_media = d->drive_status(d->u) == CDS_DISC_OK;
	if (!is_mmc(d))
		return 0;
	/* one buffer for the largest replies: a features list, a TOC, 32 blocks */
	buf = malloc(DVD_BLOCKS * 2048);
	if (!buf)
		return -ENOMEM;
	if (profiles(d, c, buf) > 0) {
		(void)media_toc(d, c, buf);
		(void)media_info(d, c, buf);
	}
	free(buf);
	return 0;
}

struct out {
	char *p;
	size_t size, len;
	bool full;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->size - o->len)
		o->full = true;
	else
		o->len += (size_t)n;
}

static void put_feature(struct out *o, const char *prefix, int f)
{
	const char *name = feature_name(f);

	if (name)
		put(o, "%s_%s=1\n", prefix, name);
}

static bool any(const struct cdrom_info *c, int a, int b, int x)
{
	return has_feature(c, a) || has_feature(c, b) || (x >= 0 && has_feature(c, x));
}

static bool is(int f, int a, int b, int x)
{
	return f == a || f == b || (x >= 0 && f == x);
}

static void put_media(struct out *o, const struct cdrom_info *c)
{
	int f = c->media_feature;

	put(o, "ID_CDROM_MEDIA=1\n");
	put_feature(o, "ID_CDROM_MEDIA", f);
	if (is(f, F_MO_SE, F_MO_WO, F_MO_AS))
		put(o, "ID_CDROM_MEDIA_MO=1\n");
	if (is(f, F_DVD_RW_RO, F_DVD_RW_SEQ, -1))
		put(o, "ID_CDROM_MEDIA_DVD_RW=1\n");
	if (is(f, F_DVD_R_DL_SEQ, F_DVD_R_DL_JR, -1))
		put(o, "ID_CDROM_MEDIA_DVD_R_DL=1\n");
	if (f == F_DVD_R_DDR)
		put(o, "ID_CDROM_MEDIA_DVD_R=1\n");
	if (is(f, F_BD_R_SRM, F_BD_R_RRM, -1))
		put(o, "ID_CDROM_MEDIA_BD_R=1\n");
}

int cdrom_format(const struct cdrom_info *c, char *out, size_t size)
{
	static const char *const states[] = { "blank", "appendable", "complete", "other" };
	struct out o = { .p = out, .size = size, .full = size == 0 };

	put(&o, "ID_CDROM=1\n");
	for (size_t i = 0; i < c->nfeatures && i < CDROM_FEATURES_MAX; i++)
		put_feature(&o, "ID_CDROM", c->features[i]);
	if (any(c, F_MO_SE, F_MO_WO, F_MO_AS))
		put(&o, "ID_CDROM_MO=1\n");
	if (any(c, F_DVD_RW_RO, F_DVD_RW_SEQ, -1))
		put(&o, "ID_CDROM_DVD_RW=1\n");
	if (any(c, F_DVD_R_DL_SEQ, F_DVD_R_DL_JR, -1))
		put(&o, "ID_CDROM_DVD_R_DL=1\n");
	if (has_feature(c, F_DVD_R_DDR))
		put(&o, "ID_CDROM_DVD_R=1\n");
	if (any(c, F_BD_R_SRM, F_BD_R_RRM, -1))
		put(&o, "ID_CDROM_BD_R=1\n");
	if (c->has_media)
		put_media(&o, c);
	if (c->media_state >= 0 && c->media_state < 4)
		put(&o, "ID_CDROM_MEDIA_STATE=%s\n", states[c->media_state]);
	if (c->session_next > 0)
		put(&o, "ID_CDROM_MEDIA_SESSION_NEXT=%u\n", c->session_next);
	if (c->session_count > 0)
		put(&o, "ID_CDROM_MEDIA_SESSION_COUNT=%u\n", c->session_count);
	if (c->session_count > 1 && c->session_last_offset > 0)
		put(&o, "ID_CDROM_MEDIA_SESSION_LAST_OFFSET=%llu\n",
		    (unsigned long long)c->session_last_offset);
	if (c->track_count > 0)
		put(&o, "ID_CDROM_MEDIA_TRACK_COUNT=%u\n", c->track_count);
	if (c->track_count_audio > 0)
		put(&o, "ID_CDROM_MEDIA_TRACK_COUNT_AUDIO=%u\n", c->track_count_audio);
	if (c->track_count_data > 0)
		put(&o, "ID_CDROM_MEDIA_TRACK_COUNT_DATA=%u\n", c->track_count_data);
	if (o.full) {
		if (size)
			out[0] = '\0';
		return -ENOBUFS;
	}
	return (int)o.len;
}
