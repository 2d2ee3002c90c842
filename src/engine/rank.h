/* SPDX-License-Identifier: MIT */
/*
 * Root first: while a root device is awaited (root= on the kernel command
 * line, or `initdev wait`), the work on the path to block devices goes
 * first: its triggers are written first, its events are taken from the
 * queue first, and a worker is kept free for it. Keyboards and other input
 * share that first rank (a LUKS passphrase must be typeable). Everything
 * else still runs in the same pass, just after; nothing is dropped.
 *
 * RANK_ROOT: storage controllers and buses and what sits below them
 *   PCI class 01 (mass storage), 0C03 (USB controllers), 09 (input
 *   controllers); virtio block (2), SCSI (8) and input (18); USB interfaces
 *   of class 08 (mass storage) and 03 (HID); the subsystems block, scsi,
 *   scsi_host, scsi_device, scsi_disk, nvme, nvme-subsystem, mmc, mmc_host,
 *   ata_port, ata_link, ata_device, input, hid, serio; and the MODALIAS
 *   prefixes scsi:, nvme:, mmc:, hid:, input:, serio:.
 * RANK_OTHER: everything else (network, sound, graphics, sensors, ...).
 * The ranking reads only what the event (or the device's sysfs directory
 * during the walk) says; a device below one of RANK_ROOT counts as
 * RANK_ROOT too (engine.c keeps the set).
 */
#pragma once

#include <stdbool.h>

enum rank {
	RANK_ROOT = 0,
	RANK_OTHER = 1,
	RANK_COUNT,
};

/* The rank of a device from its subsystem and MODALIAS (either may be NULL). */
enum rank rank_of(const char *subsystem, const char *modalias);

/* True if rank_of needs the MODALIAS to decide for this subsystem. */
bool rank_needs_modalias(const char *subsystem);

const char *rank_name(enum rank r);
