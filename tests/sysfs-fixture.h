/* SPDX-License-Identifier: MIT */
/*
 * Fake sysfs trees for the path-id and disk-id tests: captured ones
 * (tests/fixtures/sysfs/NAME.sh, with udev's real links in NAME.udev) and
 * small hand-made ones built with fx_dir/fx_file/fx_link, all under the
 * current directory (kyua gives each test case a fresh one).
 */
#pragma once

#include <atf-c.h>
#include <stdbool.h>
#include <stddef.h>

#include "names/path-id.h"

/* Where NAME.sh/NAME.udev live: SYSFS_FIXTURE_DIR if defined, else
 * <srcdir>/fixtures/sysfs (srcdir: the test program's directory). */
void fx_path(const atf_tc_t *tc, const char *file, char *out, size_t size);
/* Run NAME.sh to build the tree under root (relative to cwd). */
void fx_build(const atf_tc_t *tc, const char *name, const char *root);

/* Hand-made trees: path is relative to root; parents are created. */
void fx_dir(const char *root, const char *path);
void fx_file(const char *root, const char *path, const char *data, size_t len);
void fx_text(const char *root, const char *path, const char *text);
void fx_link(const char *root, const char *path, const char *target);
/* A device directory: uevent (with DEVTYPE if devtype) and subsystem link. */
void fx_device(const char *root, const char *devpath, const char *subsystem,
	       const char *devtype);

/* devpath ("/devices/...") of root/block/kname */
void fx_devpath(const char *root, const char *kname, char *out, size_t size);

typedef int (*fx_names_fn)(const char *sysfs, const char *devpath,
			   char names[][PATH_ID_NAME_MAX], size_t max);

/*
 * Names of root/block/kname by fn must be exactly the NULL-terminated list
 * expected (order free). Reports each difference.
 */
void fx_expect(const char *root, const char *kname, fx_names_fn fn,
	       const char *const *expected);

/*
 * Compare every by-id (fn = disk_ids, dir "by-id") or by-path link of every
 * disk and partition in root with the real udev's links in NAME.udev. Links
 * whose name is in gaps (NULL-terminated) may differ (known, documented);
 * a link two devices claim matches if udev gave it to one of them. Returns
 * the number of links compared.
 */
int fx_compare_udev(const atf_tc_t *tc, const char *name, const char *root,
		    const char *dir, fx_names_fn fn, const char *const *gaps);
