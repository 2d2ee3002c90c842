/* SPDX-License-Identifier: MIT */
#include "rules/net-driver.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int ioctl_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	/* as systemd's socket_ioctl_fd: a kernel without IPv4 still answers here */
	if (fd < 0)
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	return fd < 0 ? -errno : fd;
}

static bool valid_ifname(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < IFNAMSIZ && strcspn(name, "/: \t\n\r") == n;
}

int net_driver_get(const char *ifname, char *driver, size_t size)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { .ifr_data = (void *)&info };
	size_t n;
	int fd, r = 0;

	if (!valid_ifname(ifname))
		return -ENODEV;
	memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
	fd = ioctl_socket();
	if (fd < 0)
		return fd;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	/* the kernel fills a fixed 32-byte field: bound it, whatever it holds */
	n = strnlen(info.driver, sizeof(info.driver));
	if (n == 0)
		return -ENODATA;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(driver, info.driver, n);
	driver[n] = '\0';
	return 0;
}

bool net_driver_not_supported(int err)
{
	switch (err < 0 ? -err : err) {
	case EOPNOTSUPP: case ENOTTY: case ENOSYS: case EAFNOSUPPORT: case EPFNOSUPPORT:
	case EPROTONOSUPPORT: case ESOCKTNOSUPPORT: case ENOPROTOOPT:
		return true;
	default:
		return false;
	}
}
