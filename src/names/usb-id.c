/* SPDX-License-Identifier: MIT */
#include "names/usb-id.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names/udev-string.h"

#define USB_DT_INTERFACE 0x04
#define USB_DEV_DESC_LEN 18       /* a device descriptor: a shorter read is refused */
#define USB_IF_DESC_LEN 9         /* an interface descriptor */
#define USB_DESC_MAX (18 + 65535) /* what udev reads of "descriptors" */

/* udev's buffer sizes: values are cut to them */
#define STR_MAX 64
#define ENC_MAX 256
#define ENC_BUF (ENC_MAX + 1) /* udev's last escape may end at its buffer's end */
#define SERIAL_MAX 512

struct usb_info {
	char vendor[STR_MAX], vendor_enc[ENC_BUF], model[STR_MAX], model_enc[ENC_BUF];
	char serial_short[SERIAL_MAX], revision[STR_MAX], type[STR_MAX], instance[STR_MAX];
	char serial[ENC_MAX];
	char ifs[USB_IFS_MAX];
	char vendor_id[SYSDEV_ATTR_MAX], product_id[SYSDEV_ATTR_MAX];
	char ifnum[SYSDEV_ATTR_MAX], driver[SYSDEV_NAME_MAX];
	bool has_ifnum, has_driver;
	int protocol; /* mass storage interface subclass: 2 ATAPI, 6 SCSI */
};

void usb_ifs_pack(const unsigned char *desc, size_t n, char out[USB_IFS_MAX])
{
	size_t pos = 0, len = 0;

	out[0] = '\0';
	if (n < USB_DEV_DESC_LEN)
		return;
	while (pos + USB_IF_DESC_LEN < n && len + 7 < USB_IFS_MAX - 2) {
		const unsigned char *d = desc + pos;
		char one[8];

		if (d[0] < 3)
			break;
		if (d[0] > n - USB_IF_DESC_LEN)
			return; /* corrupt: udev keeps what it has, unclosed */
		pos += d[0];
		if (d[1] != USB_DT_INTERFACE)
			continue;
		snprintf(one, sizeof(one), ":%02x%02x%02x", d[5], d[6], d[7]);
		if (strstr(out, one))
			continue;
		memcpy(out + len, one, sizeof(one));
		len += 7;
	}
	if (len > 0) {
		out[len++] = ':';
		out[len] = '\0';
	}
}

static bool devnode_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c && strchr("#+-.:=@_", c));
}

void usb_encode(const char *s, char *out, size_t size)
{
	size_t j = 0, prev = 0,
	       len = size - 1; /* udev's buffer: len bytes, its sprintf's NUL beyond */
	bool escaped = false;

	for (size_t i = 0; s[i]; i++) {
		size_t u = ustr_utf8_len(s + i), need;

		if (u > 1)
			need = u; /* valid UTF-8 stays */
		else
			need = s[i] == '\\' || !devnode_char(s[i]) ? 4 : 1;

		if (len - j < need)
			break;
		prev = j;
		escaped = need == 4 && u <= 1;
		if (escaped)
			snprintf(out + j, 5, "\\x%02x", (unsigned char)s[i]);
		else
			memcpy(out + j, s + i, need);
		j += need;
		if (u > 1)
			i += u - 1;
	}
	/* a whole value needs room for its NUL; one cut after an escape keeps all len bytes */
	if (j == len && !escaped)
		j = prev;
	out[j] = '\0';
}

/* udev's value clean-up: whitespace runs to '_', then its character set. */
static void clean(const char *src, char *dst, size_t size)
{
	ustr_replace_whitespace(src, dst, size - 1);
	ustr_replace_chars(dst, NULL);
}

static int attr(const struct sysdev_root *root, const char *devpath, const char *name, char *out,
		size_t size)
{
	int r = sysdev_attr(root, devpath, name, out, size);

	return r == -EFBIG ? 0 : r; /* more than a page: cut, as the kernel would */
}

/* The last component of the link devpath/name (sd-device's "driver" attribute). */
static int link_name(const struct sysdev_root *root, const char *devpath, const char *name,
		     char out[SYSDEV_NAME_MAX])
{
	char target[SYSDEV_PATH_MAX];
	int dir = sysdev_open_dir(root, devpath);
	ssize_t n;
	const char *last;

	if (dir < 0)
		return dir;
	n = readlinkat(dir, name, target, sizeof(target) - 1);
	close(dir);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	last = strrchr(target, '/');
	last = last ? last + 1 : target;
	if (strlen(last) >= SYSDEV_NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(out, last);
	return 0;
}

static const char *iftype(unsigned long class)
{
	switch (class) {
	case 0x01: return "audio";
	case 0x03: return "hid";
	case 0x06: return "media";
	case 0x07: return "printer";
	case 0x08: return "storage";
	case 0x09: return "hub";
	case 0x0e: return "video";
	default: return "generic";
	}
}

/* Mass storage subclass (decimal or 0x/0o/0b, as udev reads it): name and number. */
static int storage_subtype(const char *text, char type[STR_MAX])
{
	long v;

	if (!ustr_parse_int(text, 0, &v))
		v = 0;
	switch (v) {
	case 1: strcpy(type, "rbc"); break;
	case 2: strcpy(type, "atapi"); break;
	case 3: strcpy(type, "tape"); break;
	case 4: strcpy(type, "floppy"); break;
	case 6: strcpy(type, "scsi"); break;
	default: strcpy(type, "generic"); break;
	}
	return (int)v;
}

static const char *scsi_type(const char *text)
{
	long v;

	if (!ustr_parse_int(text, 0, &v) || v < 0)
		return "generic";
	switch (v) {
	case 0x0:
	case 0xe: return "disk";
	case 0x1: return "tape";
	case 0x4:
	case 0x7:
	case 0xf: return "optical";
	case 0x5: return "cd";
	default: return "generic";
	}
}

static void read_ifs(const struct sysdev_root *root, const char *usbdev, char out[USB_IFS_MAX])
{
	unsigned char *buf = malloc(USB_DESC_MAX);
	int n;

	out[0] = '\0';
	if (!buf)
		return;
	n = sysdev_attr_raw(root, usbdev, "descriptors", buf, USB_DESC_MAX);
	if (n > 0)
		usb_ifs_pack(buf, (size_t)n, out);
	free(buf);
}

/* The interface: its class decides ID_TYPE; -ENOENT, -EINVAL as udev fails. */
static int read_interface(const struct sysdev_root *root, const char *iface, struct usb_info *in)
{
	char text[SYSDEV_ATTR_MAX];
	unsigned long class;

	in->has_ifnum = attr(root, iface, "bInterfaceNumber", in->ifnum, sizeof(in->ifnum)) >= 0;
	in->has_driver = link_name(root, iface, "driver", in->driver) == 0;
	if (attr(root, iface, "bInterfaceClass", text, sizeof(text)) < 0)
		return -ENOENT;
	if (!ustr_parse_ulong(text, 16, &class) || class > UINT_MAX)
		return -EINVAL;
	if (class != 8) {
		strcpy(in->type, iftype(class));
		return 0;
	}
	if (attr(root, iface, "bInterfaceSubClass", text, sizeof(text)) >= 0)
		in->protocol = storage_subtype(text, in->type);
	return 0;
}

/* sscanf's "%d:%d:%d:%d" on a SCSI device name; target and lun. */
static bool scsi_address(const char *name, int *target, int *lun)
{
	long v[4];

	for (int i = 0; i < 4; i++) {
		char *end;

		errno = 0;
		v[i] = strtol(name, &end, 10);
		if (end == name || errno || v[i] < INT_MIN || v[i] > INT_MAX)
			return false;
		name = end;
		if (i < 3 && *name++ != ':')
			return false;
	}
	*target = (int)v[2];
	*lun = (int)v[3];
	return true;
}

/* SCSI or ATAPI mass storage: the SCSI device's strings; stops at the first missing one. */
static void read_scsi(const struct sysdev_root *root, const char *devpath, struct usb_info *in)
{
	char scsi[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX], text[SYSDEV_ATTR_MAX];
	int target, lun;

	if (sysdev_find_parent(root, devpath, "scsi", "scsi_device", scsi, sizeof(scsi)) < 0)
		return;
	sysdev_sysname(scsi, name);
	if (!scsi_address(name, &target, &lun))
		return;
	if (attr(root, scsi, "vendor", text, sizeof(text)) < 0)
		return;
	usb_encode(text, in->vendor_enc, sizeof(in->vendor_enc));
	clean(text, in->vendor, sizeof(in->vendor));
	if (attr(root, scsi, "model", text, sizeof(text)) < 0)
		return;
	usb_encode(text, in->model_enc, sizeof(in->model_enc));
	clean(text, in->model, sizeof(in->model));
	if (attr(root, scsi, "type", text, sizeof(text)) < 0)
		return;
	strcpy(in->type, scsi_type(text));
	if (attr(root, scsi, "rev", text, sizeof(text)) < 0)
		return;
	clean(text, in->revision, sizeof(in->revision));
	/* some broken devices have the same identifiers for all LUNs */
	snprintf(in->instance, sizeof(in->instance), "%d:%d", target, lun);
}

/* A string attribute of the USB device, or fallback if it has none. */
static void usb_string(const struct sysdev_root *root, const char *usbdev, const char *name,
		       const char *fallback, char *str, char *enc)
{
	char text[SYSDEV_ATTR_MAX];

	if (attr(root, usbdev, name, text, sizeof(text)) < 0)
		snprintf(text, sizeof(text), "%s", fallback);
	usb_encode(text, enc, ENC_BUF);
	clean(text, str, STR_MAX);
}

/* Only printable ASCII without ',' is a serial number (Microsoft's rule, udev's too). */
static void usb_serial(const struct sysdev_root *root, const char *usbdev, struct usb_info *in)
{
	char text[SYSDEV_ATTR_MAX];

	if (attr(root, usbdev, "serial", text, sizeof(text)) < 0)
		return;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if (*p < 0x20 || *p > 0x7f || *p == ',')
			return;
	clean(text, in->serial_short, sizeof(in->serial_short));
}

/* Append s to the ID_SERIAL being built, as much as fits (udev's strpcpyl). */
static void append(char serial[ENC_MAX], const char *s)
{
	size_t have = strlen(serial), n = strlen(s);

	if (n > ENC_MAX - 1 - have)
		n = ENC_MAX - 1 - have;
	memcpy(serial + have, s, n);
	serial[have + n] = '\0';
}

static int read_usb_device(const struct sysdev_root *root, const char *usbdev, struct usb_info *in)
{
	char text[SYSDEV_ATTR_MAX];

	if (attr(root, usbdev, "idVendor", in->vendor_id, sizeof(in->vendor_id)) < 0 ||
	    attr(root, usbdev, "idProduct", in->product_id, sizeof(in->product_id)) < 0)
		return -ENOENT;
	if (!in->vendor[0])
		usb_string(root, usbdev, "manufacturer", in->vendor_id, in->vendor, in->vendor_enc);
	if (!in->model[0])
		usb_string(root, usbdev, "product", in->product_id, in->model, in->model_enc);
	if (!in->revision[0] && attr(root, usbdev, "bcdDevice", text, sizeof(text)) >= 0)
		clean(text, in->revision, sizeof(in->revision));
	if (!in->serial_short[0])
		usb_serial(root, usbdev, in);
	/* VENDOR_MODEL[_SERIAL][-INSTANCE], cut to udev's 255 bytes */
	append(in->serial, in->vendor);
	append(in->serial, "_");
	append(in->serial, in->model);
	if (in->serial_short[0]) {
		append(in->serial, "_");
		append(in->serial, in->serial_short);
	}
	if (in->instance[0]) {
		append(in->serial, "-");
		append(in->serial, in->instance);
	}
	return 0;
}

struct setter {
	usb_set_fn set;
	void *u;
	int r;
};

static void put(struct setter *s, const char *key, const char *value)
{
	if (!s->r)
		s->r = s->set(s->u, key, value);
}

static void put_opt(struct setter *s, const char *key, const char *value)
{
	if (value[0])
		put(s, key, value);
}

/* The shared part, prefixed "ID_" or "ID_USB_". */
static void put_ids(struct setter *s, const struct usb_info *in, bool usb)
{
	char key[32];

#define PUT(name, v) \
	(snprintf(key, sizeof(key), "%s" name, usb ? "ID_USB_" : "ID_"), put(s, key, v))
#define PUT_OPT(name, v) \
	(snprintf(key, sizeof(key), "%s" name, usb ? "ID_USB_" : "ID_"), put_opt(s, key, v))
	PUT("MODEL", in->model);
	PUT("MODEL_ENC", in->model_enc);
	PUT("MODEL_ID", in->product_id);
	PUT("SERIAL", in->serial);
	PUT_OPT("SERIAL_SHORT", in->serial_short);
	PUT("VENDOR", in->vendor);
	PUT("VENDOR_ENC", in->vendor_enc);
	PUT("VENDOR_ID", in->vendor_id);
	PUT("REVISION", in->revision);
	PUT_OPT("TYPE", in->type);
	PUT_OPT("INSTANCE", in->instance);
#undef PUT
#undef PUT_OPT
}

static int put_all(const struct usb_info *in, bool id_bus_set, usb_set_fn set, void *u)
{
	struct setter s = { .set = set, .u = u };

	if (!id_bus_set) {
		put(&s, "ID_BUS", "usb");
		put_ids(&s, in, false);
	}
	put_ids(&s, in, true);
	put_opt(&s, "ID_USB_INTERFACES", in->ifs);
	if (in->has_ifnum)
		put(&s, "ID_USB_INTERFACE_NUM", in->ifnum);
	if (in->has_driver)
		put(&s, "ID_USB_DRIVER", in->driver);
	return s.r;
}

/* Which device the strings come from, and the interface's part. */
static int locate(const struct sysdev_root *root, const char *devpath, struct usb_info *in,
		  char usbdev[SYSDEV_PATH_MAX])
{
	char devtype[SYSDEV_NAME_MAX], iface[SYSDEV_PATH_MAX];
	int r;

	if (sysdev_devtype(root, devpath, devtype) >= 0 && strcmp(devtype, "usb_device") == 0) {
		snprintf(usbdev, SYSDEV_PATH_MAX, "%s", devpath);
		read_ifs(root, usbdev, in->ifs);
		return 0;
	}
	r = sysdev_find_parent(root, devpath, "usb", "usb_interface", iface, sizeof(iface));
	if (r < 0)
		return -ENOENT;
	r = read_interface(root, iface, in);
	if (r < 0)
		return r;
	if (sysdev_find_parent(root, iface, "usb", "usb_device", usbdev, SYSDEV_PATH_MAX) < 0)
		return -ENOENT;
	read_ifs(root, usbdev, in->ifs);
	if (in->protocol == 6 || in->protocol == 2)
		read_scsi(root, devpath, in);
	return 0;
}

int usb_id_props(const struct sysdev_root *root, const char *devpath, bool id_bus_set,
		 usb_set_fn set, void *u)
{
	char usbdev[SYSDEV_PATH_MAX];
	struct usb_info *in = calloc(1, sizeof(*in));
	int r;

	if (!in)
		return -ENOMEM;
	r = locate(root, devpath, in, usbdev);
	r = r ?: read_usb_device(root, usbdev, in);
	r = r ?: put_all(in, id_bus_set, set, u);
	free(in);
	return r;
}
