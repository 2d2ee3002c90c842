/* SPDX-License-Identifier: MIT */
/*
 * udev 252's usb_id builtin: ID_VENDOR, ID_MODEL, ID_SERIAL, ID_BUS=usb,
 * ID_TYPE, ID_USB_INTERFACES, ... for a USB device, one of its interfaces'
 * children (a disk, an input device), as udev computes them from sysfs:
 * the device's manufacturer/product/serial strings (or, for SCSI and ATAPI
 * mass storage, the SCSI vendor/model/rev), idVendor/idProduct, and the
 * interface classes packed from the binary "descriptors" attribute.
 *
 * Hostile: every string (any bytes, any length up to one sysfs page: the
 * strings a USB device reports about itself) and the descriptors (any
 * bytes). Values are cut to udev's buffers, cleaned with udev's
 * whitespace/character replacement and \xNN-escaped (the *_ENC ones)
 * exactly as udev does. Thread-safe.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util/sysdev.h"

#define USB_IFS_MAX 512 /* udev's UDEV_NAME_SIZE: room for 72 interface triples */

/*
 * ":CCSSPP:...:" for each distinct interface descriptor (class, subclass,
 * protocol) in a USB device's raw descriptors (n bytes), as udev packs them;
 * "" if there are none or the data is shorter than a device descriptor.
 * Corrupt data (a length running past the end) stops the list where it
 * is, without the closing ':', as in udev.
 */
void usb_ifs_pack(const unsigned char *desc, size_t n, char out[USB_IFS_MAX]);

/*
 * udev's encode_devnode_name into its 256-byte buffer (size is that + 1):
 * [0-9A-Za-z#+-.:=@_] and valid UTF-8 kept, every other byte as \xNN.
 * A value that does not fit is cut before the first piece that does not;
 * udev keeps such a cut value when its last piece was an escape (all 256
 * bytes, its sprintf writing the NUL one past its buffer) and leaves its
 * buffer unterminated otherwise, where initdev cuts one byte more.
 */
void usb_encode(const char *s, char *out, size_t size);

typedef int (*usb_set_fn)(void *u, const char *key, const char *value);

/*
 * usb_id for devpath: the properties, in udev's order, through set.
 * id_bus_set: the device already has ID_BUS (then only the ID_USB_* ones).
 * 0; -ENOENT if devpath is not a USB device and has no USB interface
 * above it, -EINVAL for an interface class that is not a number, -ENOENT
 * without idVendor/idProduct (udev's builtin fails the same way); or what
 * set returned.
 */
int usb_id_props(const struct sysdev_root *root, const char *devpath, bool id_bus_set,
		 usb_set_fn set, void *u);
