/* SPDX-License-Identifier: MIT */
#include "sysfs-fixture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define FX_LINKS_MAX 512

void fx_path(const atf_tc_t *tc, const char *file, char *out, size_t size)
{
#ifdef SYSFS_FIXTURE_DIR
	(void)tc;
	snprintf(out, size, "%s/%s", SYSFS_FIXTURE_DIR, file);
#else
	snprintf(out, size, "%s/fixtures/sysfs/%s",
		 atf_tc_get_config_var(tc, "srcdir"), file);
#endif
}

void fx_build(const atf_tc_t *tc, const char *name, const char *root)
{
	char script[PATH_MAX], file[NAME_MAX];
	int status;
	pid_t pid;

	snprintf(file, sizeof(file), "%s.sh", name);
	fx_path(tc, file, script, sizeof(script));
	ATF_REQUIRE_MSG(access(script, R_OK) == 0, "fixture %s: %s", script, strerror(errno));
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", script, root, (char *)NULL);
		_exit(127);
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed", script);
}

static void join(char *out, size_t size, const char *root, const char *path)
{
	ATF_REQUIRE((size_t)snprintf(out, size, "%s/%s", root, path[0] == '/' ? path + 1 : path) < size);
}

void fx_dir(const char *root, const char *path)
{
	char p[PATH_MAX];

	join(p, sizeof(p), root, path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		ATF_REQUIRE(mkdir(p, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
	ATF_REQUIRE(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void parent_dir(const char *root, const char *path)
{
	char d[PATH_MAX];

	snprintf(d, sizeof(d), "%s", path);
	if (strrchr(d, '/') && strrchr(d, '/') != d) {
		*strrchr(d, '/') = '\0';
		fx_dir(root, d);
	}
}

void fx_file(const char *root, const char *path, const char *data, size_t len)
{
	char p[PATH_MAX];
	int fd;

	parent_dir(root, path);
	join(p, sizeof(p), root, path);
	unlink(p);  /* never write through a planted symlink */
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

void fx_text(const char *root, const char *path, const char *text)
{
	fx_file(root, path, text, strlen(text));
}

void fx_link(const char *root, const char *path, const char *target)
{
	char p[PATH_MAX];

	parent_dir(root, path);
	join(p, sizeof(p), root, path);
	unlink(p);
	ATF_REQUIRE_MSG(symlink(target, p) == 0, "symlink %s: %s", p, strerror(errno));
}

void fx_device(const char *root, const char *devpath, const char *subsystem,
	       const char *devtype)
{
	char p[PATH_MAX], target[PATH_MAX] = "";

	fx_dir(root, devpath);
	snprintf(p, sizeof(p), "%s/uevent", devpath);
	if (devtype) {
		char ev[256];

		snprintf(ev, sizeof(ev), "DEVTYPE=%s\n", devtype);
		fx_text(root, p, ev);
	} else {
		fx_text(root, p, "");
	}
	if (!subsystem)
		return;
	/* ../ per component of devpath, then class/ or bus/: only the last part counts */
	for (const char *s = devpath + 1; *s; s++)
		if (*s == '/')
			strcat(target, "../");
	strcat(target, "../class/");
	strcat(target, subsystem);
	snprintf(p, sizeof(p), "%s/subsystem", devpath);
	fx_link(root, p, target);
}

void fx_devpath(const char *root, const char *kname, char *out, size_t size)
{
	char link[PATH_MAX], real[PATH_MAX], rroot[PATH_MAX];

	snprintf(link, sizeof(link), "%s/block/%s", root, kname);
	ATF_REQUIRE_MSG(realpath(link, real) && realpath(root, rroot), "no block/%s", kname);
	ATF_REQUIRE(strncmp(real, rroot, strlen(rroot)) == 0);
	snprintf(out, size, "%s", real + strlen(rroot));
}

static bool listed(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

void fx_expect(const char *root, const char *kname, fx_names_fn fn,
	       const char *const *expected)
{
	char devpath[PATH_MAX], names[PATH_ID_LINKS_MAX][PATH_ID_NAME_MAX];
	size_t want = 0;
	int n;

	fx_devpath(root, kname, devpath, sizeof(devpath));
	n = fn(root, devpath, names, PATH_ID_LINKS_MAX);
	ATF_REQUIRE_MSG(n >= 0, "%s: %s", kname, strerror(-n));
	for (int i = 0; i < n; i++)
		ATF_CHECK_MSG(listed(expected, names[i]), "%s: unexpected name \"%s\"", kname, names[i]);
	for (; expected[want]; want++) {
		bool found = false;

		for (int i = 0; i < n; i++)
			found = found || strcmp(names[i], expected[want]) == 0;
		ATF_CHECK_MSG(found, "%s: missing name \"%s\"", kname, expected[want]);
	}
	ATF_CHECK_EQ_MSG((size_t)n, want, "%s: %d names, expected %zu", kname, n, want);
}

struct fx_link_entry {
	char name[PATH_ID_NAME_MAX + 16];
	char kname[NAME_MAX + 1];
};

struct fx_links {
	struct fx_link_entry *v;
	size_t n;
};

static void links_add(struct fx_links *l, const char *name, const char *kname)
{
	ATF_REQUIRE(l->n < FX_LINKS_MAX);
	snprintf(l->v[l->n].name, sizeof(l->v[l->n].name), "%s", name);
	snprintf(l->v[l->n].kname, sizeof(l->v[l->n].kname), "%s", kname);
	l->n++;
}

static bool links_has(const struct fx_links *l, const char *name, const char *kname)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0 && (!kname || strcmp(l->v[i].kname, kname) == 0))
			return true;
	return false;
}

/* udev's links from NAME.udev: "by-id NAME ../../KNAME" */
static void read_udev(const atf_tc_t *tc, const char *name, const char *dir,
		      struct fx_links *out)
{
	char file[NAME_MAX], path[PATH_MAX], line[1024];
	FILE *f;

	snprintf(file, sizeof(file), "%s.udev", name);
	fx_path(tc, file, path, sizeof(path));
	f = fopen(path, "re");
	ATF_REQUIRE_MSG(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *sp1 = strchr(line, ' '), *sp2 = strrchr(line, ' '), *k;

		line[strcspn(line, "\n")] = '\0';
		if (!sp1 || sp2 == sp1)
			continue;
		*sp1 = *sp2 = '\0';
		k = strrchr(sp2 + 1, '/');
		if (strcmp(line, dir) == 0)
			links_add(out, sp1 + 1, k ? k + 1 : sp2 + 1);
	}
	fclose(f);
}

static void our_disk(const char *root, const char *kname, fx_names_fn fn,
		     struct fx_links *out)
{
	char devpath[PATH_MAX], dir[PATH_MAX], names[PATH_ID_LINKS_MAX][PATH_ID_NAME_MAX];
	DIR *d;
	struct dirent *de;
	int n;

	fx_devpath(root, kname, devpath, sizeof(devpath));
	n = fn(root, devpath, names, PATH_ID_LINKS_MAX);
	ATF_REQUIRE_MSG(n >= 0, "%s: %s", kname, strerror(-n));
	for (int i = 0; i < n; i++)
		links_add(out, names[i], kname);
	/* partitions: "<disk name>-part<N>", as the caller of the library does */
	snprintf(dir, sizeof(dir), "%s%s", root, devpath);
	d = opendir(dir);
	ATF_REQUIRE(d);
	while ((de = readdir(d))) {
		char p[PATH_MAX * 2], part[PATH_ID_NAME_MAX + NAME_MAX + 8];
		const char *num = de->d_name + strlen(de->d_name);

		snprintf(p, sizeof(p), "%s/%s/partition", dir, de->d_name);
		if (de->d_name[0] == '.' || access(p, F_OK) != 0)
			continue;
		while (num > de->d_name && num[-1] >= '0' && num[-1] <= '9')
			num--;
		for (int i = 0; i < n; i++) {
			int len = snprintf(part, sizeof(part), "%s-part%s", names[i], num);

			if (len > 0 && len < PATH_ID_NAME_MAX)
				links_add(out, part, de->d_name);
		}
	}
	closedir(d);
}

int fx_compare_udev(const atf_tc_t *tc, const char *name, const char *root,
		    const char *dir, fx_names_fn fn, const char *const *gaps)
{
	struct fx_links udev = { calloc(FX_LINKS_MAX, sizeof(struct fx_link_entry)), 0 };
	struct fx_links ours = { calloc(FX_LINKS_MAX, sizeof(struct fx_link_entry)), 0 };
	char blk[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int compared = 0;

	ATF_REQUIRE(udev.v && ours.v);
	read_udev(tc, name, dir, &udev);
	snprintf(blk, sizeof(blk), "%s/block", root);
	d = opendir(blk);
	ATF_REQUIRE(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			our_disk(root, de->d_name, fn, &ours);
	closedir(d);
	for (size_t i = 0; i < udev.n; i++) {
		if (listed(gaps, udev.v[i].name))
			continue;
		ATF_CHECK_MSG(links_has(&ours, udev.v[i].name, udev.v[i].kname),
			      "%s: udev has %s/%s -> %s, initdev not", name, dir,
			      udev.v[i].name, udev.v[i].kname);
		compared++;
	}
	for (size_t i = 0; i < ours.n; i++)
		if (!listed(gaps, ours.v[i].name))
			ATF_CHECK_MSG(links_has(&udev, ours.v[i].name, NULL),
				      "%s: initdev has %s/%s -> %s, udev not", name, dir,
				      ours.v[i].name, ours.v[i].kname);
	free(udev.v);
	free(ours.v);
	return compared;
}
