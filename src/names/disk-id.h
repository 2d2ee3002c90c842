/* SPDX-License-Identifier: MIT */
/*
 * /dev/disk/by-id names exactly as systemd-udevd 252 (Debian 12) makes them
 * from 60-persistent-storage.rules, its usb_id builtin and its ata_id and
 * scsi_id helpers, computed from sysfs alone (no SG_IO, no ioctl):
 *
 *   virtio-<serial>                   virtio-blk "serial"
 *   nvme-<wwid>, nvme-<model>_<serial>, nvme-<model>_<serial>_<nsid>
 *   ata-<model>_<serial>, wwn-0x...   libata's copy of IDENTIFY (ata_device/
 *                                     devX.Y/id), what ata_id reads
 *   scsi-<id>, wwn-0x...              the kernel's cached VPD pages 0x83 and
 *                                     0x80 (vpd_pg83/vpd_pg80), what scsi_id
 *                                     reads, cut to scsi_id's 254 bytes
 *   usb-<vendor>_<model>[_<serial>][-<target>:<lun>]   usb_id, all sysfs
 *   mmc-, memstick-, pmem-, ieee1394-  plain attributes
 *
 * What sysfs cannot tell (the names are then missing, not different):
 * - ata-/wwn- of an "ATA" disk not on libata (SATA behind a SAS HBA or a
 *   USB SAT bridge: udev's ata_id reaches IDENTIFY by ATA pass-through);
 *   for USB the usb- name is still made, and it is udev's too;
 * - scsi-/wwn- of a SCSI device whose VPD pages the kernel did not cache
 *   (SCSI level below SPC-2, usb-storage's skip_vpd_pages, and CD-ROMs:
 *   Linux 6.1 left a QEMU scsi-cd without vpd_pg83) or whose page 0x83
 *   runs past scsi_id's 254 bytes;
 * - cciss- (obsolete driver); names udev would write with a '/' in them
 *   (a '/' in a virtio serial becomes a subdirectory in udev's tree).
 * Where they differ: the kernel shows INQUIRY vendor/model in sysfs with
 * bytes outside 0x20..0x7e (and all after a NUL) as spaces; scsi_id uses
 * the raw bytes in "0<vendor><model><id>" and "S<vendor><model><serial>".
 * Compliant devices use printable ASCII there.
 *
 * Partitions: the caller appends "-part<N>" as for by-path (path-id.h).
 */
#pragma once

#include <stddef.h>

#include "names/path-id.h"

#define DISK_ID_MAX 8   /* more than the rules ever make for one disk */

/*
 * The by-id link names (without "disk/by-id/") for the whole disk at
 * sysfs + devpath ("/devices/..."), escaped as udev escapes a SYMLINK.
 * Returns the count (<= max), 0 if none, or -errno.
 */
int disk_ids(const char *sysfs, const char *devpath,
	     char names[][PATH_ID_NAME_MAX], size_t max);
