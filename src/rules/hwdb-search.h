/* SPDX-License-Identifier: MIT */
/*
 * udev 252's hwdb builtin over a loaded hwdb (names/hwdb.h): its options
 * (--filter, --subsystem, --lookup-prefix, a key given directly) parsed as
 * its getopt_long parses them (unknown options ignored), and its search:
 * the device and then its parents, each by MODALIAS (a usb_device without
 * one by "usb:vVVVVpPPPP:product", and no parent above it), until one gives
 * properties. --device is not supported (no rule of udev's or dracut's
 * uses it): the builtin fails then.
 *
 * Hostile: the arguments (rules text after substitution, so sysfs values
 * too), the sysfs attributes and uevent files read; all bounded.
 * Thread-safe.
 */
#pragma once

#include "names/hwdb.h"
#include "rules/rules.h"

struct hwdb_args {
	const char *filter, *device, *subsystem, *prefix, *key;
};

/* Fills a (NULL: not given); never fails, as getopt_long skips what it does not know. */
void hwdb_args_parse(int argc, char **argv, struct hwdb_args *a);

/*
 * The builtin on ev: the number of properties set (> 0); -ENODATA if none
 * found, -EINVAL without a hwdb (udev's failure when it has no hwdb.bin),
 * -EOPNOTSUPP for --device, -EBADMSG for a corrupt hwdb.bin, -errno.
 */
int hwdb_builtin(const struct hwdb *db, const struct sysdev_root *root, struct rules_event *ev,
		 int argc, char **argv);
