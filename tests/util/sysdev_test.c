/* SPDX-License-Identifier: MIT */
/*
 * Symlink-safe sysfs reads against hand-made trees, each case twice: with
 * openat2 (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) and with the component
 * walk kept for kernels before 5.6. Both must refuse the same things.
 */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sysdev.h"
#include "sysfs-fixture.h"

#define ROOT "sys"
#define DEV "/devices/pci0000:00/0000:00:01.0"

static void tree(void)
{
	fx_device(ROOT, DEV, "pci", NULL);
	fx_text(ROOT, DEV "/vendor", "0x1af4\n");
	fx_file(ROOT, DEV "/cut", "ab\0cd", 5);
	fx_text(ROOT, DEV "/crlf", "value\r\n\n");
	fx_dir(ROOT, DEV "/group");
	fx_text(ROOT, DEV "/group/inside", "1\n");
	fx_device(ROOT, DEV "/virtio1", "virtio", NULL);
	fx_dir(ROOT, DEV "/virtio1/glue");
	fx_device(ROOT, DEV "/virtio1/glue/child", "block", "disk");
	/* outside the root, reachable only through symlinks */
	ATF_REQUIRE_EQ(mkdir("outside", 0755), 0);
	fx_text("outside", "/secret", "leaked\n");
	fx_device("outside", "/devices/fake", "pci", NULL);
	fx_link(ROOT, DEV "/secret", "../../../../outside/secret");
	fx_link(ROOT, DEV "/linked", "../../../../outside/devices/fake");
	fx_link(ROOT, DEV "/up", "..");
}

static void open_root(struct sysdev_root *r, bool walk_only)
{
	ATF_REQUIRE_EQ(sysdev_root_open(r, ROOT), 0);
	r->walk_only = walk_only;
}

static void check_reads(bool walk_only)
{
	struct sysdev_root r;
	char v[SYSDEV_ATTR_MAX], small[4];

	tree();
	open_root(&r, walk_only);
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "vendor", v, sizeof(v)), 6);
	ATF_CHECK_STREQ(v, "0x1af4");
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "cut", v, sizeof(v)), 2);
	ATF_CHECK_STREQ(v, "ab");
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "crlf", v, sizeof(v)), 5);
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "vendor", small, sizeof(small)), -EFBIG);
	ATF_CHECK_STREQ(small, "0x1");
	ATF_CHECK_EQ(sysdev_attr(&r, DEV "/group", "inside", v, sizeof(v)), 1);
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "absent", v, sizeof(v)), -ENOENT);
	sysdev_root_close(&r);
}

static void check_refusals(bool walk_only)
{
	struct sysdev_root r;
	char v[SYSDEV_ATTR_MAX];

	tree();
	open_root(&r, walk_only);
	/* an attribute that is a symlink, a directory, or a name with a slash */
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "secret", v, sizeof(v)), -ENOENT);
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "group", v, sizeof(v)), -ENOENT);
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "group/inside", v, sizeof(v)), -EINVAL);
	ATF_CHECK_EQ(sysdev_attr(&r, DEV, "..", v, sizeof(v)), -EINVAL);
	/* a device directory reached through a symlink, or climbing out */
	ATF_CHECK_EQ(sysdev_attr(&r, DEV "/linked", "uevent", v, sizeof(v)), -ENOENT);
	ATF_CHECK_EQ(sysdev_attr(&r, DEV "/up", "vendor", v, sizeof(v)), -ENOENT);
	ATF_CHECK_EQ(sysdev_attr(&r, DEV "/../../../outside", "secret", v, sizeof(v)), -EINVAL);
	ATF_CHECK_EQ(sysdev_attr(&r, "devices/pci0000:00", "uevent", v, sizeof(v)), -EINVAL);
	ATF_CHECK_EQ(sysdev_open_dir(&r, DEV "/linked"), -ENOENT);
	ATF_CHECK(!sysdev_is_device(&r, DEV "/linked"));
	sysdev_root_close(&r);
}

static void check_family(bool walk_only)
{
	struct sysdev_root r;
	char out[SYSDEV_PATH_MAX], name[SYSDEV_NAME_MAX];

	tree();
	open_root(&r, walk_only);
	ATF_CHECK(sysdev_is_device(&r, DEV));
	ATF_CHECK(!sysdev_is_device(&r, DEV "/group"));
	/* the glue directory is skipped on the way up */
	ATF_CHECK_EQ(sysdev_parent(&r, DEV "/virtio1/glue/child", out, sizeof(out)), 0);
	ATF_CHECK_STREQ(out, DEV "/virtio1");
	ATF_CHECK_EQ(sysdev_subsystem(&r, DEV "/virtio1/glue/child", name), 0);
	ATF_CHECK_STREQ(name, "block");
	ATF_CHECK_EQ(sysdev_devtype(&r, DEV "/virtio1/glue/child", name), 0);
	ATF_CHECK_STREQ(name, "disk");
	sysdev_root_close(&r);
}

#define BOTH(name, fn)                                        \
	ATF_TC_WITHOUT_HEAD(name##_openat2);                  \
	ATF_TC_BODY(name##_openat2, tc) { fn(false); }        \
	ATF_TC_WITHOUT_HEAD(name##_walk);                     \
	ATF_TC_BODY(name##_walk, tc) { fn(true); }

BOTH(reads, check_reads)
BOTH(refusals, check_refusals)
BOTH(family, check_family)

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, reads_openat2);
	ATF_TP_ADD_TC(tp, reads_walk);
	ATF_TP_ADD_TC(tp, refusals_openat2);
	ATF_TP_ADD_TC(tp, refusals_walk);
	ATF_TP_ADD_TC(tp, family_openat2);
	ATF_TP_ADD_TC(tp, family_walk);
	return atf_no_error();
}
