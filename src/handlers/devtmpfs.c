/* SPDX-License-Identifier: MIT */
#include "handlers/devtmpfs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

/* mountinfo lines longer than this are skipped (mount points escape to 4x). */
#define MOUNTINFO_LINE_MAX (4 * PATH_MAX + 512)

/* Undo mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134 backslash). */
static void unescape_octal(char *s)
{
	char *out = s;

	for (char *p = s; *p != '\0'; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*out++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*out++ = *p;
		}
	}
	*out = '\0';
}

/*
 * One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE ...".
 * Sets *mnt and *fstype (in place) and returns true if the line is well formed.
 */
static bool mountinfo_fields(char *line, char **mnt, char **fstype)
{
	char *save = NULL, *f;
	int i = 0;

	*mnt = *fstype = NULL;
	for (f = strtok_r(line, " \n", &save); f != NULL; f = strtok_r(NULL, " \n", &save), i++) {
		if (i == 4)
			*mnt = f;
		if (i >= 6 && strcmp(f, "-") == 0) {
			*fstype = strtok_r(NULL, " \n", &save);
			break;
		}
	}
	if (*mnt == NULL || *fstype == NULL)
		return false;
	unescape_octal(*mnt);
	return true;
}

/* Read one line of at most size-1 bytes; longer lines are consumed and *cut set. */
static bool read_line(FILE *f, char *buf, size_t size, bool *cut)
{
	int ch;

	*cut = false;
	if (fgets(buf, (int)size, f) == NULL)
		return false;
	if (strchr(buf, '\n') != NULL || feof(f))
		return true;
	*cut = true;
	while ((ch = getc(f)) != EOF && ch != '\n')
		;
	return true;
}

bool devtmpfs_is_mounted(const char *dev_root)
{
	char real[PATH_MAX], *line, *mnt, *fstype;
	bool is = false, cut;
	FILE *f;

	if (realpath(dev_root, real) == NULL)
		return false;
	f = fopen("/proc/self/mountinfo", "re");
	line = malloc(MOUNTINFO_LINE_MAX);
	while (f != NULL && line != NULL && read_line(f, line, MOUNTINFO_LINE_MAX, &cut)) {
		/* later lines are mounted on top of earlier ones: the last one counts */
		if (!cut && mountinfo_fields(line, &mnt, &fstype) && strcmp(mnt, real) == 0)
			is = strcmp(fstype, "devtmpfs") == 0;
	}
	free(line);
	if (f != NULL)
		fclose(f);
	return is;
}

/* "nodev\tdevtmpfs" in /proc/filesystems. */
static bool kernel_has_devtmpfs(void)
{
	char line[256];
	bool has = false, cut;
	FILE *f = fopen("/proc/filesystems", "re");

	while (f != NULL && !has && read_line(f, line, sizeof(line), &cut)) {
		char *name = strrchr(line, '\t');

		line[strcspn(line, "\n")] = '\0';
		has = !cut && strcmp(name ? name + 1 : line, "devtmpfs") == 0;
	}
	if (f != NULL)
		fclose(f);
	return has;
}

int devtmpfs_mount(const char *dev_root)
{
	if (devtmpfs_is_mounted(dev_root))
		return 0; /* already there: do not stack a second one */
	if (!kernel_has_devtmpfs())
		return -ENODEV;
	if (mount("devtmpfs", dev_root, "devtmpfs", MS_NOSUID, "mode=0755") < 0)
		return -errno;
	return 0;
}


bool devtmpfs_choose(const char *dev_root, bool declined, const struct logger *log)
{
	int r;

	if (declined) {
		log_msg(log, LOG_INFO, "%s: creating nodes with mknod (--no-devtmpfs)", dev_root);
		return false;
	}
	if (devtmpfs_is_mounted(dev_root))
		return true;
	r = devtmpfs_mount(dev_root);
	if (r == 0) {
		log_msg(log, LOG_INFO, "mounted devtmpfs on %s", dev_root);
		return true;
	}
	log_msg(log, LOG_NOTICE, "%s: no devtmpfs (%s); creating nodes with mknod", dev_root,
		errno_text(r));
	return false;
}
