/* SPDX-License-Identifier: MIT */
#include "engine/rank.h"

#include <stddef.h>
#include <string.h>

static const char *const root_subsystems[] = {
	"block", "scsi", "scsi_host", "scsi_device", "scsi_disk", "nvme", "nvme-subsystem",
	"mmc", "mmc_host", "ata_port", "ata_link", "ata_device", "input", "hid", "serio",
};

static const char *const root_alias_prefixes[] = {
	"scsi:", "nvme:", "mmc:", "hid:", "input:", "serio:",
};

/* Subsystems whose rank depends on the device: decided by MODALIAS. */
static const char *const alias_subsystems[] = { "pci", "virtio", "usb" };

static bool in(const char *s, const char *const *set, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcmp(s, set[i]) == 0)
			return true;
	return false;
}

static bool hex2(const char *p, unsigned int *out)
{
	unsigned int v = 0;

	for (int i = 0; i < 2; i++) {
		char c = p[i];
		unsigned int d = c >= '0' && c <= '9' ? (unsigned int)(c - '0') :
				 c >= 'A' && c <= 'F' ? (unsigned int)(c - 'A' + 10) :
				 c >= 'a' && c <= 'f' ? (unsigned int)(c - 'a' + 10) : 16;

		if (d > 15)
			return false;
		v = v * 16 + d;
	}
	*out = v;
	return true;
}

/* The two hex digits after key (e.g. "bc") in a modalias; false if absent. */
static bool field(const char *alias, const char *key, unsigned int *out)
{
	const char *p = strstr(alias, key);

	return p && hex2(p + strlen(key), out);
}

/* pci:v...d...sv...sd...bcXXscXXiXX */
static bool pci_root(const char *alias)
{
	unsigned int bc, sc;

	if (!field(alias, "bc", &bc) || !field(alias, "sc", &sc))
		return false;
	return bc == 0x01 || bc == 0x09 || (bc == 0x0c && sc == 0x03);
}

/* virtio:dXXXXXXXXvXXXXXXXX: device ids 2 (block), 8 (SCSI), 18 (input) */
static bool virtio_root(const char *alias)
{
	const char *d = alias + strlen("virtio:d");

	if (strncmp(alias, "virtio:d", 8) != 0 || strlen(d) < 8 || strncmp(d, "000000", 6) != 0)
		return false;
	return strncmp(d + 6, "02", 2) == 0 || strncmp(d + 6, "08", 2) == 0 ||
	       strncmp(d + 6, "12", 2) == 0;
}

/* usb:v...p...d...dcXXdscXXdpXXicXXiscXXipXXinXX: interface class 08 or 03 */
static bool usb_root(const char *alias)
{
	const char *dp = strstr(alias, "dp");
	unsigned int ic;

	return dp && strlen(dp) >= 6 && strncmp(dp + 4, "ic", 2) == 0 && hex2(dp + 6, &ic) &&
	       (ic == 0x08 || ic == 0x03);
}

bool rank_needs_modalias(const char *subsystem)
{
	return in(subsystem, alias_subsystems, sizeof(alias_subsystems) / sizeof(alias_subsystems[0]));
}

enum rank rank_of(const char *subsystem, const char *modalias)
{
	if (in(subsystem, root_subsystems, sizeof(root_subsystems) / sizeof(root_subsystems[0])))
		return RANK_ROOT;
	if (!modalias)
		return RANK_OTHER;
	for (size_t i = 0; i < sizeof(root_alias_prefixes) / sizeof(root_alias_prefixes[0]); i++)
		if (strncmp(modalias, root_alias_prefixes[i], strlen(root_alias_prefixes[i])) == 0)
			return RANK_ROOT;
	if (strncmp(modalias, "pci:", 4) == 0)
		return pci_root(modalias) ? RANK_ROOT : RANK_OTHER;
	if (strncmp(modalias, "virtio:", 7) == 0)
		return virtio_root(modalias) ? RANK_ROOT : RANK_OTHER;
	if (strncmp(modalias, "usb:", 4) == 0)
		return usb_root(modalias) ? RANK_ROOT : RANK_OTHER;
	return RANK_OTHER;
}

const char *rank_name(enum rank r)
{
	return r == RANK_ROOT ? "root" : "other";
}
