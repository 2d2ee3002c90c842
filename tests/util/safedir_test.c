/* SPDX-License-Identifier: MIT */
/*
 * Walking below a root without following anything: removing a path's
 * empty parent directories stops at the root, at a directory that is not
 * empty, and at a symlink (never followed, never removed).
 */
#include <atf-c.h>

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safedir.h"

static int root(void)
{
	int fd;

	ATF_REQUIRE_EQ(mkdir("root", 0755), 0);
	fd = open("root", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ATF_REQUIRE(fd >= 0);
	return fd;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

ATF_TC_WITHOUT_HEAD(empty_parents_removed);
ATF_TC_BODY(empty_parents_removed, tc)
{
	int fd = root();

	ATF_REQUIRE_EQ(mkdir("root/a", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("root/a/b", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("root/a/b/c", 0755), 0);
	/* the leaf itself is already gone: its directories follow, not the root */
	ATF_CHECK_EQ(safedir_remove_empty_parents(fd, "a/b/c/leaf"), 3);
	ATF_CHECK(!exists("root/a"));
	ATF_CHECK(exists("root"));
	/* a plain name has no directory of its own */
	ATF_CHECK_EQ(safedir_remove_empty_parents(fd, "leaf"), 0);
	ATF_CHECK(exists("root"));
	close(fd);
}

ATF_TC_WITHOUT_HEAD(stops_at_full_directory);
ATF_TC_BODY(stops_at_full_directory, tc)
{
	int fd = root();

	ATF_REQUIRE_EQ(mkdir("root/a", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("root/a/b", 0755), 0);
	ATF_REQUIRE_EQ(symlink("x", "root/a/other"), 0);
	ATF_CHECK_EQ(safedir_remove_empty_parents(fd, "a/b/leaf"), 1);
	ATF_CHECK(!exists("root/a/b"));
	ATF_CHECK(exists("root/a/other"));
	/* a leaf still there keeps its directory */
	ATF_REQUIRE_EQ(mkdir("root/a/c", 0755), 0);
	ATF_REQUIRE_EQ(mknod("root/a/c/leaf", S_IFREG | 0600, 0), 0);
	ATF_CHECK_EQ(safedir_remove_empty_parents(fd, "a/c/leaf"), 0);
	ATF_CHECK(exists("root/a/c/leaf"));
	close(fd);
}

ATF_TC_WITHOUT_HEAD(symlinks_not_followed);
ATF_TC_BODY(symlinks_not_followed, tc)
{
	int fd = root();

	ATF_REQUIRE_EQ(mkdir("outside", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("outside/b", 0755), 0);
	ATF_REQUIRE_EQ(symlink("../outside", "root/a"), 0);
	/* "a" is a symlink to a directory with an empty "b": neither is touched */
	ATF_CHECK_EQ(safedir_remove_empty_parents(fd, "a/b/leaf"), 0);
	ATF_CHECK(exists("outside/b"));
	ATF_CHECK_EQ(safedir_remove_empty_parents(fd, "a/leaf"), 0);
	ATF_CHECK(exists("root/a"));
	ATF_CHECK(exists("outside"));
	close(fd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, empty_parents_removed);
	ATF_TP_ADD_TC(tp, stops_at_full_directory);
	ATF_TP_ADD_TC(tp, symlinks_not_followed);
	return atf_no_error();
}
