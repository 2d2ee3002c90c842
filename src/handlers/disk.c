/* SPDX-License-Identifier: MIT */
#include "handlers/disk.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "names/disk-id.h"
#include "util/escape.h"
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
	if ((size_t)snprintf(names[*n], LINK_NAME_MAX, "%s/%s%s", dir, name, suffix) < LINK_NAME_MAX)
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

size_t disk_link_names(const char *sysfs, const struct uevent *ev,
		       const struct probe_result *p, char names[][LINK_NAME_MAX])
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
	if (!partition && ev->has_diskseq) {
		char seq[24];

		snprintf(seq, sizeof(seq), "%llu", (unsigned long long)ev->diskseq);
		add(names, &n, "by-diskseq", seq, "");
	}
	if (UDEV_COMPAT >= 257 && p && p->has_loop)
		loop_names(ev, partition, p, names, &n);
	hardware_names(sysfs, ev, partition, names, &n);
	return n;
}

/*
 * A component of devpath says the disk hangs off a bus anyone can plug
 * into: "usbN" (a USB bus), "mmc_host", "fwN" (FireWire), "memstick".
 * The kernel names these; the devpath is checked by the gate's parser.
 */
static bool on_hotplug_bus(const char *devpath)
{
	for (const char *c = strchr(devpath, '/'); c; c = strchr(c + 1, '/')) {
		const char *p = c + 1;

		if ((strncmp(p, "usb", 3) == 0 && isdigit((unsigned char)p[3])) ||
		    (strncmp(p, "fw", 2) == 0 && isdigit((unsigned char)p[2])) ||
		    strncmp(p, "mmc_host/", 9) == 0 || strncmp(p, "memstick", 8) == 0)
			return true;
	}
	return false;
}

bool disk_removable(const char *sysfs, const char *devpath, bool partition)
{
	char path[PATH_MAX], flag = '0';
	size_t len = strlen(devpath);
	int fd, n;

	if (on_hotplug_bus(devpath))
		return true;
	if (partition && strrchr(devpath, '/')) /* a partition lives in its disk's directory */
		len = (size_t)(strrchr(devpath, '/') - devpath);
	n = snprintf(path, sizeof(path), "%s%.*s/removable", sysfs, (int)len, devpath);
	if (n < 0 || (size_t)n >= sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	if (read(fd, &flag, 1) != 1)
		flag = '0';
	close(fd);
	return flag == '1';
}

/* Open the node read-only below the root, checking it is this device. */
static int open_node(struct disk_ctx *c, const struct uevent *ev)
{
	struct stat st;
	int fd = openat(c->devfd, ev->devname, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) ||
	    st.st_rdev != makedev(ev->major, ev->minor)) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

void disk_init(struct disk_ctx *c, const char *sysfs, int devfd, struct disk_links *links,
	       const struct logger *log)
{
	*c = (struct disk_ctx){ .sysfs = sysfs, .devfd = devfd, .links = links, .log = log };
	pthread_mutex_init(&c->lock, NULL);
}

void disk_fini(struct disk_ctx *c)
{
	map_clear(&c->unreadable, NULL);
	pthread_mutex_destroy(&c->lock);
}

/* An unreadable device is logged once, not at every event; a good probe resets that. */
static void note_probe(struct disk_ctx *c, const struct uevent *ev, int r)
{
	bool first;

	pthread_mutex_lock(&c->lock);
	if (r == 0 || r == -ENOMEDIUM) {
		map_remove(&c->unreadable, ev->devpath, NULL);
		first = false;
	} else {
		first = map_add(&c->unreadable, ev->devpath, NULL) == 1;
	}
	pthread_mutex_unlock(&c->lock);
	if (first)
		log_msg(c->log, LOG_WARNING, "probe %s: %s; no filesystem links for it "
			"(not logged again for this device)", ev->devname, errno_text(r));
}

static void probe_and_link(struct disk_ctx *c, const struct uevent *ev)
{
	static __thread char names[DISK_NAMES_MAX][LINK_NAME_MAX];
	const char *ptrs[DISK_NAMES_MAX];
	struct disk_links_device_info info = { .major = ev->major, .minor = ev->minor };
	int fd = open_node(c, ev), r = fd;
	size_t n;

	snprintf(info.devname, sizeof(info.devname), "%s", ev->devname);
	info.partition = ev->devtype && strcmp(ev->devtype, "partition") == 0;
	if (fd >= 0) {
		r = probe_fd(fd, &info.probe);
		close(fd);
	}
	info.probed = r == 0;
	note_probe(c, ev, r);
	n = disk_link_names(c->sysfs, ev, info.probed ? &info.probe : NULL, names);
	/* only a name can be contested */
	info.removable = n > 0 && disk_removable(c->sysfs, ev->devpath, info.partition);
	for (size_t i = 0; i < n; i++)
		ptrs[i] = names[i];
	(void)disk_links_update(c->links, ev->devpath, &info, 0, ptrs, n);
}

/* Only what udev's rules probe gets probed and named (path_id_probed_kernel). */
static bool probed(const struct uevent *ev)
{
	const char *slash = strrchr(ev->devpath, '/');

	return path_id_probed_kernel(slash ? slash + 1 : ev->devpath);
}

void disk_handle(struct disk_ctx *c, const struct uevent *ev)
{
	if (strcmp(ev->subsystem, "block") != 0)
		return;
	if (ev->action == UEVENT_REMOVE) {
		(void)disk_links_remove(c->links, ev->devpath);
		note_probe(c, ev, 0); /* forget it */
		return;
	}
	if (ev->action == UEVENT_MOVE && ev->devpath_old)
		(void)disk_links_remove(c->links, ev->devpath_old);
	if (!ev->devname || !ev->has_devnum || !probed(ev))
		return;
	if (ev->action == UEVENT_ADD || ev->action == UEVENT_CHANGE || ev->action == UEVENT_MOVE)
		probe_and_link(c, ev);
}

/* ---- the handler ---- */

/* Probing reads the device: that belongs on a worker. */
static bool may_block(void *ctx, const struct uevent *ev)
{
	return strcmp(ev->subsystem, "block") == 0 && ev->devname && probed(ev) &&
	       (ev->action == UEVENT_ADD || ev->action == UEVENT_CHANGE ||
		ev->action == UEVENT_MOVE);
}

static void handle(void *ctx, const struct handler_call *call)
{
	disk_handle(ctx, call->ev);
}

const struct handler_ops disk_handler = {
	.name = "disk",
	.may_block = may_block,
	.handle = handle,
};
