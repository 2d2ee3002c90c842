/* SPDX-License-Identifier: MIT */
/*
 * by-path names. The qemu-* fixtures are sysfs trees captured from Linux 6.1
 * guests together with the links the real systemd-udevd 252 made for them
 * (NAME.udev): every link must match. The hand-made trees cover transports
 * QEMU cannot show (SAS, FC, iSCSI, port multipliers, Hyper-V, eMMC) and
 * hostile trees; their expectations come from reading udev 252's path_id.
 */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "names/path-id.h"
#include "sysfs-fixture.h"

#define ROOT "sys"

/* all of udev's by-path links (count them: a truncated file must fail) */
static void compare(const atf_tc_t *tc, const char *name, int links)
{
	fx_build(tc, name, ROOT);
	ATF_CHECK_EQ(fx_compare_udev(tc, name, ROOT, "by-path", path_id_links, NULL), links);
}

ATF_TC_WITHOUT_HEAD(udev_q35);
ATF_TC_BODY(udev_q35, tc)
{
	compare(tc, "qemu-q35", 47);
}

ATF_TC_WITHOUT_HEAD(udev_pc_nvme_multipath);
ATF_TC_BODY(udev_pc_nvme_multipath, tc)
{
	compare(tc, "qemu-pc-nvme-multipath", 20);
}

ATF_TC_WITHOUT_HEAD(udev_pc_nvme_single);
ATF_TC_BODY(udev_pc_nvme_single, tc)
{
	compare(tc, "qemu-pc-nvme-single", 22);
}

ATF_TC_WITHOUT_HEAD(udev_hostile);
ATF_TC_BODY(udev_hostile, tc)
{
	compare(tc, "qemu-hostile", 26);
}

ATF_TC_WITHOUT_HEAD(udev_hba);
ATF_TC_BODY(udev_hba, tc)
{
	compare(tc, "qemu-hba", 10);
}

/* The same facts spelled out, so a reader sees the forms. */
ATF_TC_WITHOUT_HEAD(q35_names);
ATF_TC_BODY(q35_names, tc)
{
	char devpath[512], path[PATH_ID_MAX], compat[PATH_ID_MAX];

	fx_build(tc, "qemu-q35", ROOT);
	fx_expect(ROOT, "vda", path_id_links,
		  (const char *const[]){ "pci-0000:00:03.0", "virtio-pci-0000:00:03.0", NULL });
	/* behind a PCIe root port only the device's own address counts */
	fx_expect(ROOT, "vdc", path_id_links,
		  (const char *const[]){ "pci-0000:01:00.0", "virtio-pci-0000:01:00.0", NULL });
	fx_expect(ROOT, "sdb", path_id_links,
		  (const char *const[]){ "pci-0000:00:06.0-scsi-0:0:1:2", NULL });
	/* 252 names ATA disks "ata-PORT.TARGET" and keeps the old "ata-PORT" */
	fx_expect(ROOT, "sde", path_id_links,
		  (const char *const[]){ "pci-0000:00:1f.2-ata-1.0", "pci-0000:00:1f.2-ata-1", NULL });
	fx_expect(ROOT, "sr1", path_id_links,
		  (const char *const[]){ "pci-0000:00:1f.2-ata-5.0", "pci-0000:00:1f.2-ata-5", NULL });
	fx_expect(ROOT, "nvme1n2", path_id_links,
		  (const char *const[]){ "pci-0000:00:08.0-nvme-2", NULL });
	fx_expect(ROOT, "sdj", path_id_links,
		  (const char *const[]){ "pci-0000:00:09.0-usb-0:3.1:1.0-scsi-0:0:0:0", NULL });

	fx_devpath(ROOT, "sde", devpath, sizeof(devpath));
	ATF_REQUIRE_EQ(path_id_full(ROOT, devpath, path, sizeof(path), compat), 0);
	ATF_CHECK_STREQ(path, "pci-0000:00:1f.2-ata-1.0");
	ATF_CHECK_STREQ(compat, "pci-0000:00:1f.2-ata-1");
	ATF_CHECK_EQ(path_id(ROOT, devpath, path, 10), -ENAMETOOLONG);
	fx_devpath(ROOT, "vda", devpath, sizeof(devpath));
	ATF_REQUIRE_EQ(path_id_full(ROOT, devpath, path, sizeof(path), compat), 0);
	ATF_CHECK_STREQ(compat, "");
}

ATF_TC_WITHOUT_HEAD(pc_names);
ATF_TC_BODY(pc_names, tc)
{
	fx_build(tc, "qemu-pc-nvme-multipath", ROOT);
	/* PATA master and slave share the compat name; udev gives it to one */
	fx_expect(ROOT, "sdc", path_id_links,
		  (const char *const[]){ "pci-0000:00:01.1-ata-1.0", "pci-0000:00:01.1-ata-1", NULL });
	fx_expect(ROOT, "sdd", path_id_links,
		  (const char *const[]){ "pci-0000:00:01.1-ata-1.1", "pci-0000:00:01.1-ata-1", NULL });
	/* multipath: the disk hangs off nvme-subsys0, named by controller nvme0 */
	fx_expect(ROOT, "nvme0n1", path_id_links,
		  (const char *const[]){ "pci-0000:00:04.0-nvme-1", NULL });
	/* the second HBA's host is host1; udev counts from the lowest sibling */
	fx_expect(ROOT, "sdb", path_id_links,
		  (const char *const[]){ "pci-0000:00:07.0-scsi-0:0:5:7", NULL });
	/* per-path nvme0c0n1 devices have no device number: no links */
	fx_expect(ROOT, "nvme0c0n1", path_id_links, (const char *const[]){ NULL });
}

/* ---- hand-made trees ---- */

#define PCI "/devices/pci0000:00/0000:00:10.0"

/* pci0000:00 and one PCI function at 00:10.0 */
static void pci_base(void)
{
	fx_device(ROOT, "/devices/pci0000:00", NULL, NULL);
	fx_device(ROOT, PCI, "pci", NULL);
}

/* A SCSI disk "sda" at devpath sdev + "/block/sda". */
static void scsi_disk(const char *sdev, const char *kname)
{
	char p[1024];

	fx_device(ROOT, sdev, "scsi", "scsi_device");
	snprintf(p, sizeof(p), "%s/block/%s", sdev, kname);
	fx_device(ROOT, p, "block", "disk");
	snprintf(p, sizeof(p), "%s/block/%s/dev", sdev, kname);
	fx_text(ROOT, p, "8:0\n");
	snprintf(p, sizeof(p), "../%s/block/%s", sdev + 1, kname);
	{
		char l[256];

		snprintf(l, sizeof(l), "/block/%s", kname);
		fx_link(ROOT, l, p);
	}
}

static void expect_sda(const char *const *names)
{
	fx_expect(ROOT, "sda", path_id_links, names);
}

ATF_TC_WITHOUT_HEAD(sas_direct_and_expander);
ATF_TC_BODY(sas_direct_and_expander, tc)
{
	const char *port = PCI "/host0/port-0:0";

	pci_base();
	fx_device(ROOT, PCI "/host0", "scsi", "scsi_host");
	fx_device(ROOT, port, NULL, NULL);
	fx_device(ROOT, PCI "/host0/port-0:0/sas_port/port-0:0", "sas_port", NULL);
	fx_text(ROOT, PCI "/host0/port-0:0/sas_port/port-0:0/num_phys", "1\n");
	fx_link(ROOT, "/class/sas_port/port-0:0", "../../devices/pci0000:00/0000:00:10.0/host0/port-0:0/sas_port/port-0:0");
	fx_device(ROOT, PCI "/host0/port-0:0/end_device-0:0", NULL, NULL);
	fx_device(ROOT, PCI "/host0/port-0:0/end_device-0:0/sas_device/end_device-0:0", "sas_device", NULL);
	fx_text(ROOT, PCI "/host0/port-0:0/end_device-0:0/sas_device/end_device-0:0/phy_identifier", "4\n");
	fx_link(ROOT, "/class/sas_device/end_device-0:0", "../../devices/pci0000:00/0000:00:10.0/host0/port-0:0/end_device-0:0/sas_device/end_device-0:0");
	fx_device(ROOT, PCI "/host0/port-0:0/end_device-0:0/target0:0:0", "scsi", "scsi_target");
	scsi_disk(PCI "/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0", "sda");
	/* directly on the HBA: "sas-phy<N>-lun-<L>" */
	expect_sda((const char *const[]){ "pci-0000:00:10.0-sas-phy4-lun-0", NULL });

	/* the port's parent is an expander: its SAS address comes in */
	fx_device(ROOT, PCI "/host0/sas_device/host0", "sas_device", NULL);
	fx_text(ROOT, PCI "/host0/sas_device/host0/sas_address", "0x500605b000000001\n");
	fx_link(ROOT, "/class/sas_device/host0", "../../devices/pci0000:00/0000:00:10.0/host0/sas_device/host0");
	expect_sda((const char *const[]){ "pci-0000:00:10.0-sas-exp0x500605b000000001-phy4-lun-0", NULL });

	/* a wide port (several phys) is named by the end device's address */
	fx_text(ROOT, PCI "/host0/port-0:0/sas_port/port-0:0/num_phys", "4\n");
	fx_text(ROOT, PCI "/host0/port-0:0/end_device-0:0/sas_device/end_device-0:0/sas_address", "0x5000c50000000042\n");
	expect_sda((const char *const[]){ "pci-0000:00:10.0-sas-0x5000c50000000042-lun-0", NULL });
}

ATF_TC_WITHOUT_HEAD(fc_and_big_lun);
ATF_TC_BODY(fc_and_big_lun, tc)
{
	const char *t = PCI "/host3/rport-3:0-2/target3:0:0";

	pci_base();
	fx_device(ROOT, PCI "/host3", "scsi", "scsi_host");
	fx_device(ROOT, PCI "/host3/rport-3:0-2", NULL, NULL);
	fx_device(ROOT, t, "scsi", "scsi_target");
	fx_device(ROOT, PCI "/host3/rport-3:0-2/fc_transport/target3:0:0", "fc_transport", NULL);
	fx_text(ROOT, PCI "/host3/rport-3:0-2/fc_transport/target3:0:0/port_name", "0x21000024ff3dfe9a\n");
	fx_link(ROOT, "/class/fc_transport/target3:0:0", "../../devices/pci0000:00/0000:00:10.0/host3/rport-3:0-2/fc_transport/target3:0:0");
	scsi_disk(PCI "/host3/rport-3:0-2/target3:0:0/3:0:0:16384", "sda");
	/* LUNs past 255 use udev's 64-bit form */
	expect_sda((const char *const[]){ "pci-0000:00:10.0-fc-0x21000024ff3dfe9a-lun-0x4000000000000000", NULL });
}

ATF_TC_WITHOUT_HEAD(iscsi);
ATF_TC_BODY(iscsi, tc)
{
	const char *s = "/devices/platform/host7/session2";

	fx_device(ROOT, "/devices/platform", NULL, NULL);
	fx_device(ROOT, "/devices/platform/host7", "scsi", "scsi_host");
	fx_device(ROOT, s, NULL, NULL);
	fx_device(ROOT, "/devices/platform/host7/session2/iscsi_session/session2", "iscsi_session", NULL);
	fx_text(ROOT, "/devices/platform/host7/session2/iscsi_session/session2/targetname", "iqn.2003-01.org.example:disk 1\n");
	fx_link(ROOT, "/class/iscsi_session/session2", "../../devices/platform/host7/session2/iscsi_session/session2");
	fx_device(ROOT, "/devices/platform/host7/session2/connection2:0/iscsi_connection/connection2:0", "iscsi_connection", NULL);
	fx_text(ROOT, "/devices/platform/host7/session2/connection2:0/iscsi_connection/connection2:0/persistent_address", "192.0.2.7\n");
	fx_text(ROOT, "/devices/platform/host7/session2/connection2:0/iscsi_connection/connection2:0/persistent_port", "3260\n");
	fx_link(ROOT, "/class/iscsi_connection/connection2:0", "../../devices/platform/host7/session2/connection2:0/iscsi_connection/connection2:0");
	fx_device(ROOT, "/devices/platform/host7/session2/target7:0:0", "scsi", "scsi_target");
	scsi_disk("/devices/platform/host7/session2/target7:0:0/7:0:0:1", "sda");
	/* an iSCSI session counts as a known parent by itself; the space in
	 * the target name becomes '_' in the link */
	expect_sda((const char *const[]){ "ip-192.0.2.7:3260-iscsi-iqn.2003-01.org.example:disk_1-lun-1", NULL });
	/* a platform device above it adds its element */
	fx_device(ROOT, "/devices/platform", "platform", NULL);
	expect_sda((const char *const[]){ "platform-platform-ip-192.0.2.7:3260-iscsi-iqn.2003-01.org.example:disk_1-lun-1", NULL });
}

ATF_TC_WITHOUT_HEAD(ata_port_multiplier);
ATF_TC_BODY(ata_port_multiplier, tc)
{
	pci_base();
	fx_device(ROOT, PCI "/ata2", NULL, NULL);
	fx_device(ROOT, PCI "/ata2/ata_port/ata2", "ata_port", NULL);
	fx_text(ROOT, PCI "/ata2/ata_port/ata2/port_no", "2\n");
	fx_link(ROOT, "/class/ata_port/ata2", "../../devices/pci0000:00/0000:00:10.0/ata2/ata_port/ata2");
	fx_device(ROOT, PCI "/ata2/host1", "scsi", "scsi_host");
	fx_device(ROOT, PCI "/ata2/host1/target1:3:0", "scsi", "scsi_target");
	scsi_disk(PCI "/ata2/host1/target1:3:0/1:3:0:0", "sda");
	/* behind a port multiplier the SCSI channel is the PMP port */
	expect_sda((const char *const[]){ "pci-0000:00:10.0-ata-2.3.0", "pci-0000:00:10.0-ata-2", NULL });
}

ATF_TC_WITHOUT_HEAD(hyperv);
ATF_TC_BODY(hyperv, tc)
{
	const char *vm = "/devices/LNXSYSTM:00/VMBUS:00/f8b3781b-1e82-4818-a1c3-63d806ec15bb";

	fx_device(ROOT, "/devices/LNXSYSTM:00", "acpi", NULL);
	fx_device(ROOT, "/devices/LNXSYSTM:00/VMBUS:00", "acpi", NULL);
	fx_device(ROOT, vm, "vmbus", NULL);
	fx_text(ROOT, "/devices/LNXSYSTM:00/VMBUS:00/f8b3781b-1e82-4818-a1c3-63d806ec15bb/device_id",
		"{f8b3781b-1e82-4818-a1c3-63d806ec15bb}\n");
	fx_device(ROOT, "/devices/LNXSYSTM:00/VMBUS:00/f8b3781b-1e82-4818-a1c3-63d806ec15bb/host0", "scsi", "scsi_host");
	fx_device(ROOT, "/devices/LNXSYSTM:00/VMBUS:00/f8b3781b-1e82-4818-a1c3-63d806ec15bb/host0/target0:0:0", "scsi", "scsi_target");
	scsi_disk("/devices/LNXSYSTM:00/VMBUS:00/f8b3781b-1e82-4818-a1c3-63d806ec15bb/host0/target0:0:0/0:0:0:0", "sda");
	/* a run of ACPI devices is named by its lowest one, then skipped */
	expect_sda((const char *const[]){ "acpi-VMBUS:00-vmbus-f8b3781b1e824818a1c363d806ec15bb-lun-0", NULL });
}

ATF_TC_WITHOUT_HEAD(emmc_boot_and_no_transport);
ATF_TC_BODY(emmc_boot_and_no_transport, tc)
{
	const char *card = "/devices/platform/fe320000.mmc/mmc_host/mmc0/mmc0:0001";

	fx_device(ROOT, "/devices/platform", NULL, NULL);
	fx_device(ROOT, "/devices/platform/fe320000.mmc", "platform", NULL);
	fx_device(ROOT, "/devices/platform/fe320000.mmc/mmc_host/mmc0", "mmc_host", NULL);
	fx_device(ROOT, card, "mmc", NULL);
	fx_device(ROOT, "/devices/platform/fe320000.mmc/mmc_host/mmc0/mmc0:0001/block/mmcblk0", "block", "disk");
	fx_text(ROOT, "/devices/platform/fe320000.mmc/mmc_host/mmc0/mmc0:0001/block/mmcblk0/dev", "179:0\n");
	fx_link(ROOT, "/block/mmcblk0", "../devices/platform/fe320000.mmc/mmc_host/mmc0/mmc0:0001/block/mmcblk0");
	fx_device(ROOT, "/devices/platform/fe320000.mmc/mmc_host/mmc0/mmc0:0001/block/mmcblk0/mmcblk0boot1", "block", "disk");
	fx_text(ROOT, "/devices/platform/fe320000.mmc/mmc_host/mmc0/mmc0:0001/block/mmcblk0/mmcblk0boot1/dev", "179:16\n");
	fx_link(ROOT, "/block/mmcblk0boot1", "../devices/platform/fe320000.mmc/mmc_host/mmc0/mmc0:0001/block/mmcblk0/mmcblk0boot1");
	/* a platform parent is a transport too */
	fx_expect(ROOT, "mmcblk0", path_id_links, (const char *const[]){ "platform-fe320000.mmc", NULL });
	fx_expect(ROOT, "mmcblk0boot1", path_id_links,
		  (const char *const[]){ "platform-fe320000.mmc-boot1", NULL });

	/* a disk straight under PCI (no transport udev knows): no name */
	pci_base();
	fx_device(ROOT, PCI "/block/xvda", "block", "disk");
	fx_text(ROOT, PCI "/block/xvda/dev", "202:0\n");
	fx_link(ROOT, "/block/xvda", "../devices/pci0000:00/0000:00:10.0/block/xvda");
	fx_expect(ROOT, "xvda", path_id_links, (const char *const[]){ NULL });
}

ATF_TC_WITHOUT_HEAD(rules_gate);
ATF_TC_BODY(rules_gate, tc)
{
	char path[PATH_ID_MAX];

	pci_base();
	fx_device(ROOT, PCI "/virtio3", "virtio", NULL);
	fx_device(ROOT, PCI "/virtio3/block/vda", "block", "disk");
	fx_link(ROOT, "/block/vda", "../devices/pci0000:00/0000:00:10.0/virtio3/block/vda");
	/* no "dev": nothing to link (like nvme0c0n1 path devices) */
	fx_expect(ROOT, "vda", path_id_links, (const char *const[]){ NULL });
	ATF_CHECK_EQ(path_id(ROOT, PCI "/virtio3/block/vda", path, sizeof(path)), 0);
	ATF_CHECK_STREQ(path, "pci-0000:00:10.0");
	fx_text(ROOT, PCI "/virtio3/block/vda/dev", "254:0\n");
	fx_expect(ROOT, "vda", path_id_links,
		  (const char *const[]){ "pci-0000:00:10.0", "virtio-pci-0000:00:10.0", NULL });
	/* a kernel name the rules do not list */
	fx_device(ROOT, PCI "/virtio3/block/zram0", "block", "disk");
	fx_text(ROOT, PCI "/virtio3/block/zram0/dev", "251:0\n");
	fx_link(ROOT, "/block/zram0", "../devices/pci0000:00/0000:00:10.0/virtio3/block/zram0");
	fx_expect(ROOT, "zram0", path_id_links, (const char *const[]){ NULL });
	/* virtual devices get no by-path */
	fx_device(ROOT, "/devices/virtual/block/loop0", "block", "disk");
	fx_text(ROOT, "/devices/virtual/block/loop0/dev", "7:0\n");
	fx_link(ROOT, "/block/loop0", "../devices/virtual/block/loop0");
	fx_expect(ROOT, "loop0", path_id_links, (const char *const[]){ NULL });
	ATF_CHECK_EQ(path_id(ROOT, "/devices/virtual/block/loop0", path, sizeof(path)), -ENOENT);
	/* a partition is named by the caller from its disk */
	fx_text(ROOT, PCI "/virtio3/block/vda/uevent", "DEVTYPE=partition\n");
	fx_expect(ROOT, "vda", path_id_links, (const char *const[]){ NULL });
}

/* The block devices udev's rules probe with blkid, and those they do not. */
ATF_TC_WITHOUT_HEAD(probed_kernels);
ATF_TC_BODY(probed_kernels, tc)
{
	static const char *const yes[] = { "sda", "sda1", "vda", "nvme0n1p2", "sr0", "loop7",
					   "mmcblk0p1", "xvda", "dm-0", "dm-12", "md0", "md127",
					   "nbd3", "pmem0" };
	static const char *const no[] = { "fd0", "ram0", "zram0", "mtdblock0", "nullb0",
					  "rbd0", "dm", "" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ATF_CHECK_MSG(path_id_probed_kernel(yes[i]), "%s", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ATF_CHECK_MSG(!path_id_probed_kernel(no[i]), "%s", no[i]);
}

/* ---- hostile trees ---- */

ATF_TC_WITHOUT_HEAD(hostile_devpaths);
ATF_TC_BODY(hostile_devpaths, tc)
{
	char names[PATH_ID_LINKS_MAX][PATH_ID_NAME_MAX], path[PATH_ID_MAX], big[2048];
	const char *bad[] = { "", "/", "devices/x", "/devices/../etc", "/devices/./x",
			      "/devices//x", "/devices/pci0000:00/..", "/sys/block/sda" };

	pci_base();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ATF_CHECK(path_id(ROOT, bad[i], path, sizeof(path)) < 0);
		ATF_CHECK(path_id_links(ROOT, bad[i], names, PATH_ID_LINKS_MAX) <= 0);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	ATF_CHECK_EQ(path_id(ROOT, big, path, sizeof(path)), -ENAMETOOLONG);
	ATF_CHECK(path_id("no-such-root", PCI, path, sizeof(path)) < 0);
}

static void ata_disk_with_port_no(const char *data, size_t len);

ATF_TC_WITHOUT_HEAD(symlinks_not_followed);
ATF_TC_BODY(symlinks_not_followed, tc)
{
	char names[PATH_ID_LINKS_MAX][PATH_ID_NAME_MAX];
	const char *good[] = { "pci-0000:00:10.0-ata-1.0", "pci-0000:00:10.0-ata-1", NULL };

	/* a device directory that is a symlink out of the tree is not walked */
	pci_base();
	fx_device(ROOT, "/outside/virtio3", "virtio", NULL);
	fx_device(ROOT, "/outside/virtio3/block/vda", "block", "disk");
	fx_text(ROOT, "/outside/virtio3/block/vda/dev", "254:0\n");
	fx_link(ROOT, PCI "/virtio3", "../../../outside/virtio3");
	ATF_CHECK_EQ(path_id_links(ROOT, PCI "/virtio3/block/vda", names, PATH_ID_LINKS_MAX), 0);

	ata_disk_with_port_no("1\n", 2);
	expect_sda(good);
	/* an attribute that is a symlink is not read */
	fx_link(ROOT, PCI "/ata1/ata_port/ata1/port_no", "../../../../../../outside/port_no");
	fx_text(ROOT, "/outside/port_no", "1\n");
	expect_sda((const char *const[]){ NULL });
	ata_disk_with_port_no("1\n", 2);
	expect_sda(good);
	/* a class link that climbs out of the root is refused */
	fx_link(ROOT, "/class/ata_port/ata1", "../../../../outside");
	expect_sda((const char *const[]){ NULL });
	/* and one into the tree but not at a device */
	fx_link(ROOT, "/class/ata_port/ata1", "../../devices/pci0000:00/0000:00:10.0/ata1/ata_port");
	expect_sda((const char *const[]){ NULL });
}

static void ata_disk_with_port_no(const char *data, size_t len)
{
	pci_base();
	fx_device(ROOT, PCI "/ata1", NULL, NULL);
	fx_device(ROOT, PCI "/ata1/ata_port/ata1", "ata_port", NULL);
	fx_file(ROOT, PCI "/ata1/ata_port/ata1/port_no", data, len);
	fx_link(ROOT, "/class/ata_port/ata1", "../../devices/pci0000:00/0000:00:10.0/ata1/ata_port/ata1");
	fx_device(ROOT, PCI "/ata1/host0", "scsi", "scsi_host");
	fx_device(ROOT, PCI "/ata1/host0/target0:0:0", "scsi", "scsi_target");
	scsi_disk(PCI "/ata1/host0/target0:0:0/0:0:0:0", "sda");
}

ATF_TC_WITHOUT_HEAD(hostile_attribute_values);
ATF_TC_BODY(hostile_attribute_values, tc)
{
	char junk[4096 + 64], names[PATH_ID_LINKS_MAX][PATH_ID_NAME_MAX], path[PATH_ID_MAX];

	/* whitespace runs become one '_' in the link (udev's SYMLINK rule) */
	ata_disk_with_port_no("1 \t2\n", 5);
	expect_sda((const char *const[]){ "pci-0000:00:10.0-ata-1_2.0", "pci-0000:00:10.0-ata-1_2", NULL });
	/* a '/' would make udev create a subdirectory: no name here */
	ata_disk_with_port_no("1/../../x\n", 10);
	expect_sda((const char *const[]){ NULL });
	ATF_CHECK_EQ(path_id(ROOT, PCI "/ata1/host0/target0:0:0/0:0:0:0/block/sda", path, sizeof(path)), 0);
	ATF_CHECK_STREQ(path, "pci-0000:00:10.0-ata-1/../../x.0");
	/* invalid UTF-8 and control bytes become '_', valid UTF-8 stays */
	ata_disk_with_port_no("\xc3\xa9\xff\x01$\n", 6);
	expect_sda((const char *const[]){ "pci-0000:00:10.0-ata-\xc3\xa9___.0", "pci-0000:00:10.0-ata-\xc3\xa9___", NULL });
	/* an embedded NUL ends the value, as in udev */
	ata_disk_with_port_no("7\0/evil\n", 8);
	expect_sda((const char *const[]){ "pci-0000:00:10.0-ata-7.0", "pci-0000:00:10.0-ata-7", NULL });
	/* 4 KiB of junk: no name, no overflow */
	memset(junk, 'x', sizeof(junk));
	ata_disk_with_port_no(junk, sizeof(junk));
	ATF_CHECK_EQ(path_id_links(ROOT, PCI "/ata1/host0/target0:0:0/0:0:0:0/block/sda", names, PATH_ID_LINKS_MAX), 0);
	ata_disk_with_port_no(junk, 300);
	ATF_CHECK_EQ(path_id_links(ROOT, PCI "/ata1/host0/target0:0:0/0:0:0:0/block/sda", names, PATH_ID_LINKS_MAX), 0);
	ATF_CHECK(path_id(ROOT, PCI "/ata1/host0/target0:0:0/0:0:0:0/block/sda", path, sizeof(path)) == 0);
	/* "." and ".." never come out: every name has a bus prefix */
	ata_disk_with_port_no("..\n", 3);
	expect_sda((const char *const[]){ "pci-0000:00:10.0-ata-...0", "pci-0000:00:10.0-ata-..", NULL });
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, udev_q35);
	ATF_TP_ADD_TC(tp, udev_pc_nvme_multipath);
	ATF_TP_ADD_TC(tp, udev_pc_nvme_single);
	ATF_TP_ADD_TC(tp, udev_hostile);
	ATF_TP_ADD_TC(tp, udev_hba);
	ATF_TP_ADD_TC(tp, q35_names);
	ATF_TP_ADD_TC(tp, pc_names);
	ATF_TP_ADD_TC(tp, sas_direct_and_expander);
	ATF_TP_ADD_TC(tp, fc_and_big_lun);
	ATF_TP_ADD_TC(tp, iscsi);
	ATF_TP_ADD_TC(tp, ata_port_multiplier);
	ATF_TP_ADD_TC(tp, hyperv);
	ATF_TP_ADD_TC(tp, emmc_boot_and_no_transport);
	ATF_TP_ADD_TC(tp, rules_gate);
	ATF_TP_ADD_TC(tp, probed_kernels);
	ATF_TP_ADD_TC(tp, hostile_devpaths);
	ATF_TP_ADD_TC(tp, symlinks_not_followed);
	ATF_TP_ADD_TC(tp, hostile_attribute_values);
	return atf_no_error();
}
