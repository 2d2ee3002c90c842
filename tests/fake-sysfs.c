/* SPDX-License-Identifier: MIT */
#include "fake-sysfs.h"

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fs_mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	ATF_REQUIRE(strlen(path) < sizeof(buf));
	strcpy(buf, path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ATF_REQUIRE_MSG(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s", buf);
		*p = '/';
	}
	ATF_REQUIRE_MSG(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s", buf);
}

void fs_write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	ATF_REQUIRE_MSG(f, "create %s", path);
	fputs(content, f);
	ATF_REQUIRE(fclose(f) == 0);
}

void fs_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ATF_REQUIRE_MSG(fd >= 0, "open %s", path);
	n = read(fd, buf, size - 1);
	ATF_REQUIRE(n >= 0);
	buf[n] = '\0';
	close(fd);
}

void fs_symlink_at(const char *target, const char *dir, const char *name)
{
	char path[2 * PATH_MAX];

	ATF_REQUIRE((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) < sizeof(path));
	ATF_REQUIRE_MSG(symlink(target, path) == 0, "symlink %s", path);
}

void fs_mkdev(const char *devpath, const char *subsys)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], target[PATH_MAX] = "";

	snprintf(dir, sizeof(dir), "sys%s", devpath);
	fs_mkdir_p(dir);
	snprintf(path, sizeof(path), "%s/uevent", dir);
	fs_write_file(path, "");
	if (!subsys)
		return;
	for (const char *p = devpath; *p; p++)
		if (*p == '/')
			strcat(target, "../");
	strcat(target, subsys);
	fs_symlink_at(target, dir, "subsystem");
}

void fs_small_machine(void)
{
	fs_mkdev(FS_PCI, NULL);
	fs_mkdev(FS_PCI "/0000:00:01.0", "bus/pci");
	fs_mkdir_p("sys" FS_PCI "/0000:00:01.0/block"); /* class dir, not a device */
	fs_mkdev(FS_PCI "/0000:00:01.0/block/sda", "class/block");
	fs_mkdev(FS_PCI "/0000:00:01.0/block/sda/sda1", "class/block");
	fs_mkdev(FS_PCI "/0000:00:02.0", "bus/pci");
	fs_mkdev(FS_USB, "bus/usb");
	fs_mkdev(FS_USB "/1-1", "bus/usb");
	fs_mkdev(FS_USB "/1-1/1-1:1.0", "bus/usb");
	fs_mkdev(FS_USB "/1-1/1-1:1.0/input/input3", "class/input");
	fs_mkdev(FS_USB "/1-1/1-1:1.0/input/input3/event3", "class/input");
	fs_mkdev(FS_PCI "/0000:00:03.0", "bus/pci");
	fs_mkdev(FS_PCI "/0000:00:03.0/net/eth0", "class/net");
	fs_mkdev("/devices/platform", NULL);
	fs_mkdev("/devices/platform/serial8250", "bus/platform");
	fs_mkdev("/devices/platform/serial8250/tty/ttyS0", "class/tty");
	fs_mkdev("/devices/platform/pcspkr", "bus/platform");
	fs_mkdev("/devices/platform/mdio-bus", "bus/platform"); /* "md", not block */
	fs_mkdev("/devices/virtual/block/loop0", "class/block");
	fs_mkdev("/devices/virtual/block/dm-0", "class/block");
	fs_mkdev("/devices/virtual/block/dm-0/vcs9", "class/tty"); /* below dm: late */
	fs_mkdev("/devices/virtual/block/md0", "class/block");
	fs_mkdev("/devices/virtual/block/md0/md0p1", "class/block");
	fs_mkdev("/devices/virtual/mem/null", "class/mem");
	fs_mkdev("/devices/virtual/mem/zero", "class/mem");
	fs_mkdev("/devices/virtual/tty/tty0", "class/tty");
	fs_mkdev("/devices/virtual/nodev/child", "class/misc"); /* parent has no uevent */

	/* not devices, or not to be reached */
	fs_mkdev("/devices/.hidden", "class/block");
	fs_mkdev("/devices/.hidden/inner", "class/block");
	fs_mkdev("/elsewhere/dev0", "class/block");
	fs_mkdev("/bus/platform/devices/fake0", "bus/platform");
	fs_symlink_at("../../elsewhere", "sys/devices/virtual", "link");
	fs_symlink_at("../pci0000:00", "sys/devices/virtual", "pci-again");
	fs_symlink_at("../../../bus/platform/devices", "sys/devices/platform/pcspkr", "peers");
	fs_mkdir_p("sys/devices/virtual/udir/uevent"); /* a directory named uevent */
	fs_mkdir_p("sys/devices/virtual/ulink");       /* uevent is a symlink */
	fs_symlink_at("../mem/null/uevent", "sys/devices/virtual/ulink", "uevent");
}

