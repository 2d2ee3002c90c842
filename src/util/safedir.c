/* SPDX-License-Identifier: MIT */
#include "util/safedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why name in dirfd is not a directory we may enter: -ELOOP or -ENOTDIR. */
static int why_not_dir(int dirfd, const char *name, int err)
{
	struct stat st;

	if (err != -ENOTDIR && err != -ELOOP)
		return err;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return -ELOOP;
	return -ENOTDIR;
}

int safedir_enter(int dirfd, const char *name, bool create)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(dirfd, name, flags);

	if (fd >= 0 || errno != ENOENT || !create)
		return fd >= 0 ? fd : why_not_dir(dirfd, name, -errno);
	if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, flags);
	if (fd < 0)
		return why_not_dir(dirfd, name, -errno);
	/* the umask must not decide who can reach what is inside */
	(void)fchmod(fd, 0755);
	return fd;
}

int safedir_open_parent(int rootfd, const char *path, bool create, const char **leaf)
{
	int cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 3);
	const char *p = path;

	if (cur < 0)
		return -errno;
	for (;;) {
		size_t len = strcspn(p, "/");
		char comp[NAME_MAX + 1];
		int next;

		if (len == 0 || len > NAME_MAX) {
			close(cur);
			return len == 0 ? -EINVAL : -ENAMETOOLONG;
		}
		if (p[len] == '\0') {
			*leaf = p;
			return cur;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		next = safedir_enter(cur, comp, create);
		close(cur);
		if (next < 0)
			return next;
		cur = next;
		p += len + 1;
	}
}

int safedir_link_state(int dirfd, const char *name, const char *target)
{
	char buf[PATH_MAX + 1];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf));

	if (n >= 0)
		return (size_t)n == strlen(target) && memcmp(buf, target, (size_t)n) == 0 ?
		       SAFEDIR_LINK_SAME : SAFEDIR_LINK_OTHER;
	if (errno == ENOENT)
		return SAFEDIR_LINK_ABSENT;
	return errno == EINVAL ? SAFEDIR_LINK_FOREIGN : -errno;
}

int safedir_put_link(int dirfd, const char *leaf, const char *target, int tmpfd,
		     const char *tmp_prefix)
{
	char tmp[NAME_MAX + 1];
	int state;

	/* nothing there (the common case): symlinkat is atomic on its own */
	if (symlinkat(target, dirfd, leaf) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	state = safedir_link_state(dirfd, leaf, target);
	if (state < 0 || state == SAFEDIR_LINK_SAME)
		return state < 0 ? state : 0;
	if (state == SAFEDIR_LINK_FOREIGN)
		return -EEXIST;
	/* a stale link: build the new one aside, then rename it over; callers
	 * hold a lock, so one name per thread is enough, and the pid tells
	 * instances apart */
	snprintf(tmp, sizeof(tmp), "%s.%d.%d", tmp_prefix, (int)getpid(), (int)gettid());
	(void)unlinkat(tmpfd, tmp, 0); /* left over by a crash */
	if (symlinkat(target, tmpfd, tmp) < 0)
		return -errno;
	if (renameat(tmpfd, tmp, dirfd, leaf) == 0)
		return 0;
	state = -errno;
	(void)unlinkat(tmpfd, tmp, 0);
	return state;
}

/* Remove the directory named by path's first len bytes if it is empty. */
static bool remove_dir(int rootfd, const char *path, size_t len)
{
	char prefix[PATH_MAX];
	const char *leaf;
	bool ok;
	int fd;

	if (len >= sizeof(prefix))
		return false;
	memcpy(prefix, path, len);
	prefix[len] = '\0';
	fd = safedir_open_parent(rootfd, prefix, false, &leaf);
	if (fd < 0)
		return false;
	/* AT_REMOVEDIR fails on a symlink (ENOTDIR) and a full directory */
	ok = unlinkat(fd, leaf, AT_REMOVEDIR) == 0;
	close(fd);
	return ok;
}

int safedir_remove_empty_parents(int rootfd, const char *path)
{
	size_t len = strlen(path);
	int n = 0;

	while (len > 0 && path[len - 1] == '/')
		len--;
	for (;;) {
		/* the parent of path[0..len) */
		while (len > 0 && path[len - 1] != '/')
			len--;
		while (len > 0 && path[len - 1] == '/')
			len--;
		if (len == 0 || !remove_dir(rootfd, path, len))
			return n;
		n++;
	}
}
