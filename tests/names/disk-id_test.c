/* SPDX-License-Identifier: MIT */
/*
 * by-id names. The qemu-* fixtures were captured from Linux 6.1 guests with
 * the links real systemd-udevd 252 (ata_id, scsi_id, usb_id) made for them:
 * every link must match except the listed, documented gaps. Hand-made trees
 * cover what QEMU cannot produce; their expectations come from reading the
 * 252 rules and helpers.
 */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "names/disk-id.h"
#include "sysfs-fixture.h"

#define ROOT "sys"
#define PCI "/devices/pci0000:00/0000:00:10.0"

#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NONE ((const char *const[]){ NULL })

static void compare(const atf_tc_t *tc, const char *name, int links,
		    const char *const *gaps)
{
	fx_build(tc, name, ROOT);
	ATF_CHECK_EQ(fx_compare_udev(tc, name, ROOT, "by-id", disk_ids, gaps), links);
}

ATF_TC_WITHOUT_HEAD(udev_q35);
ATF_TC_BODY(udev_q35, tc)
{
	/* '/' in a virtio serial: udev makes a subdirectory; the SCSI CD-ROM
	 * has no VPD pages in sysfs (the kernel did not read them) */
	compare(tc, "qemu-q35", 43,
		NAMES("virtio-v_s/3", "virtio-v_s/3-part1", "scsi-0QEMU_QEMU_CD-ROM_c1"));
}

ATF_TC_WITHOUT_HEAD(udev_pc_nvme_multipath);
ATF_TC_BODY(udev_pc_nvme_multipath, tc)
{
	compare(tc, "qemu-pc-nvme-multipath", 21, NULL);
}

ATF_TC_WITHOUT_HEAD(udev_pc_nvme_single);
ATF_TC_BODY(udev_pc_nvme_single, tc)
{
	compare(tc, "qemu-pc-nvme-single", 21, NULL);
}

ATF_TC_WITHOUT_HEAD(udev_hostile);
ATF_TC_BODY(udev_hostile, tc)
{
	/* INQUIRY vendor "V\xc3\xa9": the kernel shows it sanitized ("V  ") in
	 * sysfs, scsi_id reads the raw bytes */
	compare(tc, "qemu-hostile", 16,
		NAMES("scsi-0V\xc3\xa9___", "scsi-0V\xc3\xa9___-part1", "scsi-0V___", "scsi-0V___-part1"));
}

ATF_TC_WITHOUT_HEAD(udev_hba);
ATF_TC_BODY(udev_hba, tc)
{
	compare(tc, "qemu-hba", 14, NULL);
}

ATF_TC_WITHOUT_HEAD(q35_names);
ATF_TC_BODY(q35_names, tc)
{
	fx_build(tc, "qemu-q35", ROOT);
	fx_expect(ROOT, "vda", disk_ids, NAMES("virtio-VSERIAL-01"));
	fx_expect(ROOT, "vdb", disk_ids, NONE);  /* udev: virtio-v_s/3 */
	fx_expect(ROOT, "vdc", disk_ids, NONE);  /* no serial */
	/* scsi_id prefers the NAA descriptor of page 0x83 */
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-35000c50015ea71ac", "wwn-0x5000c50015ea71ac"));
	/* else the vendor-specific one, prefixed with vendor and model */
	fx_expect(ROOT, "sdb", disk_ids, NAMES("scsi-0QEMU_QEMU_HARDDISK_SSERIAL2"));
	fx_expect(ROOT, "sdd", disk_ids, NAMES("scsi-0QEMU_QEMU_HARDDISK_S_C_S_I"));
	/* ATA: ata_id's IDENTIFY, read from libata's copy */
	fx_expect(ROOT, "sde", disk_ids, NAMES("ata-QEMU_HARDDISK_ASERIAL1", "wwn-0x5000c500a1b2c3d4"));
	fx_expect(ROOT, "sdg", disk_ids, NAMES("ata-My_Model_X_Y_A_B_C"));
	fx_expect(ROOT, "sr1", disk_ids, NAMES("ata-QEMU_DVD-ROM_QM00009"));
	fx_expect(ROOT, "sdh", disk_ids, NAMES("usb-QEMU_QEMU_HARDDISK_USBSER1-0:0"));
	fx_expect(ROOT, "sdj", disk_ids, NAMES("usb-QEMU_QEMU_HARDDISK_usb_s_3-0:0"));
	fx_expect(ROOT, "nvme0n1", disk_ids,
		  NAMES("nvme-nvme.1b36-4e564d4553455231-51454d55204e564d65204374726c-00000001",
			"nvme-QEMU_NVMe_Ctrl_NVMESER1", "nvme-QEMU_NVMe_Ctrl_NVMESER1_1"));
	fx_expect(ROOT, "nvme1n2", disk_ids,
		  NAMES("nvme-nvme.1b36-4e562f4d452032-51454d55204e564d65204374726c-00000002",
			"nvme-QEMU_NVMe_Ctrl_NV_ME_2", "nvme-QEMU_NVMe_Ctrl_NV_ME_2_2"));
}

ATF_TC_WITHOUT_HEAD(other_layout_names);
ATF_TC_BODY(other_layout_names, tc)
{
	fx_build(tc, "qemu-pc-nvme-multipath", ROOT);
	fx_expect(ROOT, "sdd", disk_ids, NAMES("ata-QEMU_HARDDISK_PSLAVE"));
	fx_expect(ROOT, "sdb", disk_ids, NAMES("scsi-0AB_CD_Prod_uct_X_dev_id_1"));
	/* the virtio serial is cut to 20 bytes by the kernel */
	fx_expect(ROOT, "vda", disk_ids, NAMES("virtio-12345678901234567890"));
	fx_expect(ROOT, "nvme0n2", disk_ids,
		  NAMES("nvme-nvme.1b36-4d5053455249414c-51454d55204e564d65204374726c-00000003",
			"nvme-QEMU_NVMe_Ctrl_MPSERIAL", "nvme-QEMU_NVMe_Ctrl_MPSERIAL_3"));
	fx_expect(ROOT, "nvme0c0n1", disk_ids, NONE);
}

ATF_TC_WITHOUT_HEAD(hostile_names);
ATF_TC_BODY(hostile_names, tc)
{
	fx_build(tc, "qemu-hostile", ROOT);
	fx_expect(ROOT, "vda", disk_ids, NAMES("virtio-t_ab_\xc3\xa9_____"));
	fx_expect(ROOT, "vdb", disk_ids, NAMES("virtio-a\\x2fb.."));
	fx_expect(ROOT, "vdc", disk_ids, NONE);
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-0QEMU_QEMU_HARDDISK_s\xc3\xa9__x"));
	fx_expect(ROOT, "sdc", disk_ids, NAMES("ata-_ctl_mod\\x41_____lead\xc3\xa9"));
	fx_expect(ROOT, "nvme0n1", disk_ids,
		  NAMES("nvme-nvme.1b36-6e2076c3a92f-51454d55204e564d65204374726c-00000001",
			"nvme-QEMU_NVMe_Ctrl_n_v\xc3\xa9_", "nvme-QEMU_NVMe_Ctrl_n_v\xc3\xa9__1"));
	/* ',' and non-ASCII USB serials are dropped */
	fx_expect(ROOT, "sdd", disk_ids, NAMES("usb-QEMU_QEMU_HARDDISK-0:0"));
	fx_expect(ROOT, "sde", disk_ids, NAMES("usb-QEMU_QEMU_HARDDISK-0:0"));
}

/* ---- hand-made trees ---- */

static void pci_base(void)
{
	fx_device(ROOT, "/devices/pci0000:00", NULL, NULL);
	fx_device(ROOT, PCI, "pci", NULL);
}

static void block(const char *devpath, const char *kname)
{
	char p[1024], l[256];

	fx_device(ROOT, devpath, "block", "disk");
	snprintf(p, sizeof(p), "%s/dev", devpath);
	fx_text(ROOT, p, "8:0\n");
	snprintf(l, sizeof(l), "/block/%s", kname);
	snprintf(p, sizeof(p), "..%s", devpath);
	fx_link(ROOT, l, p);
}

#define VDA PCI "/virtio3/block/vda"

static void virtio_serial(const char *data, size_t len)
{
	pci_base();
	fx_device(ROOT, PCI "/virtio3", "virtio", NULL);
	block(VDA, "vda");
	fx_file(ROOT, VDA "/serial", data, len);
}

#define VIRTIO(lit, ...)                                                    \
	do {                                                                \
		virtio_serial(lit, sizeof(lit) - 1);                        \
		fx_expect(ROOT, "vda", disk_ids, (const char *const[]){ __VA_ARGS__, NULL }); \
	} while (0)

ATF_TC_WITHOUT_HEAD(hostile_virtio_serials);
ATF_TC_BODY(hostile_virtio_serials, tc)
{
	char junk[5000], want[256];

	VIRTIO("ABC\n", "virtio-ABC");
	VIRTIO("a b  c \t\n", "virtio-a_b_c");
	VIRTIO("  lead\n", "virtio-lead");
	VIRTIO("t\tab\n", "virtio-t_ab");
	VIRTIO("a\nb\n", "virtio-a_b");                 /* newline inside */
	VIRTIO("x/y\n", NULL);                          /* udev: a subdirectory */
	VIRTIO("../../etc\n", NULL);
	VIRTIO("..\n", "virtio-..");                    /* a name, not ".." */
	VIRTIO("\xff\xfe\xc3(\n", "virtio-____");        /* invalid UTF-8 */
	VIRTIO("\xed\xa0\x80\xef\xbf\xbf\n", "virtio-______"); /* surrogate, U+FFFF */
	VIRTIO("\xe2\x82\xac ok\n", "virtio-\xe2\x82\xac_ok");
	VIRTIO("%$?,#+=@:\n", "virtio-____#+=@:");
	VIRTIO("a\\x2fb\n", "virtio-a\\x2fb");          /* udev keeps "\x" */
	VIRTIO("a\\b\n", "virtio-a_b");
	VIRTIO("a\0/evil\n", "virtio-a");                /* NUL ends it */
	VIRTIO("   \n", NULL);                          /* blank: no match */
	VIRTIO("\n", NULL);
	/* 4 KiB and more of junk: udev refuses the value, keeps the link */
	memset(junk, 'x', sizeof(junk));
	virtio_serial(junk, sizeof(junk));
	fx_expect(ROOT, "vda", disk_ids, NAMES("virtio-"));
	virtio_serial(junk, 600);
	fx_expect(ROOT, "vda", disk_ids, NAMES("virtio-"));
	/* fits udev's value but not a file name */
	virtio_serial(junk, 300);
	fx_expect(ROOT, "vda", disk_ids, NONE);
	virtio_serial(junk, 248);
	memcpy(want, "virtio-", 7);
	memset(want + 7, 'x', 248);
	want[255] = '\0';
	fx_expect(ROOT, "vda", disk_ids, NAMES(want));
	/* a symlinked serial is not read */
	virtio_serial("X\n", 2);
	unlink(ROOT VDA "/serial");
	fx_text(ROOT, "/secret", "S3CRET\n");
	fx_link(ROOT, VDA "/serial", "../../../../../../secret");
	fx_expect(ROOT, "vda", disk_ids, NONE);
}

/* ---- ATA: IDENTIFY as libata's ata_device/devX.Y/id shows it ---- */

static void put_string(unsigned short *w, int first, int len, const char *s)
{
	for (int i = 0; i < len; i++) {
		unsigned char c = i < (int)strlen(s) ? (unsigned char)s[i] : ' ';

		if (i % 2 == 0)
			w[first + i / 2] = (unsigned short)(c << 8);
		else
			w[first + i / 2] |= c;
	}
}

static void identify_text(const char *model, const char *serial, unsigned long long wwn,
			  char *out, size_t size)
{
	unsigned short w[256] = { 0 };
	size_t o = 0;

	put_string(w, 27, 40, model);
	put_string(w, 10, 20, serial);
	put_string(w, 23, 8, "1.0");
	for (int i = 0; i < 4; i++)
		w[108 + i] = (unsigned short)(wwn >> (48 - 16 * i));
	for (int i = 0; i < 256; i++)
		o += (size_t)snprintf(out + o, size - o, "%04x%c", w[i], (i + 1) % 8 ? ' ' : '\n');
}

#define ATA_PORT PCI "/ata3"

/* an AHCI port ata3 with a disk at SCSI channel c, target t */
static void ata_disk(unsigned c, const char *id_text)
{
	char sdev[512], p[768];

	pci_base();
	fx_device(ROOT, ATA_PORT, NULL, NULL);
	fx_device(ROOT, ATA_PORT "/host2", "scsi", "scsi_host");
	snprintf(p, sizeof(p), ATA_PORT "/host2/target2:%u:0", c);
	fx_device(ROOT, p, "scsi", "scsi_target");
	snprintf(sdev, sizeof(sdev), ATA_PORT "/host2/target2:%u:0/2:%u:0:0", c, c);
	fx_device(ROOT, sdev, "scsi", "scsi_device");
	snprintf(p, sizeof(p), "%s/vendor", sdev);
	fx_text(ROOT, p, "ATA     \n");
	snprintf(p, sizeof(p), "%s/model", sdev);
	fx_text(ROOT, p, "QEMU HARDDISK   \n");
	snprintf(p, sizeof(p), "%s/block/sda", sdev);
	block(p, "sda");
	if (c)
		snprintf(p, sizeof(p), ATA_PORT "/link3.%u/dev3.%u.0/ata_device/dev3.%u.0", c, c, c);
	else
		snprintf(p, sizeof(p), ATA_PORT "/link3/dev3.0/ata_device/dev3.0");
	fx_device(ROOT, p, "ata_device", NULL);
	strcat(p, "/id");
	if (id_text)
		fx_text(ROOT, p, id_text);
}

ATF_TC_WITHOUT_HEAD(ata_identify);
ATF_TC_BODY(ata_identify, tc)
{
	char id[2048];

	identify_text("WDC WD10EZEX-00BN5A0", "WD-WCC3F0000001", 0x50014ee2b0000001ULL, id, sizeof(id));
	ata_disk(0, id);
	fx_expect(ROOT, "sda", disk_ids, NAMES("ata-WDC_WD10EZEX-00BN5A0_WD-WCC3F0000001", "wwn-0x50014ee2b0000001"));
	/* behind a port multiplier: link3.2/dev3.2.0; no NAA-5 WWN, no wwn- */
	identify_text("Samsung SSD 870", "S5Y0", 0x1234000000000000ULL, id, sizeof(id));
	ata_disk(2, id);
	fx_expect(ROOT, "sda", disk_ids, NAMES("ata-Samsung_SSD_870_S5Y0"));
	/* no serial: the model alone */
	identify_text("NOSERIAL", "", 0, id, sizeof(id));
	ata_disk(0, id);
	fx_expect(ROOT, "sda", disk_ids, NAMES("ata-NOSERIAL"));
	/* neither: ata_id's empty ID_SERIAL is not imported, scsi_id runs */
	identify_text("", "", 0, id, sizeof(id));
	ata_disk(0, id);
	fx_file(ROOT, ATA_PORT "/host2/target2:0:0/2:0:0:0/vpd_pg80",
		"\x00\x80\x00\x04" "SN42", 8);
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-SATA_QEMU_HARDDISK_SN42"));
	/* an unreadable IDENTIFY: udev would name it ata-..., we cannot: none,
	 * and not a scsi- name udev would not make */
	ata_disk(0, "garbage");
	fx_expect(ROOT, "sda", disk_ids, NONE);
	unlink(ROOT ATA_PORT "/link3/dev3.0/ata_device/dev3.0/id");
	fx_expect(ROOT, "sda", disk_ids, NONE);
	/* hostile strings in IDENTIFY */
	identify_text("  A/B\x01 \xc3\xa9  ", "../..", 0, id, sizeof(id));
	ata_disk(0, id);
	fx_expect(ROOT, "sda", disk_ids, NAMES("ata-A_B__\xc3\xa9_.._.."));
}

/* ---- SCSI: VPD pages ---- */

#define SDEV PCI "/virtio4/host0/target0:0:0/0:0:0:0"

static void scsi_disk(const char *vendor, const char *model)
{
	pci_base();
	fx_device(ROOT, PCI "/virtio4", "virtio", NULL);
	fx_device(ROOT, PCI "/virtio4/host0", "scsi", "scsi_host");
	fx_device(ROOT, PCI "/virtio4/host0/target0:0:0", "scsi", "scsi_target");
	fx_device(ROOT, SDEV, "scsi", "scsi_device");
	fx_text(ROOT, SDEV "/vendor", vendor);
	fx_text(ROOT, SDEV "/model", model);
	block(SDEV "/block/sda", "sda");
}

#define PG83(lit) fx_file(ROOT, SDEV "/vpd_pg83", lit, sizeof(lit) - 1)
#define PG80(lit) fx_file(ROOT, SDEV "/vpd_pg80", lit, sizeof(lit) - 1)

ATF_TC_WITHOUT_HEAD(scsi_vpd);
ATF_TC_BODY(scsi_vpd, tc)
{
	char big[300], want[256];

	scsi_disk("VEND    \n", "Model 16 chars  \n");
	/* NAA IEEE Registered Extended (16 bytes): WWN plus extension */
	PG83("\x00\x83\x00\x14"
	     "\x01\x03\x00\x10\x60\x00\x0c\x29\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb");
	fx_expect(ROOT, "sda", disk_ids,
		  NAMES("scsi-360000c2900112233445566778899aabb",
			"wwn-0x60000c2900112233445566778899aabb"));
	/* a target port descriptor and a port group do not name the disk;
	 * EUI-64 beats T10 vendor id beats vendor specific */
	PG83("\x00\x83\x00\x34"
	     "\x01\x93\x00\x08\x50\x00\x00\x00\x00\x00\x00\x01"  /* NAA, target port */
	     "\x01\x15\x00\x04\x00\x00\x00\x01"                  /* port group */
	     "\x02\x01\x00\x08" "T10 ID 1"                       /* T10, ASCII */
	     "\x01\x02\x00\x08\x00\x11\x22\x33\x44\x55\x66\x77"  /* EUI-64 */
	     "\x02\x00\x00\x04" "VS 1");                         /* vendor specific */
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-20011223344556677"));
	PG83("\x00\x83\x00\x14"
	     "\x02\x00\x00\x04" "VS 1"
	     "\x02\x01\x00\x08" "T10 ID 1");
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-1T10_ID_1"));
	/* vendor specific: vendor and model (raw, 8 + 16) go first */
	PG83("\x00\x83\x00\x08" "\x02\x00\x00\x04" "a/b ");
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-0VEND_Model_16_chars_a_b"));
	/* binary vendor specific */
	PG83("\x00\x83\x00\x06" "\x01\x00\x00\x02\xde\xad");
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-0VEND_Model_16_chars_dead"));
	/* nothing usable in page 0x83: page 0x80 */
	PG83("\x00\x83\x00\x08" "\x03\x08\x00\x04" "naa.");
	PG80("\x00\x80\x00\x06" "SER 01");
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-SVEND_Model_16_chars_SER_01"));
	/* a descriptor running past scsi_id's 254 bytes is not used */
	memset(big, 'x', sizeof(big));
	memcpy(big, "\x00\x83\x01\x00" "\x02\x00\x00\xfc", 8);
	fx_file(ROOT, SDEV "/vpd_pg83", big, 4 + 256);
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-SVEND_Model_16_chars_SER_01"));
	/* but one that ends inside them is */
	memcpy(big, "\x00\x83\x01\x00" "\x02\x01\x00\xf0", 8);
	fx_file(ROOT, SDEV "/vpd_pg83", big, 4 + 256);
	memcpy(want, "scsi-1", 6);
	memset(want + 6, 'x', 240);
	want[246] = '\0';
	fx_expect(ROOT, "sda", disk_ids, NAMES(want));
	/* SCSI-2 style page (EMC): byte 6 is not zero, the payload is the id */
	PG83("\x00\x83\x00\x04" "\x60\x06\x01\x60");
	fx_expect(ROOT, "sda", disk_ids, NAMES("scsi-360060160"));
	/* a short vendor (not 8 bytes) fails scsi_id's vendor-specific forms */
	scsi_disk("AB\n", "Model 16 chars  \n");
	PG83("\x00\x83\x00\x08" "\x02\x00\x00\x04" "VS 1");
	unlink(ROOT SDEV "/vpd_pg80");
	fx_expect(ROOT, "sda", disk_ids, NONE);
	/* no VPD in sysfs at all */
	unlink(ROOT SDEV "/vpd_pg83");
	fx_expect(ROOT, "sda", disk_ids, NONE);
}

/* ---- USB ---- */

#define USBDEV PCI "/usb1/1-2"
#define USBIF USBDEV "/1-2:1.0"
#define USBSDEV USBIF "/host5/target5:0:0/5:0:0:1"

static void usb_disk(const char *subclass, const char *serial)
{
	pci_base();
	fx_device(ROOT, PCI "/usb1", "usb", "usb_device");
	fx_device(ROOT, USBDEV, "usb", "usb_device");
	fx_text(ROOT, USBDEV "/idVendor", "0781\n");
	fx_text(ROOT, USBDEV "/idProduct", "5581\n");
	fx_text(ROOT, USBDEV "/manufacturer", " SanDisk\n");
	fx_text(ROOT, USBDEV "/product", "Ultra  Fit\n");
	if (serial)
		fx_text(ROOT, USBDEV "/serial", serial);
	else
		unlink(ROOT USBDEV "/serial");
	fx_device(ROOT, USBIF, "usb", "usb_interface");
	fx_text(ROOT, USBIF "/bInterfaceClass", "08\n");
	fx_text(ROOT, USBIF "/bInterfaceSubClass", subclass);
	fx_device(ROOT, USBIF "/host5", "scsi", "scsi_host");
	fx_device(ROOT, USBIF "/host5/target5:0:0", "scsi", "scsi_target");
	fx_device(ROOT, USBSDEV, "scsi", "scsi_device");
	fx_text(ROOT, USBSDEV "/vendor", " USB    \n");
	fx_text(ROOT, USBSDEV "/model", "SanDisk 3.2Gen1\n");
	fx_text(ROOT, USBSDEV "/type", "0\n");
	fx_text(ROOT, USBSDEV "/rev", "1.00\n");
	block(USBSDEV "/block/sda", "sda");
	fx_text(ROOT, USBSDEV "/block/sda/removable", "1\n");
}

ATF_TC_WITHOUT_HEAD(usb);
ATF_TC_BODY(usb, tc)
{
	char serial[400], names[DISK_ID_MAX][PATH_ID_NAME_MAX];

	usb_disk("06\n", "4C530001\n");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-USB_SanDisk_3.2Gen1_4C530001-0:1"));
	/* not SCSI transparent: the USB strings, no target:lun */
	usb_disk("05\n", "4C530001\n");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-SanDisk_Ultra_Fit_4C530001"));
	/* udev parses the subclass like C ("08" is not octal): generic too */
	usb_disk("08\n", "4C530001\n");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-SanDisk_Ultra_Fit_4C530001"));
	/* serials with ',' or bytes outside 0x20..0x7f are ignored */
	usb_disk("06\n", "4C53,0001\n");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-USB_SanDisk_3.2Gen1-0:1"));
	usb_disk("06\n", "4C53\xc3\xa9\n");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-USB_SanDisk_3.2Gen1-0:1"));
	usb_disk("06\n", "a/b c\x7f\n");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-USB_SanDisk_3.2Gen1_a_b_c_-0:1"));
	usb_disk("06\n", NULL);
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-USB_SanDisk_3.2Gen1-0:1"));
	/* a blank SCSI vendor falls back to the USB manufacturer */
	usb_disk("06\n", "X\n");
	fx_text(ROOT, USBSDEV "/vendor", "        \n");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-SanDisk_SanDisk_3.2Gen1_X-0:1"));
	/* without manufacturer/product: the ids */
	usb_disk("05\n", "X\n");
	unlink(ROOT USBDEV "/manufacturer");
	unlink(ROOT USBDEV "/product");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-0781_5581_X"));
	/* without idVendor usb_id fails; scsi_id finds no VPD: nothing */
	unlink(ROOT USBDEV "/idVendor");
	fx_expect(ROOT, "sda", disk_ids, NONE);
	/* udev cuts ID_SERIAL at 255 bytes: then "usb-..." is too long */
	memset(serial, 'S', sizeof(serial));
	strcpy(serial + 230, "\n");
	usb_disk("06\n", serial);
	fx_expect(ROOT, "sda", disk_ids, NONE);
	strcpy(serial + 200, "\n");
	usb_disk("06\n", serial);
	ATF_CHECK_EQ(disk_ids(ROOT, USBSDEV "/block/sda", names, DISK_ID_MAX), 1);
	ATF_CHECK_EQ(strlen(names[0]), 4 + 20 + 200 + 4);
	/* an "ATA" vendor behind USB: a SAT bridge udev's ata_id may reach;
	 * the usb- name is udev's either way, the ata- one we cannot know */
	usb_disk("06\n", "B1\n");
	fx_text(ROOT, USBSDEV "/vendor", "ATA     \n");
	fx_text(ROOT, USBSDEV "/block/sda/removable", "0\n");
	fx_expect(ROOT, "sda", disk_ids, NAMES("usb-ATA_SanDisk_3.2Gen1_B1-0:1"));
}

/* ---- NVMe, MMC, memstick, pmem ---- */

#define NVME PCI "/nvme/nvme0"

static void nvme_disk(const char *serial, const char *model)
{
	pci_base();
	fx_device(ROOT, NVME, "nvme", NULL);
	fx_text(ROOT, NVME "/serial", serial);
	fx_text(ROOT, NVME "/model", model);
	block(NVME "/nvme0n1", "nvme0n1");
	fx_text(ROOT, NVME "/nvme0n1/nsid", "1\n");
	fx_text(ROOT, NVME "/nvme0n1/wwid", "eui.0025388b91b44e21\n");
}

ATF_TC_WITHOUT_HEAD(nvme);
ATF_TC_BODY(nvme, tc)
{
	char big[700];

	nvme_disk("S4EWNX0R123456      \n", "Samsung SSD 980 PRO 1TB                 \n");
	fx_expect(ROOT, "nvme0n1", disk_ids,
		  NAMES("nvme-eui.0025388b91b44e21", "nvme-Samsung_SSD_980_PRO_1TB_S4EWNX0R123456",
			"nvme-Samsung_SSD_980_PRO_1TB_S4EWNX0R123456_1"));
	/* string_escape=replace: '/' and each space become '_', no squeezing */
	nvme_disk("A/B  C\n", "M  o/del\n");
	unlink(ROOT NVME "/nvme0n1/wwid");
	fx_expect(ROOT, "nvme0n1", disk_ids, NAMES("nvme-M__o_del_A_B__C", "nvme-M__o_del_A_B__C_1"));
	/* no nsid: only the obsolete name */
	unlink(ROOT NVME "/nvme0n1/nsid");
	fx_expect(ROOT, "nvme0n1", disk_ids, NAMES("nvme-M__o_del_A_B__C"));
	/* a model over udev's 512-byte value is refused: no ID_MODEL, no names */
	memset(big, 'm', sizeof(big));
	strcpy(big + 600, "\n");
	nvme_disk("SER\n", big);
	unlink(ROOT NVME "/nvme0n1/wwid");
	fx_expect(ROOT, "nvme0n1", disk_ids, NONE);
}

ATF_TC_WITHOUT_HEAD(mmc_memstick_pmem);
ATF_TC_BODY(mmc_memstick_pmem, tc)
{
	const char *card = "/devices/platform/sd/mmc_host/mmc0/mmc0:aaaa";

	fx_device(ROOT, "/devices/platform", NULL, NULL);
	fx_device(ROOT, "/devices/platform/sd", "platform", NULL);
	fx_device(ROOT, "/devices/platform/sd/mmc_host/mmc0", "mmc_host", NULL);
	fx_device(ROOT, card, "mmc", NULL);
	fx_text(ROOT, "/devices/platform/sd/mmc_host/mmc0/mmc0:aaaa/name", "SC16G\n");
	fx_text(ROOT, "/devices/platform/sd/mmc_host/mmc0/mmc0:aaaa/serial", "0x1234abcd\n");
	block("/devices/platform/sd/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0", "mmcblk0");
	fx_expect(ROOT, "mmcblk0", disk_ids, NAMES("mmc-SC16G_0x1234abcd"));
	/* the rule only knows mmcblk[0-9] */
	block("/devices/platform/sd/mmc_host/mmc0/mmc0:aaaa/block/mmcblk10", "mmcblk10");
	fx_expect(ROOT, "mmcblk10", disk_ids, NONE);

	fx_device(ROOT, "/devices/platform/ms/memstick0/memstick0:0001", "memstick", NULL);
	fx_text(ROOT, "/devices/platform/ms/memstick0/memstick0:0001/name", "MS Pro\n");
	fx_text(ROOT, "/devices/platform/ms/memstick0/memstick0:0001/serial", "77\n");
	block("/devices/platform/ms/memstick0/memstick0:0001/block/mspblk0", "mspblk0");
	fx_expect(ROOT, "mspblk0", disk_ids, NAMES("memstick-MS_Pro_77"));

	fx_device(ROOT, "/devices/LNXSYSTM:00/ndbus0/region0/namespace0.0", "nd", NULL);
	fx_text(ROOT, "/devices/LNXSYSTM:00/ndbus0/region0/namespace0.0/uuid", "9c9c5a66-8e8f-4dbb-a4c4-a5b7f5b0e2c1\n");
	block("/devices/LNXSYSTM:00/ndbus0/region0/namespace0.0/block/pmem0", "pmem0");
	fx_expect(ROOT, "pmem0", disk_ids, NAMES("pmem-9c9c5a66-8e8f-4dbb-a4c4-a5b7f5b0e2c1"));
}

ATF_TC_WITHOUT_HEAD(bounds_and_bad_paths);
ATF_TC_BODY(bounds_and_bad_paths, tc)
{
	char names[2][PATH_ID_NAME_MAX];

	nvme_disk("S\n", "M\n");
	/* max bounds the count */
	ATF_CHECK_EQ(disk_ids(ROOT, NVME "/nvme0n1", names, 2), 2);
	ATF_CHECK_EQ(disk_ids(ROOT, NVME "/nvme0n1", names, 0), 0);
	ATF_CHECK_EQ(disk_ids(ROOT, "/devices/../../etc", names, 2), 0);
	ATF_CHECK_EQ(disk_ids(ROOT, "relative", names, 2), 0);
	ATF_CHECK(disk_ids("no-such-root", NVME "/nvme0n1", names, 2) < 0);
	/* a partition is named by the caller from its disk */
	fx_text(ROOT, NVME "/nvme0n1/uevent", "DEVTYPE=partition\n");
	ATF_CHECK_EQ(disk_ids(ROOT, NVME "/nvme0n1", names, 2), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, udev_q35);
	ATF_TP_ADD_TC(tp, udev_pc_nvme_multipath);
	ATF_TP_ADD_TC(tp, udev_pc_nvme_single);
	ATF_TP_ADD_TC(tp, udev_hostile);
	ATF_TP_ADD_TC(tp, udev_hba);
	ATF_TP_ADD_TC(tp, q35_names);
	ATF_TP_ADD_TC(tp, other_layout_names);
	ATF_TP_ADD_TC(tp, hostile_names);
	ATF_TP_ADD_TC(tp, hostile_virtio_serials);
	ATF_TP_ADD_TC(tp, ata_identify);
	ATF_TP_ADD_TC(tp, scsi_vpd);
	ATF_TP_ADD_TC(tp, usb);
	ATF_TP_ADD_TC(tp, nvme);
	ATF_TP_ADD_TC(tp, mmc_memstick_pmem);
	ATF_TP_ADD_TC(tp, bounds_and_bad_paths);
	return atf_no_error();
}
