/* SPDX-License-Identifier: MIT */
#include "rules/builtins.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "handlers/blkid-probe.h"
#include "names/input-id.h"
#include "names/path-id.h"
#include "names/usb-id.h"
#include "rules/cdrom-id.h"
#include "rules/hwdb-search.h"
#include "rules/keyboard.h"
#include "rules/net-driver.h"

static int set(struct rules_event *ev, const char *key, const char *value)
{
	return value[0] ? props_set(&ev->props, key, value, true) : 0;
}

static int set_prop(void *u, const char *key, const char *value)
{
	return props_set(&((struct rules_event *)u)->props, key, value, true);
}

int rules_default_props(struct rules_event *ev)
{
	if (ev->remove || strcmp(ev->subsystem, "block") != 0 || strncmp(ev->sysname, "md", 2) != 0)
		return 0;
	return props_set(&ev->props, "ID_IGNORE_DISKSEQ", "1", true);
}

int rules_blkid_props(struct rules_event *ev, const struct probe_result *p)
{
	return probe_props(p, set_prop, ev);
}

static int builtin_blkid(struct rules_builtins *b, struct rules_event *ev)
{
	const char *name = rules_devname_rel(ev->devname);
	char path[RULES_PATH_MAX];
	struct probe_result p;
	int fd, r;

	if (!name)
		return -ENODEV;
	if (b->probed && b->probed(b->probed_u, ev->devpath, &p))
		return rules_blkid_props(ev, &p);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", b->dev, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = probe_fd(fd, &p);
	close(fd);
	return r < 0 ? r : rules_blkid_props(ev, &p);
}

/* udev's ID_PATH_TAG: [0-9A-Za-z-] kept, other runs one '_', none leading or trailing. */
static void path_tag(const char *path, char *tag, size_t size)
{
	size_t i = 0;

	for (const char *p = path; *p && i + 1 < size; p++) {
		if ((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= 'a' && *p <= 'z') || *p == '-')
			tag[i++] = *p;
		else if (i > 0 && tag[i - 1] != '_')
			tag[i++] = '_';
	}
	while (i > 0 && tag[i - 1] == '_')
		i--;
	tag[i] = '\0';
}

static int builtin_path_id(struct rules_builtins *b, struct rules_event *ev)
{
	char path[PATH_ID_MAX], compat[PATH_ID_MAX], tag[PATH_ID_MAX];
	int r = path_id_full(b->sysfs, ev->devpath, path, sizeof(path), compat);

	if (r < 0)
		return r;
	path_tag(path, tag, sizeof(tag));
	r = set(ev, "ID_PATH", path);
	r = r ?: set(ev, "ID_PATH_TAG", tag);
	r = r ?: set(ev, "ID_PATH_ATA_COMPAT", compat);
	return r;
}

static int builtin_kmod(struct rules_builtins *b, struct rules_event *ev, int argc, char **argv)
{
	const char *alias = props_get(&ev->props, "MODALIAS");

	if (argc < 2 || strcmp(argv[1], "load") != 0)
		return -EINVAL;
	if (!b->load)
		return -EOPNOTSUPP;
	if (argc == 2)
		return alias ? b->load(b->load_u, alias, true) : -ENOENT;
	/* named modules: udev's builtin succeeds whatever loading them did (logged there) */
	for (int i = 2; i < argc; i++)
		(void)b->load(b->load_u, argv[i], false);
	return 0;
}

/* udev 257's net_driver: ID_NET_DRIVER from ethtool (the live kernel, whatever --sysfs says). */
static int builtin_net_driver(struct rules_event *ev)
{
	char driver[NET_DRIVER_MAX];
	int r = net_driver_get(ev->sysname, driver, sizeof(driver));

	/* as in udev: no driver information, or the interface gone, is no failure */
	if (net_driver_not_supported(r) || r == -ENODEV)
		return 0;
	return r < 0 ? r : props_set(&ev->props, "ID_NET_DRIVER", driver, true);
}

/* The sysfs root the caller has open, or one opened into tmp. */
static const struct sysdev_root *sys_root(struct rules_builtins *b, struct sysdev_root *tmp)
{
	if (b->sys)
		return b->sys;
	return sysdev_root_open(tmp, b->sysfs) < 0 ? NULL : tmp;
}

static void sys_done(struct rules_builtins *b, struct sysdev_root *tmp)
{
	if (!b->sys)
		sysdev_root_close(tmp);
}

static int builtin_input_id(struct rules_builtins *b, struct rules_event *ev)
{
	struct sysdev_root tmp = { .fd = -1 };
	const struct sysdev_root *root = sys_root(b, &tmp);
	const char *name = rules_devname_rel(ev->devname);
	char node[RULES_PATH_MAX];
	int r;

	if (!root)
		return -ENOENT;
	/* the node answers the axes' resolution (ID_INPUT_WIDTH_MM) */
	if (!name || (size_t)snprintf(node, sizeof(node), "%s/%s", b->dev, name) >= sizeof(node))
		node[0] = '\0';
	r = input_id_props(root, ev->devpath, node[0] ? node : NULL, set_prop, ev);
	sys_done(b, &tmp);
	return r;
}

static int builtin_usb_id(struct rules_builtins *b, struct rules_event *ev)
{
	struct sysdev_root tmp = { .fd = -1 };
	const struct sysdev_root *root = sys_root(b, &tmp);
	int r;

	if (!root)
		return -ENOENT;
	/* a device with ID_BUS (from ata_id or scsi_id) keeps its ID_* ones */
	r = usb_id_props(root, ev->devpath, props_get(&ev->props, "ID_BUS") != NULL, set_prop, ev);
	sys_done(b, &tmp);
	return r;
}

static int builtin_hwdb(struct rules_builtins *b, struct rules_event *ev, int argc, char **argv)
{
	struct sysdev_root tmp = { .fd = -1 };
	const struct sysdev_root *root;
	int r;

	if (!b->hwdb)
		return -EINVAL; /* udev without a hwdb.bin */
	root = sys_root(b, &tmp);
	if (!root)
		return -ENOENT;
	r = hwdb_builtin(b->hwdb, root, ev, argc, argv);
	sys_done(b, &tmp);
	return r;
}

/*
 * btrfs ready DEVNODE: ID_BTRFS_READY from the kernel's BTRFS_IOC_DEVICES_READY
 * (1 once every device of the filesystem is there); 0 without btrfs in the
 * kernel, so the device counts again when the real root retriggers it.
 */
static int builtin_btrfs(struct rules_builtins *b, struct rules_event *ev, int argc, char **argv)
{
	struct btrfs_ioctl_vol_args args = { 0 };
	char path[RULES_PATH_MAX];
	int fd, r;

	if (argc != 3 || strcmp(argv[1], "ready") != 0)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/btrfs-control", b->dev) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT || errno == ENODEV || errno == ENXIO
			       ? props_set(&ev->props, "ID_BTRFS_READY", "0", true)
			       : -errno;
	snprintf(args.name, sizeof(args.name), "%s", argv[2]);
	r = ioctl(fd, BTRFS_IOC_DEVICES_READY, &args);
	r = r < 0 ? -errno : props_set(&ev->props, "ID_BTRFS_READY", r == 0 ? "1" : "0", true);
	close(fd);
	return r;
}

static int builtin_keyboard(struct rules_builtins *b, struct rules_event *ev)
{
	static const struct logger quiet = { .fd = -1, .max_level = -1, .echo_fd = -1 };
	struct sysdev_root tmp = { .fd = -1 };
	const struct sysdev_root *root = sys_root(b, &tmp);
	const char *name = rules_devname_rel(ev->devname);
	char node[RULES_PATH_MAX] = "";
	int r;

	if (!root)
		return -ENOENT;
	if (name && (size_t)snprintf(node, sizeof(node), "%s/%s", b->dev, name) >= sizeof(node))
		node[0] = '\0';
	r = keyboard_builtin(root, ev->devpath, node, &ev->props, b->log ? b->log : &quiet);
	sys_done(b, &tmp);
	return r;
}

int rules_builtins_program(void *u, struct rules_event *ev, int argc, char **argv, char *out,
			   size_t size)
{
	struct rules_builtins *b = u;
	const char *name = rules_devname_rel(ev->devname);
	char node[RULES_PATH_MAX];

	if (argc < 1 || strcmp(argv[0], "cdrom_id") != 0)
		return -ENOENT;
	if (size)
		out[0] = '\0';
	if (!name || (size_t)snprintf(node, sizeof(node), "%s/%s", b->dev, name) >= sizeof(node))
		return 1;
	return rules_cdrom_id_program(node, argc, argv, out, size);
}

int rules_builtins_run(void *u, struct rules_event *ev, enum rules_builtin which, int argc,
		       char **argv)
{
	struct rules_builtins *b = u;
	unsigned int bit = 1U << which;

	switch (which) {
	case RB_BLKID: return builtin_blkid(b, ev);
	case RB_PATH_ID: return builtin_path_id(b, ev);
	case RB_KMOD: return builtin_kmod(b, ev, argc, argv);
	case RB_NET_DRIVER: return builtin_net_driver(ev);
	case RB_INPUT_ID: return builtin_input_id(b, ev);
	case RB_USB_ID: return builtin_usb_id(b, ev);
	case RB_HWDB: return builtin_hwdb(b, ev, argc, argv);
	case RB_BTRFS: return builtin_btrfs(b, ev, argc, argv);
	case RB_KEYBOARD: return builtin_keyboard(b, ev);
	default:
		if (!(__atomic_fetch_or(&b->warned, bit, __ATOMIC_RELAXED) & bit) && b->log)
			log_msg(b->log, LOG_WARNING,
				"udev builtin '%s' is not available in initdev: "
				"it fails, as a failing builtin does in udev (logged once)",
				rules_builtin_name(which));
		return -EOPNOTSUPP;
	}
}
