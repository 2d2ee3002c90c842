/* SPDX-License-Identifier: MIT */
/*
 * ID_PATH the way udev 252's path_id builtin composes it: walk from the
 * device up its ancestors, prepending one element per bus that names a
 * position ("pci-0000:00:1f.2", "ata-1.0", "usb-0:1:1.0", "scsi-0:0:0:0",
 * "nvme-1", ...). Rewritten from reading the builtin; the QEMU layouts under
 * tests/fixtures/sysfs were compared with real udev.
 */
#include "names/path-id.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sysdev.h"
#include "names/udev-string.h"

enum { WALK_CONTINUE, WALK_STOP };

struct walk {
	const struct sysdev_root *root;
	const char *dev;               /* the device path_id runs for */
	char path[PATH_ID_MAX];        /* "" until the first element */
	char compat[PATH_ID_MAX];
	bool has_compat;               /* only ATA starts a compat path */
	bool supported_parent;
	bool supported_transport;
	int err;                       /* set when an element did not fit */
};

__attribute__((format(printf, 3, 4)))
static void prepend(struct walk *w, char *buf, const char *fmt, ...)
{
	char elem[PATH_ID_MAX], joined[PATH_ID_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(elem, sizeof(elem), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(elem)) {
		w->err = -ENAMETOOLONG;
		return;
	}
	n = buf[0] ? snprintf(joined, sizeof(joined), "%s-%s", elem, buf)
		   : snprintf(joined, sizeof(joined), "%s", elem);
	if (n < 0 || (size_t)n >= sizeof(joined)) {
		w->err = -ENAMETOOLONG;
		return;
	}
	memcpy(buf, joined, (size_t)n + 1);
}

/* "<prefix>-<value>" onto the path and, once ATA started it, the compat path. */
static void prepend_both(struct walk *w, const char *prefix, const char *value)
{
	prepend(w, w->path, "%s-%s", prefix, value);
	if (w->has_compat)
		prepend(w, w->compat, "%s-%s", prefix, value);
}

/* Climb to the last of a run of ancestors in subsystem (udev's skip_subsystem). */
static void skip_subsystem(struct walk *w, char *cur, const char *subsystem)
{
	char p[SYSDEV_PATH_MAX];

	strcpy(p, cur);
	while (sysdev_subsystem_is(w->root, p, subsystem)) {
		strcpy(cur, p);
		if (sysdev_parent(w->root, cur, p, sizeof(p)) < 0)
			break;
	}
}

static int attr(const struct walk *w, const char *devpath, const char *name,
		char out[SYSDEV_ATTR_MAX + 1])
{
	return sysdev_attr(w->root, devpath, name, out, SYSDEV_ATTR_MAX + 1);
}

/* "lun-N", or udev's 64-bit form for LUNs past 255; "(null)" as udev prints. */
static void format_lun(const char *devpath, char *out, size_t size)
{
	char name[SYSDEV_NAME_MAX];
	const char *num;
	unsigned long lun;

	sysdev_sysname(devpath, name);
	num = sysdev_sysnum(name);
	if (!num || !ustr_parse_ulong(num, 10, &lun))
		snprintf(out, size, "(null)");
	else if (lun < 256)
		snprintf(out, size, "lun-%lu", lun);
	else
		snprintf(out, size, "lun-0x%04lx%04lx00000000", lun & 0xffff,
			 (lun >> 16) & 0xffff);
}

/* "H:C:T:L" as sscanf("%u:%u:%u:%u") reads it. */
static bool parse_hctl(const char *devpath, unsigned int v[4])
{
	char name[SYSDEV_NAME_MAX];

	sysdev_sysname(devpath, name);
	return sscanf(name, "%u:%u:%u:%u", &v[0], &v[1], &v[2], &v[3]) == 4;
}

/* sysname of the scsi_target above devpath, and of that target's parent. */
static int scsi_target_names(struct walk *w, const char *devpath, char *target,
			     char *target_parent)
{
	char t[SYSDEV_PATH_MAX], tp[SYSDEV_PATH_MAX];

	if (sysdev_find_parent(w->root, devpath, "scsi", "scsi_target", t, sizeof(t)) < 0)
		return -ENOENT;
	sysdev_sysname(t, target);
	if (target_parent) {
		if (sysdev_parent(w->root, t, tp, sizeof(tp)) < 0)
			return -ENOENT;
		strcpy(target_parent, tp);
	}
	return 0;
}

static int handle_fc(struct walk *w, const char *cur)
{
	char target[SYSDEV_NAME_MAX], fc[SYSDEV_PATH_MAX], port[SYSDEV_ATTR_MAX + 1];
	char lun[64];

	if (scsi_target_names(w, cur, target, NULL) < 0 ||
	    sysdev_lookup(w->root, "fc_transport", target, fc, sizeof(fc)) < 0 ||
	    attr(w, fc, "port_name", port) < 0)
		return WALK_STOP;
	format_lun(cur, lun, sizeof(lun));
	prepend(w, w->path, "fc-%s-%s", port, lun);
	return WALK_CONTINUE;
}

static int handle_sas_wide_port(struct walk *w, const char *cur)
{
	char target[SYSDEV_NAME_MAX], tparent[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX];
	char sas[SYSDEV_PATH_MAX], addr[SYSDEV_ATTR_MAX + 1], lun[64];

	if (scsi_target_names(w, cur, target, tparent) < 0)
		return WALK_STOP;
	sysdev_sysname(tparent, name);
	if (sysdev_lookup(w->root, "sas_device", name, sas, sizeof(sas)) < 0 ||
	    attr(w, sas, "sas_address", addr) < 0)
		return WALK_STOP;
	format_lun(cur, lun, sizeof(lun));
	prepend(w, w->path, "sas-%s-%s", addr, lun);
	return WALK_CONTINUE;
}

/* SAS: a single-phy port is named by phy (and expander), else by address. */
static int handle_sas(struct walk *w, const char *cur)
{
	char target[SYSDEV_NAME_MAX], tparent[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX];
	char tsas[SYSDEV_PATH_MAX], port[SYSDEV_PATH_MAX], psas[SYSDEV_PATH_MAX];
	char exp[SYSDEV_PATH_MAX], esas[SYSDEV_PATH_MAX], lun[64];
	char phys[SYSDEV_ATTR_MAX + 1], phy[SYSDEV_ATTR_MAX + 1], addr[SYSDEV_ATTR_MAX + 1];
	bool have_addr = false;

	if (scsi_target_names(w, cur, target, tparent) < 0)
		return WALK_STOP;
	sysdev_sysname(tparent, name);
	if (sysdev_lookup(w->root, "sas_device", name, tsas, sizeof(tsas)) < 0 ||
	    sysdev_parent(w->root, tparent, port, sizeof(port)) < 0)
		return WALK_STOP;
	sysdev_sysname(port, name);
	if (sysdev_lookup(w->root, "sas_port", name, psas, sizeof(psas)) < 0 ||
	    attr(w, psas, "num_phys", phys) < 0)
		return WALK_STOP;
	if (strcmp(phys, "1") != 0)
		return handle_sas_wide_port(w, cur);
	if (attr(w, tsas, "phy_identifier", phy) < 0 ||
	    sysdev_parent(w->root, port, exp, sizeof(exp)) < 0)
		return WALK_STOP;
	sysdev_sysname(exp, name);
	if (sysdev_lookup(w->root, "sas_device", name, esas, sizeof(esas)) == 0) {
		if (attr(w, esas, "sas_address", addr) < 0)
			return WALK_STOP;
		have_addr = true;
	}
	format_lun(cur, lun, sizeof(lun));
	if (have_addr)
		prepend(w, w->path, "sas-exp%s-phy%s-%s", addr, phy, lun);
	else
		prepend(w, w->path, "sas-phy%s-%s", phy, lun);
	return WALK_CONTINUE;
}

static int handle_iscsi(struct walk *w, const char *cur)
{
	char t[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX], sess[SYSDEV_PATH_MAX];
	char conn[SYSDEV_PATH_MAX], cname[SYSDEV_NAME_MAX + 16], lun[64];
	char target[SYSDEV_ATTR_MAX + 1], addr[SYSDEV_ATTR_MAX + 1], port[SYSDEV_ATTR_MAX + 1];
	const char *num;

	strcpy(t, cur);
	do {
		if (sysdev_parent(w->root, t, t, sizeof(t)) < 0)
			return WALK_STOP;
		sysdev_sysname(t, name);
	} while (strncmp(name, "session", 7) != 0);
	if (sysdev_lookup(w->root, "iscsi_session", name, sess, sizeof(sess)) < 0 ||
	    attr(w, sess, "targetname", target) < 0 || !(num = sysdev_sysnum(name)))
		return WALK_STOP;
	snprintf(cname, sizeof(cname), "connection%s:0", num);
	if (sysdev_lookup(w->root, "iscsi_connection", cname, conn, sizeof(conn)) < 0 ||
	    attr(w, conn, "persistent_address", addr) < 0 ||
	    attr(w, conn, "persistent_port", port) < 0)
		return WALK_STOP;
	format_lun(cur, lun, sizeof(lun));
	prepend(w, w->path, "ip-%s:%s-iscsi-%s-%s", addr, port, target, lun);
	return WALK_CONTINUE;
}

/* "ata-PORT.TARGET" (or "ata-PORT.PMP.0" behind a port multiplier). */
static int handle_ata(struct walk *w, const char *cur)
{
	char host[SYSDEV_PATH_MAX], port[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX];
	char ata[SYSDEV_PATH_MAX], no[SYSDEV_ATTR_MAX + 1];
	unsigned int hctl[4];

	if (!parse_hctl(cur, hctl) ||
	    sysdev_find_parent(w->root, cur, "scsi", "scsi_host", host, sizeof(host)) < 0 ||
	    sysdev_parent(w->root, host, port, sizeof(port)) < 0)
		return WALK_STOP;
	sysdev_sysname(port, name);
	if (sysdev_lookup(w->root, "ata_port", name, ata, sizeof(ata)) < 0 ||
	    attr(w, ata, "port_no", no) < 0)
		return WALK_STOP;
	if (hctl[1] != 0)
		prepend(w, w->path, "ata-%s.%u.0", no, hctl[1]);
	else
		prepend(w, w->path, "ata-%s.%u", no, hctl[2]);
	prepend(w, w->compat, "ata-%s", no);
	w->has_compat = true;
	return WALK_CONTINUE;
}

/* Lowest N of the hostN entries in dir: udev's "rebase" of the host number. */
static int lowest_host(const struct walk *w, const char *dir)
{
	int fd = sysdev_open_dir(w->root, dir), rfd, low = -1;
	DIR *d;
	struct dirent *de;

	if (fd < 0)
		return -1;
	/* the walk hands out O_PATH descriptors; reading needs a real open */
	rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(fd);
	d = rfd < 0 ? NULL : fdopendir(rfd);
	if (!d) {
		if (rfd >= 0)
			close(rfd);
		return -1;
	}
	while ((de = readdir(d))) {
		unsigned long n;

		if (de->d_name[0] == '.' || strncmp(de->d_name, "host", 4) != 0)
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
			continue;
		if (!ustr_parse_ulong(de->d_name + 4, 10, &n) || n > UINT_MAX)
			continue;
		if (low == -1 || (int)n < low)
			low = (int)n;
	}
	closedir(d);
	return low;
}

/* "scsi-H:C:T:L" with H counted from the lowest host of the same parent. */
static int handle_scsi_default(struct walk *w, char *cur)
{
	char host[SYSDEV_PATH_MAX], dir[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX];
	int v[4], base;

	if (sysdev_find_parent(w->root, cur, "scsi", "scsi_host", host, sizeof(host)) < 0)
		return WALK_STOP;
	sysdev_sysname(cur, name);
	if (sscanf(name, "%d:%d:%d:%d", &v[0], &v[1], &v[2], &v[3]) != 4)
		return WALK_STOP;
	/* the directory holding the host, which need not be a device */
	strcpy(dir, host);
	*strrchr(dir, '/') = '\0';
	base = lowest_host(w, dir);
	strcpy(cur, host);
	if (base == -1)
		return WALK_CONTINUE;
	prepend(w, w->path, "scsi-%i:%i:%i:%i", v[0] - base, v[1], v[2], v[3]);
	return WALK_CONTINUE;
}

static int handle_hyperv(struct walk *w, char *cur, size_t guid_len)
{
	char host[SYSDEV_PATH_MAX], vmbus[SYSDEV_PATH_MAX], id[SYSDEV_ATTR_MAX + 1];
	char guid[40], lun[64];
	size_t k = 0;

	if (sysdev_find_parent(w->root, cur, "scsi", "scsi_host", host, sizeof(host)) < 0 ||
	    sysdev_parent(w->root, host, vmbus, sizeof(vmbus)) < 0 ||
	    attr(w, vmbus, "device_id", id) < 0)
		return WALK_STOP;
	if (strlen(id) < guid_len || id[0] != '{' || id[guid_len - 1] != '}')
		return WALK_STOP;
	for (size_t i = 1; i < guid_len - 1; i++)
		if (id[i] != '-')
			guid[k++] = id[i];
	guid[k] = '\0';
	format_lun(cur, lun, sizeof(lun));
	prepend(w, w->path, "vmbus-%s-%s", guid, lun);
	return WALK_CONTINUE;
}

static int handle_scsi(struct walk *w, char *cur)
{
	char t[SYSDEV_NAME_MAX], id[SYSDEV_ATTR_MAX + 1];

	if (sysdev_devtype(w->root, cur, t) < 0 || strcmp(t, "scsi_device") != 0)
		return WALK_CONTINUE;
	if (attr(w, cur, "ieee1394_id", id) >= 0) {
		prepend(w, w->path, "ieee1394-0x%s", id);
		w->supported_parent = true;
		skip_subsystem(w, cur, "scsi");
		return WALK_CONTINUE;
	}
	/* the transport shows only in the device path */
	if (strstr(cur, "/rport-"))
		return w->supported_parent = true, handle_fc(w, cur);
	if (strstr(cur, "/end_device-"))
		return w->supported_parent = true, handle_sas(w, cur);
	if (strstr(cur, "/session"))
		return w->supported_parent = true, handle_iscsi(w, cur);
	if (strstr(cur, "/ata"))
		return handle_ata(w, cur);
	if (strstr(cur, "/vmbus_"))
		return handle_hyperv(w, cur, 37);
	if (strstr(cur, "/VMBUS"))
		return handle_hyperv(w, cur, 38);
	return handle_scsi_default(w, cur);
}

static int handle_usb(struct walk *w, char *cur)
{
	char t[SYSDEV_NAME_MAX], name[SYSDEV_NAME_MAX];
	const char *port;

	if (sysdev_devtype(w->root, cur, t) < 0 ||
	    (strcmp(t, "usb_interface") != 0 && strcmp(t, "usb_device") != 0))
		return WALK_CONTINUE;
	sysdev_sysname(cur, name);
	port = strchr(name, '-');
	if (!port)
		return WALK_CONTINUE;
	/* the host number is not stable: udev always writes 0 */
	prepend(w, w->path, "usb-0:%s", port + 1);
	skip_subsystem(w, cur, "usb");
	return WALK_CONTINUE;
}

static int handle_cciss(struct walk *w, char *cur)
{
	char name[SYSDEV_NAME_MAX];
	unsigned int ctl, disk;

	sysdev_sysname(cur, name);
	if (sscanf(name, "c%ud%u", &ctl, &disk) != 2)
		return WALK_STOP;
	prepend(w, w->path, "cciss-disk%u", disk);
	skip_subsystem(w, cur, "cciss");
	return WALK_CONTINUE;
}

static int handle_bcma(struct walk *w, char *cur)
{
	char name[SYSDEV_NAME_MAX];
	unsigned int core;

	sysdev_sysname(cur, name);
	if (sscanf(name, "bcma%*u:%u", &core) != 1)
		return WALK_STOP;
	prepend(w, w->path, "bcma-%u", core);
	return WALK_CONTINUE;
}

static int handle_ap(struct walk *w, char *cur)
{
	char type[SYSDEV_ATTR_MAX + 1], func[SYSDEV_ATTR_MAX + 1], name[SYSDEV_NAME_MAX];

	if (attr(w, cur, "type", type) >= 0 && attr(w, cur, "ap_functions", func) >= 0) {
		prepend(w, w->path, "ap-%s-%s", type, func);
	} else {
		sysdev_sysname(cur, name);
		prepend(w, w->path, "ap-%s", name);
	}
	skip_subsystem(w, cur, "ap");
	return WALK_CONTINUE;
}

static void handle_tape(struct walk *w, const char *cur)
{
	char name[SYSDEV_NAME_MAX];

	if (w->path[0])
		return;
	sysdev_sysname(cur, name);
	/* as in udev, a bare "nst"/"st" matches too (strchr finds the NUL) */
	if (strncmp(name, "nst", 3) == 0 && strchr("lma", name[3]))
		prepend(w, w->path, "nst%c", name[3]);
	else if (strncmp(name, "st", 2) == 0 && strchr("lma", name[2]))
		prepend(w, w->path, "st%c", name[2]);
}

/* With NVMe multipath the disk hangs off a virtual subsystem: find nvmeN. */
static int real_nvme_parent(struct walk *w, char *cur)
{
	char name[SYSDEV_NAME_MAX];
	size_t n;

	sysdev_sysname(w->dev, name);
	if (strncmp(name, "nvme", 4) != 0)
		return -ENXIO;
	n = 4 + strspn(name + 4, "0123456789");
	name[n] = '\0';
	if (sysdev_lookup(w->root, "nvme", name, cur, SYSDEV_PATH_MAX) < 0)
		return -ENODEV;
	if (strncmp(cur, "/devices/virtual/", 17) == 0)
		return -ENXIO;
	return 0;
}

static int handle_nvme(struct walk *w, char *cur, bool multipath)
{
	char nsid[SYSDEV_ATTR_MAX + 1];
	int r;

	if (attr(w, w->dev, "nsid", nsid) < 0)
		return WALK_CONTINUE;
	prepend_both(w, "nvme", nsid);
	if (multipath) {
		r = real_nvme_parent(w, cur);
		if (r < 0)
			return r;
	}
	skip_subsystem(w, cur, "nvme");
	w->supported_parent = w->supported_transport = true;
	return WALK_CONTINUE;
}

static int handle_numbered(struct walk *w, char *cur, const char *prefix,
			   const char *subsystem)
{
	char name[SYSDEV_NAME_MAX];
	const char *num;

	sysdev_sysname(cur, name);
	num = sysdev_sysnum(name);
	if (num) {
		prepend(w, w->path, "%s-%s", prefix, num);
		skip_subsystem(w, cur, subsystem);
	}
	return WALK_CONTINUE;
}

/* Buses named "<subsystem>-<sysname>", and what they vouch for. */
static const struct {
	const char *name;
	bool transport;
	bool parent;
} named_buses[] = {
	{ "pci", false, true },     { "platform", true, true }, { "acpi", false, true },
	{ "xen", false, true },     { "scm", true, true },      { "ccw", true, true },
	{ "ccwgroup", true, true }, { "iucv", true, true },
};

static bool handle_named(struct walk *w, char *cur, const char *subsys)
{
	char name[SYSDEV_NAME_MAX];

	for (size_t i = 0; i < sizeof(named_buses) / sizeof(named_buses[0]); i++) {
		if (strcmp(subsys, named_buses[i].name) != 0)
			continue;
		sysdev_sysname(cur, name);
		prepend_both(w, subsys, name);
		skip_subsystem(w, cur, subsys);
		w->supported_transport |= named_buses[i].transport;
		w->supported_parent |= named_buses[i].parent;
		return true;
	}
	return false;
}

/* One step of the walk at cur (which a handler may move up). */
static int step(struct walk *w, char *cur, const char *subsys)
{
	if (handle_named(w, cur, subsys))
		return WALK_CONTINUE;
	if (strcmp(subsys, "scsi_tape") == 0) {
		handle_tape(w, cur);
		return WALK_CONTINUE;
	}
	if (strcmp(subsys, "virtio") == 0) {
		skip_subsystem(w, cur, "virtio");
		w->supported_transport = true;
		return WALK_CONTINUE;
	}
	if (strcmp(subsys, "nvme") == 0 || strcmp(subsys, "nvme-subsystem") == 0)
		return handle_nvme(w, cur, strcmp(subsys, "nvme-subsystem") == 0);
	if (strcmp(subsys, "serio") == 0)
		return handle_numbered(w, cur, "serio", "serio");
	if (strcmp(subsys, "spi") == 0)
		return handle_numbered(w, cur, "cs", "spi");
	if (strcmp(subsys, "ap") == 0)
		return w->supported_transport = w->supported_parent = true, handle_ap(w, cur);
	if (strcmp(subsys, "scsi") == 0)
		return w->supported_transport = true, handle_scsi(w, cur);
	if (strcmp(subsys, "cciss") == 0)
		return w->supported_transport = true, handle_cciss(w, cur);
	if (strcmp(subsys, "usb") == 0)
		return w->supported_transport = true, handle_usb(w, cur);
	if (strcmp(subsys, "bcma") == 0)
		return w->supported_transport = true, handle_bcma(w, cur);
	return WALK_CONTINUE;
}

static int walk_run(struct walk *w)
{
	char cur[SYSDEV_PATH_MAX], subsys[SYSDEV_NAME_MAX];
	int r;

	if (!sysdev_is_device(w->root, w->dev))
		return -ENODEV;
	strcpy(cur, w->dev);
	do {
		if (sysdev_subsystem(w->root, cur, subsys) == 0) {
			r = step(w, cur, subsys);
			if (r < 0)
				return r;
			if (r == WALK_STOP)
				break;
		}
	} while (sysdev_parent(w->root, cur, cur, sizeof(cur)) == 0);
	if (w->err)
		return w->err;
	/* without a known parent or (for disks) transport, names are not stable */
	if (!w->path[0] || !w->supported_parent)
		return -ENOENT;
	if (sysdev_subsystem_is(w->root, w->dev, "block") && !w->supported_transport)
		return -ENOENT;
	return 0;
}

static int path_id_root(const struct sysdev_root *root, const char *devpath,
			char *out, size_t size, char *compat)
{
	struct walk *w;
	int r;

	if (strlen(devpath) >= SYSDEV_PATH_MAX)
		return -ENAMETOOLONG;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->root = root;
	w->dev = devpath;
	r = walk_run(w);
	if (r == 0 && strlen(w->path) >= size)
		r = -ENAMETOOLONG;
	if (r == 0) {
		strcpy(out, w->path);
		if (compat)
			strcpy(compat, w->has_compat ? w->compat : "");
	}
	free(w);
	return r;
}

int path_id_full(const char *sysfs, const char *devpath, char *out, size_t size,
		 char compat[PATH_ID_MAX])
{
	struct sysdev_root root;
	int r = sysdev_root_open(&root, sysfs);

	if (r < 0)
		return r;
	r = path_id_root(&root, devpath, out, size, compat);
	sysdev_root_close(&root);
	return r;
}

int path_id(const char *sysfs, const char *devpath, char *out, size_t size)
{
	return path_id_full(sysfs, devpath, out, size, NULL);
}

/* Kernel names 60-persistent-storage.rules works on (its first KERNEL!=). */
static const char *const storage_kernels[] = {
	"loop*", "mmcblk*[0-9]", "msblk*[0-9]", "mspblk*[0-9]", "nvme*", "sd*",
	"sr*", "vd*", "xvd*", "bcache*", "cciss*", "dasd*", "ubd*", "ubi*",
	"scm*", "pmem*", "nbd*", "zd*",
};

/* Added to that list by udev 257 (UDEV_COMPAT). */
static const char *const storage_kernels_257[] = { "rbd*", "zram*", "ublkb*" };

static bool match_any(const char *const *patterns, size_t n, const char *sysname)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(patterns[i], sysname, 0) == 0)
			return true;
	return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

bool path_id_storage_kernel(const char *sysname)
{
	return match_any(storage_kernels, COUNT(storage_kernels), sysname) ||
	       (UDEV_COMPAT >= 257 && match_any(storage_kernels_257, COUNT(storage_kernels_257), sysname));
}

bool path_id_probed_kernel(const char *sysname)
{
	return path_id_storage_kernel(sysname) || strncmp(sysname, "dm-", 3) == 0 ||
	       strncmp(sysname, "md", 2) == 0;
}

bool path_id_match(const char *name, const char *patterns)
{
	char alt[SYSDEV_NAME_MAX];

	for (const char *p = patterns; *p;) {
		size_t n = strcspn(p, "|");

		if (n < sizeof(alt)) {
			memcpy(alt, p, n);
			alt[n] = '\0';
			if (fnmatch(alt, name, 0) == 0)
				return true;
		}
		p += n;
		if (*p == '|')
			p++;
	}
	return false;
}

int path_id_storage_disk(const struct sysdev_root *root, const char *devpath,
			 char sysname[SYSDEV_NAME_MAX])
{
	char t[SYSDEV_NAME_MAX], v[SYSDEV_ATTR_MAX + 1];
	bool known;

	if (!sysdev_is_device(root, devpath) || !sysdev_subsystem_is(root, devpath, "block"))
		return -ENODEV;
	sysdev_sysname(devpath, sysname);
	known = path_id_storage_kernel(sysname);
	/* links need a device node; a "whole_disk" partition is skipped */
	if (!known || sysdev_attr(root, devpath, "dev", v, sizeof(v)) < 0 ||
	    sysdev_attr(root, devpath, "whole_disk", v, sizeof(v)) != -ENOENT)
		return -ENOENT;
	if (sysdev_devtype(root, devpath, t) < 0 || strcmp(t, "disk") != 0)
		return -ENOENT;
	return 0;
}

void path_id_add_link(char names[][PATH_ID_NAME_MAX], size_t *n, size_t max,
		      const char *prefix, const char *value, const char *suffix,
		      bool replace_mode)
{
	char buf[PATH_ID_MAX] = "";

	if (ustr_append_literal(buf, sizeof(buf), prefix) < 0 ||
	    ustr_append_subst(buf, sizeof(buf), value) < 0 ||
	    ustr_append_literal(buf, sizeof(buf), suffix) < 0 ||
	    !ustr_finish_link(buf, replace_mode))
		return;
	for (size_t i = 0; i < *n; i++)
		if (strcmp(names[i], buf) == 0)
			return;
	if (*n < max)
		strcpy(names[(*n)++], buf);
}

/* Whether udev imports path_id for this disk at all. */
static bool path_id_wanted(const struct sysdev_root *root, const char *devpath)
{
	char cur[SYSDEV_PATH_MAX];

	if (fnmatch("*/virtual/*", devpath, 0) != 0)
		return true;
	/* SUBSYSTEMS=="nvme-subsystem": the device or any ancestor */
	strcpy(cur, devpath);
	do {
		if (sysdev_subsystem_is(root, cur, "nvme-subsystem"))
			return true;
	} while (sysdev_parent(root, cur, cur, sizeof(cur)) == 0);
	return false;
}

static int links_root(const struct sysdev_root *root, const char *devpath,
		      char names[][PATH_ID_NAME_MAX], size_t max)
{
	char name[SYSDEV_NAME_MAX], path[PATH_ID_MAX], compat[PATH_ID_MAX], boot[32];
	size_t n = 0;
	int r;

	if (strlen(devpath) >= SYSDEV_PATH_MAX)
		return -ENAMETOOLONG;
	if (path_id_storage_disk(root, devpath, name) < 0 || !path_id_wanted(root, devpath))
		return 0;
	r = path_id_root(root, devpath, path, sizeof(path), compat);
	/* no ID_PATH, or one too long for any link: no names, as with udev */
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	if (path_id_match(name, "mmcblk[0-9]boot[0-9]")) {
		snprintf(boot, sizeof(boot), "-boot%s", sysdev_sysnum(name));
		path_id_add_link(names, &n, max, "", path, boot, false);
		return (int)n;
	}
	path_id_add_link(names, &n, max, "", path, "", false);
	if (compat[0])
		path_id_add_link(names, &n, max, "", compat, "", false);
	/* the legacy virtio name, deprecated but still made by 252 */
	if (path_id_match(name, "vd*[!0-9]") && strncmp(path, "pci-", 4) == 0)
		path_id_add_link(names, &n, max, "virtio-", path, "", false);
	return (int)n;
}

/* "<ID_PATH>-part" as udev 257 forms it below by-path, or -ENOENT. */
static int part_dir_root(const struct sysdev_root *root, const char *devpath,
			 char name[PATH_ID_NAME_MAX])
{
	char sysname[SYSDEV_NAME_MAX], path[PATH_ID_MAX], compat[PATH_ID_MAX];
	char names[1][PATH_ID_NAME_MAX];
	size_t n = 0;
	int r;

	if (strlen(devpath) >= SYSDEV_PATH_MAX)
		return -ENAMETOOLONG;
	if (path_id_storage_disk(root, devpath, sysname) < 0 || !path_id_wanted(root, devpath))
		return -ENOENT;
	r = path_id_root(root, devpath, path, sizeof(path), compat);
	if (r < 0)
		return r == -ENOMEM ? r : -ENOENT;
	path_id_add_link(names, &n, 1, "", path, "-part", false);
	if (n == 0)
		return -ENOENT;
	memcpy(name, names[0], PATH_ID_NAME_MAX);
	return 0;
}

int path_id_part_dir(const char *sysfs, const char *devpath, char name[PATH_ID_NAME_MAX])
{
	struct sysdev_root root;
	int r = sysdev_root_open(&root, sysfs);

	if (r < 0)
		return r;
	r = part_dir_root(&root, devpath, name);
	sysdev_root_close(&root);
	return r;
}

int path_id_links(const char *sysfs, const char *devpath,
		  char names[][PATH_ID_NAME_MAX], size_t max)
{
	struct sysdev_root root;
	int r = sysdev_root_open(&root, sysfs);

	if (r < 0)
		return r;
	r = links_root(&root, devpath, names, max);
	sysdev_root_close(&root);
	return r;
}
