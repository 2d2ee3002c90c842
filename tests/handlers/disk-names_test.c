/* SPDX-License-Identifier: MIT */
/*
 * The names 60-persistent-storage.rules give a disk and its partitions, on
 * a hand-made sysfs tree (a virtio disk at PCI 00:05.0 with one GPT
 * partition) and made-up probe results. The expectations come from reading
 * udev 252's and 257's rules; tests/boot/trixie_test.sh (plain_boot)
 * compares the same names with the real udevd 257 in a guest. Both rules
 * are checked in every build (disk_link_names_compat); disk_link_names
 * follows the build's UDEV_COMPAT.
 */
#include <atf-c.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "handlers/disk-names.h"
#include "sysfs-fixture.h"

#define ROOT "sys"
#define PCI "/devices/pci0000:00/0000:00:05.0"
#define DISK PCI "/virtio2/block/vdb"

static char names[DISK_NAMES_MAX][LINK_NAME_MAX];

/* vdb (254:16) and its partition vdb1 (254:17) under virtio2 at 00:05.0. */
static void virtio_disk(void)
{
	fx_device(ROOT, "/devices/pci0000:00", NULL, NULL);
	fx_device(ROOT, PCI, "pci", NULL);
	fx_device(ROOT, PCI "/virtio2", "virtio", NULL);
	fx_device(ROOT, DISK, "block", "disk");
	fx_text(ROOT, DISK "/dev", "254:16\n");
	fx_link(ROOT, "/block/vdb", "../devices/pci0000:00/0000:00:05.0/virtio2/block/vdb");
	fx_device(ROOT, DISK "/vdb1", "block", "partition");
	fx_text(ROOT, DISK "/vdb1/dev", "254:17\n");
	fx_link(ROOT, "/block/vdb1", "../devices/pci0000:00/0000:00:05.0/virtio2/block/vdb/vdb1");
}

static struct uevent event(const char *devpath, const char *devtype, uint64_t diskseq)
{
	struct uevent ev;

	memset(&ev, 0, sizeof(ev));
	ev.action = UEVENT_ADD;
	ev.devpath = devpath;
	ev.subsystem = "block";
	ev.devtype = devtype;
	ev.has_diskseq = true;
	ev.diskseq = diskseq;
	return ev;
}

/* A GPT partition holding an ext4 filesystem; label and partlabel as encoded. */
static void gpt_ext4(struct probe_result *p, const char *label_enc, const char *partlabel_enc)
{
	memset(p, 0, sizeof(*p));
	p->has_fs = true;
	snprintf(p->fs_usage, sizeof(p->fs_usage), "filesystem");
	snprintf(p->fs_uuid_enc, sizeof(p->fs_uuid_enc), "0c5a3c8e-7d61-4a59-9f0b-1d2e3f405162");
	snprintf(p->fs_label_enc, sizeof(p->fs_label_enc), "%s", label_enc);
	p->has_part_entry = true;
	snprintf(p->part_scheme, sizeof(p->part_scheme), "gpt");
	snprintf(p->part_uuid, sizeof(p->part_uuid), "6b1e2f3a-4c5d-4e6f-8a9b-0c1d2e3f4a5b");
	snprintf(p->part_name_enc, sizeof(p->part_name_enc), "%s", partlabel_enc);
}

/* The n names must be exactly the NULL-terminated list (order free). */
static void expect(size_t n, const char *const *want)
{
	size_t k = 0;

	for (; want[k]; k++) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			found |= strcmp(names[i], want[k]) == 0;
		ATF_CHECK_MSG(found, "missing %s", want[k]);
	}
	for (size_t i = 0; i < n; i++) {
		bool wanted = false;

		for (size_t j = 0; j < k; j++)
			wanted |= strcmp(names[i], want[j]) == 0;
		ATF_CHECK_MSG(wanted, "unexpected %s", names[i]);
	}
}

#define FLAT_252                                                                    \
	"by-uuid/0c5a3c8e-7d61-4a59-9f0b-1d2e3f405162", "by-label/data\\x20one",    \
		"by-partuuid/6b1e2f3a-4c5d-4e6f-8a9b-0c1d2e3f4a5b",                 \
		"by-partlabel/part\\x2f..\\x2fx", "by-path/pci-0000:00:05.0-part1", \
		"by-path/virtio-pci-0000:00:05.0-part1"
#define NESTED "by-path/pci-0000:00:05.0-part/"

/* udev 257 names a partition below its disk's by-path name too; 252 does not. */
ATF_TC_WITHOUT_HEAD(path_part_names);
ATF_TC_BODY(path_part_names, tc)
{
	struct uevent ev = event(DISK "/vdb1", "partition", 7);
	struct probe_result p;
	size_t n;

	virtio_disk();
	gpt_ext4(&p, "data\\x20one", "part\\x2f..\\x2fx");
	n = disk_link_names_compat(ROOT, &ev, &p, 252, names);
	expect(n, (const char *const[]){ FLAT_252, NULL });
	n = disk_link_names_compat(ROOT, &ev, &p, 257, names);
	expect(n, (const char *const[]){
			  FLAT_252,
			  "by-diskseq/7-part1",
			  NESTED "by-partnum/1",
			  NESTED "by-partuuid/6b1e2f3a-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
			  NESTED "by-partlabel/part\\x2f..\\x2fx",
			  NESTED "by-uuid/0c5a3c8e-7d61-4a59-9f0b-1d2e3f405162",
			  NESTED "by-label/data\\x20one",
			  NULL,
		  });
	/* each is a name the link table takes, with the same compat */
	for (size_t i = 0; i < n; i++)
		ATF_CHECK_MSG(disk_links_name_valid_compat(names[i], 257), "refused %s", names[i]);
	/* the build's own choice */
	ATF_CHECK_EQ(disk_link_names(ROOT, &ev, &p, names), UDEV_COMPAT >= 257 ? 12 : 6);
}

/* The conditions of the flat names hold below by-path too; a disk gets none. */
ATF_TC_WITHOUT_HEAD(path_part_conditions);
ATF_TC_BODY(path_part_conditions, tc)
{
	struct uevent part = event(DISK "/vdb1", "partition", 7), disk = event(DISK, "disk", 7);
	struct probe_result p;
	size_t n;

	virtio_disk();
	/* swap (usage "other") on an MBR partition: no partlabel; no probe: by-partnum only */
	gpt_ext4(&p, "", "ignored");
	snprintf(p.part_scheme, sizeof(p.part_scheme), "dos");
	snprintf(p.part_uuid, sizeof(p.part_uuid), "1a2b3c4d-01");
	snprintf(p.fs_usage, sizeof(p.fs_usage), "other");
	n = disk_link_names_compat(ROOT, &part, &p, 257, names);
	expect(n, (const char *const[]){
			  "by-uuid/0c5a3c8e-7d61-4a59-9f0b-1d2e3f405162", "by-partuuid/1a2b3c4d-01",
			  "by-path/pci-0000:00:05.0-part1", "by-path/virtio-pci-0000:00:05.0-part1",
			  "by-diskseq/7-part1", NESTED "by-partnum/1",
			  NESTED "by-partuuid/1a2b3c4d-01",
			  NESTED "by-uuid/0c5a3c8e-7d61-4a59-9f0b-1d2e3f405162", NULL });
	/* a raid member (usage "raid") gets no uuid or label names, nested or flat */
	snprintf(p.fs_usage, sizeof(p.fs_usage), "raid");
	n = disk_link_names_compat(ROOT, &part, &p, 257, names);
	for (size_t i = 0; i < n; i++)
		ATF_CHECK_MSG(strstr(names[i], "by-uuid/") == NULL, "raid named %s", names[i]);
	n = disk_link_names_compat(ROOT, &part, NULL, 257, names);
	expect(n, (const char *const[]){ "by-path/pci-0000:00:05.0-part1",
					 "by-path/virtio-pci-0000:00:05.0-part1",
					 "by-diskseq/7-part1", NESTED "by-partnum/1", NULL });
	/* the whole disk: by-diskseq/N and its flat names only, in both */
	for (int compat = 252; compat <= 257; compat += 5) {
		n = disk_link_names_compat(ROOT, &disk, NULL, compat, names);
		expect(n, (const char *const[]){ "by-diskseq/7", "by-path/pci-0000:00:05.0",
						 "by-path/virtio-pci-0000:00:05.0", NULL });
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, path_part_names);
	ATF_TP_ADD_TC(tp, path_part_conditions);
	return 0;
}
