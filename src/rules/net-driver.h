/* SPDX-License-Identifier: MIT */
/*
 * udev 257's net_driver builtin: the name of the driver behind a network
 * interface, as ethtool's ETHTOOL_GDRVINFO gives it (udev sets
 * ID_NET_DRIVER from it; 50-udev-default.rules imports it for every "net"
 * device). Thread-safe (one short-lived socket per call). The interface
 * name comes from an event: one that cannot be an interface name (empty,
 * IFNAMSIZ or longer, with '/', ':' or white space) is never queried, where
 * udev would query a truncated name, which may be another interface.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A driver name fits ethtool_drvinfo.driver: 32 bytes with the NUL. */
#define NET_DRIVER_MAX 32

/*
 * The driver of interface ifname into driver (NUL-terminated, at most
 * size - 1 bytes). 0 on success; -EOPNOTSUPP (or another "not supported"
 * errno) when the interface has no driver information, -ENODEV when there is
 * no such interface (or the name cannot be one), -ENODATA when the driver
 * name is empty, or another -errno.
 */
int net_driver_get(const char *ifname, char *driver, size_t size);

/* udev's ERRNO_IS_NOT_SUPPORTED: the errors net_driver ignores quietly. */
bool net_driver_not_supported(int err);
