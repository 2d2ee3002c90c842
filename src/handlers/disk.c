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

#include "names/path-id.h"
#include "util/escape.h"

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

bool disk_holds_names(const struct probe_result *p)
{
	return p->has_fs && strcmp(p->fs_type, "btrfs") == 0;
}

bool disk_held_name(const char *name)
{
	return strncmp(name, "by-uuid/", 8) == 0 || strncmp(name, "by-label/", 9) == 0;
}

/* Is name ("by-uuid/X") among cur ("disk/by-uuid/X", n of them)? */
static bool claims(char (*cur)[LINK_NAME_MAX], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(cur[i], "disk/", 5) == 0 && strcmp(cur[i] + 5, name) == 0)
			return true;
	return false;
}

static void probe_and_link(struct disk_ctx *c, const struct uevent *ev)
{
	static __thread char names[DISK_NAMES_MAX][LINK_NAME_MAX];
	static __thread char cur[DISK_NAMES_MAX][LINK_NAME_MAX];
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
	bool hold = c->hold_btrfs && info.probed && disk_holds_names(&info.probe);
	size_t k = 0, ncur = 0;

	/* a held name the device has already (a change event) stays: no gap */
	if (hold)
		ncur = disk_links_device_names(c->links, ev->devpath, cur, DISK_NAMES_MAX);
	for (size_t i = 0; i < n; i++)
		if (!hold || !disk_held_name(names[i]) || claims(cur, ncur, names[i]))
			ptrs[k++] = names[i];
	(void)disk_links_update(c->links, ev->devpath, &info, 0, ptrs, k);
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
