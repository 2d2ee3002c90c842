/* SPDX-License-Identifier: MIT */
#include "handlers/disk-names.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "names/disk-id.h"
#include "names/path-id.h"

bool disk_is_storage(const char *sysname)
{
	return path_id_storage_kernel(sysname);
}

/* udev gives a partition with a whole_disk attribute no links at all. */
static bool whole_disk_partition(const char *sysfs, const char *devpath)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s%s/whole_disk", sysfs, devpath);

	return n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0;
}

static void add(char names[][LINK_NAME_MAX], size_t *n, const char *dir,
		const char *name, const char *suffix)
{
	if (*n >= DISK_NAMES_MAX || !name[0])
		return;
	size_t len = (size_t)snprintf(names[*n], LINK_NAME_MAX, "%s/%s%s", dir, name, suffix);

	if (len >= LINK_NAME_MAX)
		return;
	/* udev simplifies a link's path: a name ending in '/' (a cut label
	 * encoding, blkid-probe.c) loses it; a '/' inside stays refused */
	while (len > strlen(dir) + 2 && names[*n][len - 1] == '/')
		names[*n][--len] = '\0';
	(*n)++;
}

static bool usage_links(const struct probe_result *p)
{
	return p->has_fs && (strcmp(p->fs_usage, "filesystem") == 0 ||
			     strcmp(p->fs_usage, "other") == 0 || strcmp(p->fs_usage, "crypto") == 0);
}

/* The trailing number of a partition's kernel name: sda1 -> 1, nvme0n1p2 -> 2. */
static const char *partition_number(const char *sysname)
{
	const char *p = sysname + strlen(sysname);

	while (p > sysname && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p;
}

/* by-id and by-path: computed on the whole disk, suffixed for partitions. */
static void hardware_names(const char *sysfs, const struct uevent *ev, bool partition,
			   char names[][LINK_NAME_MAX], size_t *n)
{
	char disk[PATH_MAX], found[PATH_ID_LINKS_MAX + DISK_ID_MAX][PATH_ID_NAME_MAX];
	char suffix[32] = "";
	const char *sysname = strrchr(ev->devpath, '/') + 1;
	int k;

	snprintf(disk, sizeof(disk), "%s", ev->devpath);
	if (partition) {
		*strrchr(disk, '/') = '\0'; /* a partition lives in its disk's directory */
		snprintf(suffix, sizeof(suffix), "-part%s", partition_number(sysname));
	}
	k = disk_ids(sysfs, disk, found, DISK_ID_MAX);
	for (int i = 0; i < k; i++)
		add(names, n, "by-id", found[i], suffix);
	k = path_id_links(sysfs, disk, found, PATH_ID_LINKS_MAX);
	for (int i = 0; i < k; i++)
		add(names, n, "by-path", found[i], suffix);
}

/*
 * udev 257's links of a loop device by what backs it: by-loop-inode/MAJ:MIN-INODE
 * of the backing file, and by-loop-ref/NAME (the encoded name userspace gave
 * it, one path component: '/' is \x2f), "-partN" added for a partition.
 */
static void loop_names(const struct uevent *ev, bool partition, const struct probe_result *p,
		       char names[][LINK_NAME_MAX], size_t *n)
{
	char suffix[32] = "", inode[64];

	if (partition)
		snprintf(suffix, sizeof(suffix), "-part%s",
			 partition_number(strrchr(ev->devpath, '/') + 1));
	snprintf(inode, sizeof(inode), "%s-%s", p->loop_device, p->loop_inode);
	add(names, n, "by-loop-inode", inode, suffix);
	add(names, n, "by-loop-ref", p->loop_name_enc, suffix);
}

/* One of udev 257's names below by-path/<dir>: "by-path/DIR/KIND/NAME". */
static void add_nested(char names[][LINK_NAME_MAX], size_t *n, const char *dir, const char *kind,
		       const char *name)
{
	if (*n >= DISK_NAMES_MAX || !name[0])
		return;
	if ((size_t)snprintf(names[*n], LINK_NAME_MAX, "by-path/%s/%s/%s", dir, kind, name) <
	    LINK_NAME_MAX)
		(*n)++;
}

/*
 * udev 257's names of a partition below its disk's ID_PATH:
 * by-path/<ID_PATH>-part/by-partnum/N, and by-partuuid, by-partlabel (GPT),
 * by-uuid, by-label there under the conditions of the flat names, with the
 * same encoded values (one component each: a label's '/' is \x2f). Only
 * ID_PATH: the ATA compatibility and legacy virtio- names get none.
 */
static void path_part_names(const char *sysfs, const struct uevent *ev,
			    const struct probe_result *p, char names[][LINK_NAME_MAX], size_t *n)
{
	char disk[PATH_MAX], dir[PATH_ID_NAME_MAX];

	snprintf(disk, sizeof(disk), "%s", ev->devpath);
	*strrchr(disk, '/') = '\0'; /* a partition lives in its disk's directory */
	if (path_id_part_dir(sysfs, disk, dir) < 0)
		return;
	add_nested(names, n, dir, "by-partnum", partition_number(strrchr(ev->devpath, '/') + 1));
	if (p && p->has_part_entry) {
		add_nested(names, n, dir, "by-partuuid", p->part_uuid);
		if (strcmp(p->part_scheme, "gpt") == 0)
			add_nested(names, n, dir, "by-partlabel", p->part_name_enc);
	}
	if (p && usage_links(p)) {
		add_nested(names, n, dir, "by-uuid", p->fs_uuid_enc);
		add_nested(names, n, dir, "by-label", p->fs_label_enc);
	}
}

/* by-diskseq/N for a disk; udev 257 adds N-partM for its partitions. */
static void diskseq_name(const struct uevent *ev, bool partition, int udev_compat,
			 char names[][LINK_NAME_MAX], size_t *n)
{
	char seq[24], suffix[32] = "";

	if (!ev->has_diskseq || (partition && udev_compat < 257))
		return;
	if (partition)
		snprintf(suffix, sizeof(suffix), "-part%s",
			 partition_number(strrchr(ev->devpath, '/') + 1));
	snprintf(seq, sizeof(seq), "%llu", (unsigned long long)ev->diskseq);
	add(names, n, "by-diskseq", seq, suffix);
}

size_t disk_link_names_compat(const char *sysfs, const struct uevent *ev,
			      const struct probe_result *p, int udev_compat,
			      char names[][LINK_NAME_MAX])
{
	bool partition = ev->devtype && strcmp(ev->devtype, "partition") == 0;
	size_t n = 0;

	if (!disk_is_storage(strrchr(ev->devpath, '/') + 1) ||
	    whole_disk_partition(sysfs, ev->devpath))
		return 0;
	if (p && usage_links(p)) {
		add(names, &n, "by-uuid", p->fs_uuid_enc, "");
		add(names, &n, "by-label", p->fs_label_enc, "");
	}
	if (p && p->has_part_entry) {
		add(names, &n, "by-partuuid", p->part_uuid, "");
		if (strcmp(p->part_scheme, "gpt") == 0)
			add(names, &n, "by-partlabel", p->part_name_enc, "");
	}
	diskseq_name(ev, partition, udev_compat, names, &n);
	if (udev_compat >= 257 && p && p->has_loop)
		loop_names(ev, partition, p, names, &n);
	hardware_names(sysfs, ev, partition, names, &n);
	if (udev_compat >= 257 && partition)
		path_part_names(sysfs, ev, p, names, &n);
	return n;
}

size_t disk_link_names(const char *sysfs, const struct uevent *ev,
		       const struct probe_result *p, char names[][LINK_NAME_MAX])
{
	return disk_link_names_compat(sysfs, ev, p, UDEV_COMPAT, names);
}
