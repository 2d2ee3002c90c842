/* SPDX-License-Identifier: MIT */
/*
 * Which rules files run, in which order: udev's conf_files_list over
 * /usr/lib/udev/rules.d, /run/udev/rules.d and /etc/udev/rules.d - every
 * "*.rules" by file name; for a name found in several directories the one
 * in the directory of highest precedence (/etc, then /run, then /usr/lib)
 * is read; a symlink to /dev/null there masks the name. And the builtins
 * the language names.
 */
#include "rules/rules.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/readfull.h"

static const struct {
	const char *name;
	bool run_once;
	bool supported;
} builtins[RB_MAX] = {
	[RB_BLKID] = { "blkid", true, true },
	[RB_BTRFS] = { "btrfs", false, true },
	[RB_HWDB] = { "hwdb", false, true },
	[RB_INPUT_ID] = { "input_id", true, true },
	[RB_KEYBOARD] = { "keyboard", false, true },
	[RB_KMOD] = { "kmod", false, true },
	[RB_NET_DRIVER] = { "net_driver", true, true },
	[RB_NET_ID] = { "net_id", true, false },
	[RB_NET_SETUP_LINK] = { "net_setup_link", true, false },
	[RB_PATH_ID] = { "path_id", true, true },
	[RB_USB_ID] = { "usb_id", true, true },
	[RB_UACCESS] = { "uaccess", false, false },
};

const char *rules_builtin_name(enum rules_builtin b)
{
	return b < RB_MAX ? builtins[b].name : "?";
}

bool rules_builtin_run_once(enum rules_builtin b)
{
	return b < RB_MAX && builtins[b].run_once;
}

bool rules_builtin_supported(enum rules_builtin b)
{
	return b < RB_MAX && builtins[b].supported;
}

int rules_builtin_lookup(const char *cmd)
{
	size_t n;

	cmd += strspn(cmd, " \t\n\r");
	n = strcspn(cmd, " \t\n\r");
	/* udev compares the first n bytes only: a prefix of a name finds it */
	for (int i = 0; i < RB_MAX; i++)
		if (strncmp(builtins[i].name, cmd, n) == 0)
			return i;
	return -1;
}

static int read_all(const char *path, char **text, size_t *len)
{
	/* O_NONBLOCK: a FIFO named *.rules must not hang the open; refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	ssize_t got;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > 16 * 1024 * 1024) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
	}
	*text = malloc((size_t)st.st_size + 1);
	if (!*text) {
		close(fd);
		return -ENOMEM;
	}
	got = read_full(fd, *text, (size_t)st.st_size);
	close(fd);
	if (got < 0) {
		free(*text);
		*text = NULL;
		return (int)got;
	}
	*len = (size_t)got;
	return 0;
}

int rules_parse_file(struct rules *r, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int ret = read_all(path, &text, &len);

	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (len > 0)
		ret = rules_parse_text(r, path, text, len);
	free(text);
	return ret;
}

struct entry {
	char name[NAME_MAX + 1];
	char path[PATH_MAX];
	bool masked;
};

static bool is_rules_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 6 && strcmp(name + n - 6, ".rules") == 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* Add or replace (a later directory wins) the entry for name. */
static int put_entry(struct entry **v, size_t *n, const char *dir, const char *name)
{
	struct entry *e = NULL;
	char target[PATH_MAX];
	ssize_t tl;

	for (size_t i = 0; i < *n && !e; i++)
		if (strcmp((*v)[i].name, name) == 0)
			e = &(*v)[i];
	if (!e) {
		struct entry *nv;

		if (*n >= RULES_FILES_MAX)
			return -E2BIG;
		nv = realloc(*v, (*n + 1) * sizeof(**v));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		e = &(*v)[(*n)++];
		snprintf(e->name, sizeof(e->name), "%s", name);
	}
	if ((size_t)snprintf(e->path, sizeof(e->path), "%s/%s", dir, name) >= sizeof(e->path))
		return -ENAMETOOLONG;
	tl = readlink(e->path, target, sizeof(target) - 1);
	e->masked = tl == 9 && strncmp(target, "/dev/null", 9) == 0;
	return 0;
}

static int scan_dir(struct entry **v, size_t *n, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while (ret == 0 && (de = readdir(d)))
		if (is_rules_name(de->d_name))
			ret = put_entry(v, n, dir, de->d_name);
	closedir(d);
	return ret;
}

static int load_entries(struct rules *r, struct entry *v, size_t n)
{
	int ret = 0;

	if (n > 0)
		qsort(v, n, sizeof(*v), by_name);
	for (size_t i = 0; i < n && ret >= 0; i++) {
		if (v[i].masked)
			continue;
		ret = rules_parse_file(r, v[i].path);
		if (ret < 0 && ret != -ENOMEM && ret != -E2BIG) {
			char e[256];

			if (r->log)
				log_msg(r->log, LOG_WARNING, "%s: cannot read: %s",
					escape_log(e, sizeof(e), v[i].path, strlen(v[i].path)),
					errno_text(ret));
			ret = 0;
		}
	}
	return ret;
}

int rules_load_dirs(struct rules *r, const char *const *dirs)
{
	struct entry *v = NULL;
	size_t n = 0;
	int ret = 0;

	for (; *dirs && ret == 0; dirs++)
		ret = scan_dir(&v, &n, *dirs);
	if (ret == 0)
		ret = load_entries(r, v, n);
	free(v);
	return ret;
}

int rules_load_paths(struct rules *r, const char *const *paths, size_t n)
{
	int ret = 0;

	for (size_t i = 0; i < n && ret == 0; i++) {
		struct stat st;

		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			const char *dirs[] = { paths[i], NULL };

			ret = rules_load_dirs(r, dirs);
		} else {
			ret = rules_parse_file(r, paths[i]);
			if (ret == 0 && stat(paths[i], &st) < 0)
				ret = -ENOENT;
		}
	}
	return ret;
}
