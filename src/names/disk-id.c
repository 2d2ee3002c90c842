/* SPDX-License-Identifier: MIT */
/*
 * by-id names: the by-id lines of udev 252's 60-persistent-storage.rules in
 * order, with the property values its helpers would have produced rebuilt
 * from sysfs. Rewritten from reading the rules, usb_id, ata_id and scsi_id;
 * the QEMU layouts under tests/fixtures/sysfs were compared with real udev.
 */
#include "names/disk-id.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sysdev.h"
#include "names/udev-string.h"

/* The udev properties the by-id lines read; "" means unset. */
struct ids {
	const struct sysdev_root *root;
	const char *dev;
	char name[SYSDEV_NAME_MAX];
	char bus[16];                       /* ID_BUS */
	char serial[USTR_VALUE_MAX];        /* ID_SERIAL */
	char usb_serial[USTR_VALUE_MAX];    /* ID_USB_SERIAL */
	char wwn[80];                       /* ID_WWN_WITH_EXTENSION */
	bool unknown;                       /* ata_id would have run, we cannot */
	char (*names)[PATH_ID_NAME_MAX];
	size_t n, max;
};

static void add(struct ids *x, const char *prefix, const char *value,
		bool replace_mode)
{
	path_id_add_link(x->names, &x->n, x->max, prefix, value, "", replace_mode);
}

static int attr(const struct ids *x, const char *devpath, const char *name,
		char out[SYSDEV_ATTR_MAX + 1])
{
	return sysdev_attr(x->root, devpath, name, out, SYSDEV_ATTR_MAX + 1);
}

/* ATTR{name}=="?*" / ATTRS{name}=="?*": non-empty less trailing whitespace. */
static bool attr_set(const struct ids *x, const char *devpath, const char *name)
{
	char v[SYSDEV_ATTR_MAX + 1];
	int r = attr(x, devpath, name, v);

	if (r < 0 && r != -EFBIG)
		return false;
	v[USTR_VALUE_MAX - 1] = '\0';  /* udev matches a 511-byte copy */
	ustr_trim_trailing(v);
	return v[0] != '\0';
}

/*
 * The device an ATTRS{name}=="?*" key matches (with ATTRS{name2}=="?*" and
 * SUBSYSTEMS==subsystem on the same device, if given): the device itself or
 * its nearest such ancestor.
 */
static int attrs_match(const struct ids *x, const char *name, const char *name2,
		       const char *subsystem, char out[SYSDEV_PATH_MAX])
{
	strcpy(out, x->dev);
	do {
		if ((!subsystem || sysdev_subsystem_is(x->root, out, subsystem)) &&
		    attr_set(x, out, name) && (!name2 || attr_set(x, out, name2)))
			return 0;
	} while (sysdev_parent(x->root, out, out, SYSDEV_PATH_MAX) == 0);
	return -ENOENT;
}

/* $attr{name}: the device's own attribute if it has one, else matched's. */
static int attr_subst(const struct ids *x, const char *matched, const char *name,
		      char out[USTR_VALUE_MAX])
{
	char v[SYSDEV_ATTR_MAX + 1];
	int r = attr(x, x->dev, name, v);

	if (r == -ENOENT && matched)
		r = attr(x, matched, name, v);
	if (r == -EFBIG)
		return -E2BIG;
	if (r < 0) {
		out[0] = '\0';
		return 0;
	}
	return ustr_attr_subst(v, out);
}

/*
 * ATTRS{name}=="?*", ENV{X}="$attr{name}": X into out ("" when the key does
 * not match or udev refuses the over-long value).
 */
static void env_from_attrs(const struct ids *x, const char *name, const char *subsystem,
			   char out[USTR_VALUE_MAX])
{
	char m[SYSDEV_PATH_MAX];

	out[0] = '\0';
	if (attrs_match(x, name, NULL, subsystem, m) == 0 && attr_subst(x, m, name, out) < 0)
		out[0] = '\0';
}

/* ENV{X}="a_b[_c]" under string_escape=replace; udev keeps the old X if too long. */
static void env_join_replace(char dst[USTR_VALUE_MAX], const char *a, const char *b,
			     const char *c)
{
	char v[USTR_VALUE_MAX];
	int n = c ? snprintf(v, sizeof(v), "%s_%s_%s", a, b, c)
		  : snprintf(v, sizeof(v), "%s_%s", a, b);

	if (n < 0 || (size_t)n >= sizeof(v))
		return;
	ustr_replace_chars(v, NULL);
	strcpy(dst, v);
}

static void nvme_ids(struct ids *x)
{
	char v[USTR_VALUE_MAX], model[USTR_VALUE_MAX], sn[USTR_VALUE_MAX], nsid[USTR_VALUE_MAX];

	/* KERNEL=="nvme*[0-9]n*[0-9]", ATTR{wwid}=="?*" (the disk's own) */
	if (attr_set(x, x->dev, "wwid")) {
		if (attr_subst(x, NULL, "wwid", v) < 0)
			v[0] = '\0';
		add(x, "nvme-", v, false);
	}
	env_from_attrs(x, "serial", NULL, sn);
	env_from_attrs(x, "model", NULL, model);
	env_from_attrs(x, "nsid", NULL, nsid);
	if (!model[0] || !sn[0])
		return;
	/* two lines: "<model>_<serial>" (obsolete), then with "_<nsid>" */
	env_join_replace(x->serial, model, sn, NULL);
	add(x, "nvme-", x->serial, true);
	if (!nsid[0])
		return;
	env_join_replace(x->serial, model, sn, nsid);
	add(x, "nvme-", x->serial, true);
}

/* SYMLINK "<prefix>$env{A}<sep>$env{B}": two substitutions, each squeezed. */
static void add_pair(struct ids *x, const char *prefix, const char *a, const char *sep,
		     const char *b)
{
	char buf[PATH_ID_MAX] = "";

	if (ustr_append_literal(buf, sizeof(buf), prefix) == 0 &&
	    ustr_append_subst(buf, sizeof(buf), a) == 0 &&
	    ustr_append_literal(buf, sizeof(buf), sep) == 0)
		path_id_add_link(x->names, &x->n, x->max, buf, b, "", false);
}

/* mmcblkN: ID_SERIAL and ID_NAME from SUBSYSTEMS=="mmc" lines of their own. */
static void mmc_ids(struct ids *x)
{
	char nm[USTR_VALUE_MAX], sn[USTR_VALUE_MAX];

	env_from_attrs(x, "serial", "mmc", sn);
	env_from_attrs(x, "name", "mmc", nm);
	if (nm[0] && sn[0])
		add_pair(x, "mmc-", nm, "_", sn);
}

/* msblkN: one line, both attributes on one memstick device. */
static void memstick_ids(struct ids *x)
{
	char m[SYSDEV_PATH_MAX], nm[USTR_VALUE_MAX], sn[USTR_VALUE_MAX];

	if (attrs_match(x, "name", "serial", "memstick", m) < 0)
		return;
	if (attr_subst(x, m, "name", nm) < 0)
		nm[0] = '\0';
	if (attr_subst(x, m, "serial", sn) < 0)
		sn[0] = '\0';
	add_pair(x, "memstick-", nm, "_", sn);
}

/* ---- ata_id: IDENTIFY data as libata keeps it in sysfs ---- */

struct identify {
	uint16_t w[256];
};

static bool parse_identify(const char *text, struct identify *id)
{
	const char *p = text;

	for (size_t i = 0; i < 256; i++) {
		char *end;
		unsigned long v;

		p += strspn(p, " \n");
		if (strspn(p, "0123456789abcdefABCDEF") != 4)
			return false;
		v = strtoul(p, &end, 16);
		id->w[i] = (uint16_t)v;
		p = end;
	}
	return p[strspn(p, " \n")] == '\0';
}

/* libata's ata_device of the scsi_device at sdev (see libata-transport). */
static int find_identify(const struct ids *x, const char *sdev, struct identify *id)
{
	char host[SYSDEV_PATH_MAX], port[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX];
	char dir[SYSDEV_PATH_MAX + 128], text[SYSDEV_ATTR_MAX + 1];
	unsigned int h, c, t, l, n;
	int fd;

	sysdev_sysname(sdev, name);
	if (sscanf(name, "%u:%u:%u:%u", &h, &c, &t, &l) != 4 ||
	    sysdev_find_parent(x->root, sdev, "scsi", "scsi_host", host, sizeof(host)) < 0 ||
	    sysdev_parent(x->root, host, port, sizeof(port)) < 0)
		return -ENOENT;
	sysdev_sysname(port, name);
	if (sscanf(name, "ata%u", &n) != 1)
		return -ENOENT;
	/* behind a port multiplier the SCSI channel is the PMP port */
	snprintf(dir, sizeof(dir), "%s/link%u.%u", port, n, c);
	fd = sysdev_open_dir(x->root, dir);
	if (fd >= 0) {
		close(fd);
		snprintf(dir, sizeof(dir), "%s/link%u.%u/dev%u.%u.0/ata_device/dev%u.%u.0",
			 port, n, c, n, c, n, c);
	} else if (c == 0) {
		snprintf(dir, sizeof(dir), "%s/link%u/dev%u.%u/ata_device/dev%u.%u",
			 port, n, n, t, n, t);
	} else {
		return -ENOENT;
	}
	if (strlen(dir) >= SYSDEV_PATH_MAX || attr(x, dir, "id", text) < 0)
		return -ENOENT;
	return parse_identify(text, id) ? 0 : -EINVAL;
}

/* words first..first+len/2 as ATA strings are stored: high byte first */
static void identify_string(const struct identify *id, size_t first, size_t len, char *out)
{
	for (size_t i = 0; i < len / 2; i++) {
		out[2 * i] = (char)(id->w[first + i] >> 8);
		out[2 * i + 1] = (char)(id->w[first + i] & 0xff);
	}
	out[len] = '\0';
}

/* What ata_id --export would print, as far as names go. */
static bool ata_id(struct ids *x, const char *sdev)
{
	struct identify id;
	char raw[41], model[41], serial[21];

	if (find_identify(x, sdev, &id) < 0)
		return false;
	identify_string(&id, 27, 40, raw);
	ustr_replace_whitespace(raw, model, 40);
	ustr_replace_chars(model, NULL);
	identify_string(&id, 10, 20, raw);
	ustr_replace_whitespace(raw, serial, 20);
	ustr_replace_chars(serial, NULL);
	strcpy(x->bus, "ata");
	/* an empty ID_SERIAL= line is not imported */
	if (serial[0])
		snprintf(x->serial, sizeof(x->serial), "%s_%s", model, serial);
	else
		snprintf(x->serial, sizeof(x->serial), "%s", model);
	if ((id.w[108] & 0xf000) == 0x5000)
		snprintf(x->wwn, sizeof(x->wwn), "0x%" PRIx64,
			 (uint64_t)id.w[108] << 48 | (uint64_t)id.w[109] << 32 |
				 (uint64_t)id.w[110] << 16 | id.w[111]);
	return true;
}

/* ---- usb_id ---- */

/* USB's own strings: whitespace squeezed to '_', odd bytes to '_' (len max). */
static void usb_clean(const char *in, char *out, size_t len)
{
	ustr_replace_whitespace(in, out, len);
	ustr_replace_chars(out, NULL);
}

struct usb_strings {
	char vendor[64], model[64], serial[USTR_VALUE_MAX], instance[32];
};

/* Mass storage speaking SCSI or ATAPI: vendor/model of the SCSI device. */
static void usb_scsi_strings(const struct ids *x, struct usb_strings *u)
{
	char sdev[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX], v[SYSDEV_ATTR_MAX + 1];
	int hctl[4];

	if (sysdev_find_parent(x->root, x->dev, "scsi", "scsi_device", sdev, sizeof(sdev)) < 0)
		return;
	sysdev_sysname(sdev, name);
	if (sscanf(name, "%d:%d:%d:%d", &hctl[0], &hctl[1], &hctl[2], &hctl[3]) != 4)
		return;
	/* each step fills what it can; a missing attribute ends it early */
	if (attr(x, sdev, "vendor", v) < 0)
		return;
	usb_clean(v, u->vendor, sizeof(u->vendor) - 1);
	if (attr(x, sdev, "model", v) < 0)
		return;
	usb_clean(v, u->model, sizeof(u->model) - 1);
	if (attr(x, sdev, "type", v) < 0 || attr(x, sdev, "rev", v) < 0)
		return;
	/* broken devices share identifiers across LUNs: add target:lun */
	snprintf(u->instance, sizeof(u->instance), "%d:%d", hctl[2], hctl[3]);
}

/* The USB device's serial, unless it has bytes Windows would not accept. */
static void usb_serial(const struct ids *x, const char *usbdev, struct usb_strings *u)
{
	char v[SYSDEV_ATTR_MAX + 1];

	if (attr(x, usbdev, "serial", v) < 0)
		return;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p > 0x7f || *p == ',')
			return;
	usb_clean(v, u->serial, sizeof(u->serial) - 1);
}

/* One of the USB strings, falling back to an attribute or the raw id. */
static void usb_fallback(const struct ids *x, const char *usbdev, const char *name,
			 const char *id, char *out, size_t size)
{
	char v[SYSDEV_ATTR_MAX + 1];

	if (out[0])
		return;
	usb_clean(attr(x, usbdev, name, v) < 0 ? id : v, out, size - 1);
}

/* What the usb_id builtin sets; false when it fails (no properties then). */
static bool usb_id(struct ids *x)
{
	char intf[SYSDEV_PATH_MAX], usbdev[SYSDEV_PATH_MAX], v[SYSDEV_ATTR_MAX + 1];
	char vid[SYSDEV_ATTR_MAX + 1], pid[SYSDEV_ATTR_MAX + 1], id[sizeof(struct usb_strings) + 8];
	struct usb_strings u = { 0 };
	long cls, protocol = 0;

	if (sysdev_find_parent(x->root, x->dev, "usb", "usb_interface", intf, sizeof(intf)) < 0 ||
	    attr(x, intf, "bInterfaceClass", v) < 0 || !ustr_parse_int(v, 16, &cls) || cls < 0)
		return false;
	if (cls == 8 && attr(x, intf, "bInterfaceSubClass", v) >= 0 && !ustr_parse_int(v, 0, &protocol))
		protocol = 0;
	if (sysdev_find_parent(x->root, intf, "usb", "usb_device", usbdev, sizeof(usbdev)) < 0)
		return false;
	if (cls == 8 && (protocol == 6 || protocol == 2))
		usb_scsi_strings(x, &u);
	if (attr(x, usbdev, "idVendor", vid) < 0 || attr(x, usbdev, "idProduct", pid) < 0)
		return false;
	usb_fallback(x, usbdev, "manufacturer", vid, u.vendor, sizeof(u.vendor));
	usb_fallback(x, usbdev, "product", pid, u.model, sizeof(u.model));
	usb_serial(x, usbdev, &u);
	/* "<vendor>_<model>[_<serial>][-<instance>]", cut to udev's 255 bytes */
	snprintf(id, sizeof(id), "%s_%s%s%s%s%s", u.vendor, u.model,
		 u.serial[0] ? "_" : "", u.serial, u.instance[0] ? "-" : "", u.instance);
	id[PATH_ID_NAME_MAX - 1] = '\0';
	strcpy(x->usb_serial, id);
	if (!x->bus[0]) {
		strcpy(x->bus, "usb");
		strcpy(x->serial, id);
	}
	return true;
}

/* ---- scsi_id: VPD pages as the kernel cached them ---- */

#define SCSI_INQ_LEN 254      /* scsi_id's INQUIRY allocation length */
#define SCSI_SERIAL_MAX 256   /* scsi_id's serial buffer */

enum { ID_VENDOR_SPECIFIC = 0, ID_T10 = 1, ID_EUI64 = 2, ID_NAA = 3, ID_TGTGROUP = 5 };
enum { CODE_BINARY = 1, CODE_ASCII = 2 };
#define NAA_ANY 0xff

/* scsi_id's order of preference among page 0x83 descriptors */
static const struct {
	unsigned char type, naa, code;
} id_search[] = {
	{ ID_TGTGROUP, NAA_ANY, CODE_BINARY },
	{ ID_NAA, 6, CODE_BINARY }, { ID_NAA, 6, CODE_ASCII },
	{ ID_NAA, 5, CODE_BINARY }, { ID_NAA, 5, CODE_ASCII },
	{ ID_NAA, NAA_ANY, CODE_BINARY }, { ID_NAA, NAA_ANY, CODE_ASCII },
	{ ID_EUI64, NAA_ANY, CODE_BINARY }, { ID_EUI64, NAA_ANY, CODE_ASCII },
	{ ID_T10, NAA_ANY, CODE_BINARY }, { ID_T10, NAA_ANY, CODE_ASCII },
	{ ID_VENDOR_SPECIFIC, NAA_ANY, CODE_BINARY }, { ID_VENDOR_SPECIFIC, NAA_ANY, CODE_ASCII },
};

struct scsi_dev {
	char vendor[SYSDEV_ATTR_MAX + 1];  /* INQUIRY vendor (8 bytes when well formed) */
	char model[SYSDEV_ATTR_MAX + 1];   /* INQUIRY product (16) */
	char serial[SCSI_SERIAL_MAX + 64];
	char wwn[17], wwn_ext[17];
};

static const char hexdig[] = "0123456789abcdef";

static void hex_append(char *out, size_t *j, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out[(*j)++] = hexdig[b[i] >> 4];
		out[(*j)++] = hexdig[b[i] & 15];
	}
	out[*j] = '\0';
}

/* "<vendor 8><model 16>" only when both are full length, as scsi_id demands */
static bool append_vendor_model(const struct scsi_dev *s, char *out, size_t *j)
{
	if (strlen(s->vendor) != 8 || strlen(s->model) != 16)
		return false;
	memcpy(out + *j, s->vendor, 8);
	memcpy(out + *j + 8, s->model, 16);
	*j += 24;
	out[*j] = '\0';
	return true;
}

/*
 * One descriptor d against one search entry; room is what is left of the
 * 254-byte buffer (scsi_id would read past it: no match then).
 */
static bool fill_from_desc(struct scsi_dev *s, const unsigned char *d, size_t room, size_t e)
{
	size_t len, j = 1, start;

	if ((size_t)d[3] + 4 > room || room < 5)
		return false;
	if ((d[1] & 0x30) == 0x10 ? id_search[e].type != ID_TGTGROUP : (d[1] & 0x30) != 0)
		return false;
	if ((d[1] & 0x0f) != id_search[e].type || (d[0] & 0x0f) != id_search[e].code)
		return false;
	if (id_search[e].naa != NAA_ANY && id_search[e].naa != d[4] >> 4)
		return false;
	len = (size_t)d[3] * (id_search[e].code == CODE_ASCII ? 1 : 2) + 2;
	if (id_search[e].type == ID_VENDOR_SPECIFIC)
		len += 24;
	/* target port groups only report the group; they never name a disk */
	if (len > SCSI_SERIAL_MAX || id_search[e].type == ID_TGTGROUP)
		return false;
	memset(s->serial, 0, sizeof(s->serial));
	s->serial[0] = hexdig[id_search[e].type];
	if (id_search[e].type == ID_VENDOR_SPECIFIC && !append_vendor_model(s, s->serial, &j))
		return false;
	start = j;
	if (id_search[e].code == CODE_ASCII)
		memcpy(s->serial + j, d + 4, d[3]);  /* a NUL in it ends the string */
	else
		hex_append(s->serial, &j, d + 4, d[3]);
	if (id_search[e].type == ID_NAA) {
		snprintf(s->wwn, sizeof(s->wwn), "%.16s", s->serial + start);
		snprintf(s->wwn_ext, sizeof(s->wwn_ext), "%.16s",
			 strlen(s->serial + start) > 16 ? s->serial + start + 16 : "");
	}
	return true;
}

/* Page 0x83 in its SCSI-2 (EMC) form: the whole payload as one hex NAA id. */
static void fill_prespc3(struct scsi_dev *s, const unsigned char *p)
{
	size_t j = 1;

	memset(s->serial, 0, sizeof(s->serial));
	s->serial[0] = hexdig[ID_NAA];
	for (size_t i = 0; i < p[3] && j < SCSI_SERIAL_MAX - 3 && 4 + i < SCSI_INQ_LEN; i++)
		hex_append(s->serial, &j, p + 4 + i, 1);
}

/* p: the page as scsi_id's INQUIRY sees it, SCSI_INQ_LEN bytes, zero padded */
static bool from_page83(struct scsi_dev *s, const unsigned char *p)
{
	size_t last;

	if (p[1] != 0x83)
		return false;
	if (p[6] != 0) {
		fill_prespc3(s, p);
		return true;
	}
	last = ((size_t)p[2] << 8 | p[3]) + 3;
	for (size_t e = 0; e < sizeof(id_search) / sizeof(id_search[0]); e++)
		for (size_t j = 4; j <= last && j + 4 <= SCSI_INQ_LEN; j += (size_t)p[j + 3] + 4)
			if (fill_from_desc(s, p + j, SCSI_INQ_LEN - j, e))
				return true;
	return false;
}

/* Page 0x80: 'S' + vendor + model + the unit serial number. */
static bool from_page80(struct scsi_dev *s, const unsigned char *p)
{
	size_t j = 1;

	if (p[1] != 0x80 || 1 + 24 + (size_t)p[3] > SCSI_SERIAL_MAX)
		return false;
	memset(s->serial, 0, sizeof(s->serial));
	s->serial[0] = 'S';
	if (!append_vendor_model(s, s->serial, &j))
		return false;
	memcpy(s->serial + j, p + 4, p[3]);
	return true;
}

/* A VPD page cut or padded to what scsi_id's INQUIRY returns. */
static bool read_page(const struct ids *x, const char *sdev, const char *name,
		      unsigned char page[SCSI_INQ_LEN])
{
	memset(page, 0, SCSI_INQ_LEN);
	return sysdev_attr_raw(x->root, sdev, name, page, SCSI_INQ_LEN) >= 4;
}

/* INQUIRY vendor/product as sysfs prints them ("%.8s\n"): drop the '\n'. */
static bool inquiry_field(const struct ids *x, const char *sdev, const char *name,
			  char out[SYSDEV_ATTR_MAX + 1])
{
	int n = sysdev_attr_raw(x->root, sdev, name, (unsigned char *)out, SYSDEV_ATTR_MAX);

	if (n < 0)
		return false;
	out[n] = '\0';
	n = (int)strlen(out);
	if (n > 0 && out[n - 1] == '\n')
		out[n - 1] = '\0';
	return true;
}

/* What scsi_id --export --whitelisted prints, as far as names go. */
static void scsi_id(struct ids *x)
{
	char sdev[SYSDEV_PATH_MAX], clean[SCSI_SERIAL_MAX];
	unsigned char page[SCSI_INQ_LEN];
	struct scsi_dev *s = calloc(1, sizeof(*s));
	bool ok;

	if (!s)
		return;
	if (sysdev_find_parent(x->root, x->dev, "scsi", "scsi_device", sdev, sizeof(sdev)) < 0 ||
	    !inquiry_field(x, sdev, "vendor", s->vendor) ||
	    !inquiry_field(x, sdev, "model", s->model)) {
		free(s);
		return;
	}
	strcpy(x->bus, "scsi");
	/* best first: page 0x83, then 0x80 (the kernel reads only listed pages) */
	ok = read_page(x, sdev, "vpd_pg83", page) && from_page83(s, page);
	if (!ok)
		ok = read_page(x, sdev, "vpd_pg80", page) && from_page80(s, page);
	if (ok) {
		ustr_replace_whitespace(s->serial, clean, sizeof(clean) - 1);
		ustr_replace_chars(clean, NULL);
		strcpy(x->serial, clean);
		if (s->wwn[0])
			snprintf(x->wwn, sizeof(x->wwn), "0x%s%s", s->wwn, s->wwn_ext);
	}
	free(s);
}

/* ---- the rules for sd* and sr* ---- */

/* The scsi ancestor that SUBSYSTEMS=="scsi" plus these ATTRS would match. */
static bool scsi_parent_with(const struct ids *x, const char *name, const char *glob,
			     const char *name2, const char *glob2, char out[SYSDEV_PATH_MAX])
{
	char v[SYSDEV_ATTR_MAX + 1];

	strcpy(out, x->dev);
	do {
		if (!sysdev_subsystem_is(x->root, out, "scsi"))
			continue;
		if (attr(x, out, name, v) < 0)
			continue;
		ustr_trim_trailing(v);
		if (!path_id_match(v, glob))
			continue;
		if (!name2)
			return true;
		if (attr(x, out, name2, v) < 0)
			continue;
		ustr_trim_trailing(v);
		if (path_id_match(v, glob2))
			return true;
	} while (sysdev_parent(x->root, out, out, SYSDEV_PATH_MAX) == 0);
	return false;
}

/* SUBSYSTEMS=="usb": the device or an ancestor is on USB. */
static bool on_usb(const struct ids *x)
{
	char cur[SYSDEV_PATH_MAX];

	strcpy(cur, x->dev);
	do {
		if (sysdev_subsystem_is(x->root, cur, "usb"))
			return true;
	} while (sysdev_parent(x->root, cur, cur, sizeof(cur)) == 0);
	return false;
}

/* A SCSI device on a libata port (ATA, or ATAPI behind AHCI/PATA). */
static bool on_libata(const struct ids *x, const char *sdev)
{
	char host[SYSDEV_PATH_MAX], port[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX];
	unsigned int n;

	if (sysdev_find_parent(x->root, sdev, "scsi", "scsi_host", host, sizeof(host)) < 0 ||
	    sysdev_parent(x->root, host, port, sizeof(port)) < 0)
		return false;
	sysdev_sysname(port, name);
	return sscanf(name, "ata%u", &n) == 1;
}

/*
 * One ata_id rule. Without libata's copy of IDENTIFY we cannot tell whether
 * udev's ata_id (SG_IO ATA pass-through) succeeded: for an "ATA" vendor (SATA
 * behind SAS or a USB bridge) or a libata device we then stop guessing,
 * rather than fall through to scsi_id and name it differently from udev.
 */
static void ata_rule(struct ids *x, const char *sdev, bool expect_ata)
{
	if (!ata_id(x, sdev) && (expect_ata || on_libata(x, sdev)))
		x->unknown = true;
}

static void scsi_disk_ids(struct ids *x)
{
	char sdev[SYSDEV_PATH_MAX];
	bool usb = on_usb(x);

	/* ata_id for ATA disks, ATAPI (SPC-3 or later) and fixed USB disks */
	if (scsi_parent_with(x, "vendor", "ATA", NULL, NULL, sdev))
		ata_rule(x, sdev, true);
	if (!x->serial[0] && !x->unknown &&
	    scsi_parent_with(x, "type", "5", "scsi_level", "[6-9]*", sdev))
		ata_rule(x, sdev, false);
	/* behind USB, ata_id needs a SAT bridge: unknowable, and the usb- name
	 * below is udev's either way */
	if (usb)
		usb_id(x);
	if (!x->serial[0] && !x->unknown)
		scsi_id(x);
	if (x->serial[0])
		add_pair(x, "", x->bus, "-", x->serial);
	if (x->usb_serial[0])
		add(x, "usb-", x->usb_serial, false);
}

static void simple_attr_id(struct ids *x, const char *prefix, const char *name)
{
	char m[SYSDEV_PATH_MAX], v[USTR_VALUE_MAX];

	if (attrs_match(x, name, NULL, NULL, m) < 0)
		return;
	if (attr_subst(x, m, name, v) < 0)
		v[0] = '\0';
	add(x, prefix, v, false);
}

static void ids_for_kernel_name(struct ids *x)
{
	char m[SYSDEV_PATH_MAX];

	if (path_id_match(x->name, "nvme*[0-9]n*[0-9]"))
		nvme_ids(x);
	if (path_id_match(x->name, "vd*[!0-9]") && attrs_match(x, "serial", NULL, NULL, m) == 0) {
		if (attr_subst(x, m, "serial", x->serial) < 0)
			x->serial[0] = '\0';
		add(x, "virtio-", x->serial, false);
	}
	if (path_id_match(x->name, "sd*[!0-9]|sr*"))
		scsi_disk_ids(x);
	if (path_id_match(x->name, "pmem*"))
		simple_attr_id(x, "pmem-", "uuid");
	if (path_id_match(x->name, "sd*[!0-9]|sr*"))
		simple_attr_id(x, "ieee1394-", "ieee1394_id");
	if (path_id_match(x->name, "mmcblk[0-9]"))
		mmc_ids(x);
	if (path_id_match(x->name, "msblk[0-9]|mspblk[0-9]"))
		memstick_ids(x);
	if (x->wwn[0])
		add(x, "wwn-", x->wwn, false);
}

int disk_ids(const char *sysfs, const char *devpath,
	     char names[][PATH_ID_NAME_MAX], size_t max)
{
	struct sysdev_root root;
	struct ids *x;
	int r;

	if (strlen(devpath) >= SYSDEV_PATH_MAX)
		return -ENAMETOOLONG;
	r = sysdev_root_open(&root, sysfs);
	if (r < 0)
		return r;
	x = calloc(1, sizeof(*x));
	if (!x) {
		sysdev_root_close(&root);
		return -ENOMEM;
	}
	*x = (struct ids){ .root = &root, .dev = devpath, .names = names, .max = max };
	if (path_id_storage_disk(&root, devpath, x->name) == 0)
		ids_for_kernel_name(x);
	r = (int)x->n;
	free(x);
	sysdev_root_close(&root);
	return r;
}
