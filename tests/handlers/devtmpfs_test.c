/* SPDX-License-Identifier: MIT */
/* devtmpfs detection and mounting, in a private mount namespace (root). */
#include <atf-c.h>

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handlers/devtmpfs.h"

static void require_root(void)
{
	if (geteuid() != 0)
		atf_tc_skip("needs root (mount namespaces, devtmpfs)");
}

/*
 * mountinfo parsing, against a real devtmpfs mount on a directory whose name
 * needs escaping, in a private mount namespace (gone when the case exits).
 */
ATF_TC_WITHOUT_HEAD(devtmpfs_detect);
ATF_TC_BODY(devtmpfs_detect, tc)
{
	const char *odd = "d e\\v\tx";
	int r;

	require_root();
	ATF_REQUIRE_EQ(mkdir("plain", 0755), 0);
	ATF_REQUIRE_EQ(mkdir(odd, 0755), 0);
	ATF_CHECK(!devtmpfs_is_mounted("plain"));
	ATF_CHECK(!devtmpfs_is_mounted("missing"));
	if (unshare(CLONE_NEWNS) < 0)
		atf_tc_skip("no private mount namespace: %s", strerror(errno));
	ATF_REQUIRE_EQ(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);

	ATF_CHECK(!devtmpfs_is_mounted(odd));
	r = devtmpfs_mount(odd);
	if (r == -ENODEV)
		atf_tc_skip("kernel without devtmpfs");
	ATF_REQUIRE_EQ(r, 0);
	ATF_CHECK(devtmpfs_is_mounted(odd));
	ATF_REQUIRE_EQ(symlink(odd, "alias"), 0);
	ATF_CHECK(devtmpfs_is_mounted("alias"));
	ATF_CHECK(!devtmpfs_is_mounted("plain"));
	ATF_CHECK_EQ(devtmpfs_mount(odd), 0); /* already: nothing stacked */

	/* the topmost mount decides */
	ATF_REQUIRE_EQ(mount("tmpfs", odd, "tmpfs", 0, NULL), 0);
	ATF_CHECK(!devtmpfs_is_mounted(odd));
	ATF_CHECK_EQ(umount2(odd, MNT_DETACH), 0);
	ATF_CHECK(devtmpfs_is_mounted(odd));
	ATF_CHECK_EQ(umount2(odd, MNT_DETACH), 0);
	ATF_CHECK(!devtmpfs_is_mounted(odd));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, devtmpfs_detect);
	return atf_no_error();
}
