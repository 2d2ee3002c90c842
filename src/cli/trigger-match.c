/* SPDX-License-Identifier: MIT */
#include "cli/trigger-match.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <string.h>
#include <unistd.h>

#include "rules/db-file.h"
#include "rules/rules.h"
#include "util/sysdev.h"

bool trigger_match_subsystem_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= SYSDEV_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-.:", *p))
			return false;
	return true;
}

bool trigger_match_property_ok(const char *pattern)
{
	const char *eq = strchr(pattern, '=');

	return eq && eq != pattern && strlen(pattern) < PROPS_KEY_MAX + PROPS_VALUE_MAX;
}

/* pattern ("KEY=VALUE", globs) against key and value. */
static bool pattern_matches(const char *pattern, const char *key, const char *value)
{
	const char *eq = strchr(pattern, '=');
	char k[PROPS_KEY_MAX];

	if ((size_t)(eq - pattern) >= sizeof(k))
		return false;
	memcpy(k, pattern, (size_t)(eq - pattern));
	k[eq - pattern] = '\0';
	return fnmatch(k, key, 0) == 0 && fnmatch(eq + 1, value, 0) == 0;
}

/* Does a property of the uevent text (KEY=VALUE lines) match pattern? */
static bool uevent_matches(const char *uevent, const char *pattern)
{
	char line[SYSDEV_ATTR_MAX];

	for (const char *l = uevent; *l;) {
		size_t len = strcspn(l, "\n");
		char *eq;

		memcpy(line, l, len);
		line[len] = '\0';
		eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			if (pattern_matches(pattern, line, eq + 1))
				return true;
		}
		l += len + (l[len] == '\n');
	}
	return false;
}

static bool record_matches(const struct rules_record *rec, const char *pattern)
{
	for (size_t i = 0; i < rec->props.n; i++)
		if (pattern_matches(pattern, rec->props.v[i].key, rec->props.v[i].value))
			return true;
	return false;
}

/* devpath's properties (uevent file, database entry) against m's patterns. */
static bool device_matches(const struct trigger_match *m, const struct sysdev_root *sys, int datafd,
			   const char *devpath)
{
	char uevent[SYSDEV_ATTR_MAX], id[RULES_DB_ID_MAX];
	struct rules_record rec = { 0 };
	bool have_rec, found = false;

	if (m->nprops == 0)
		return true;
	if (sysdev_attr(sys, devpath, "uevent", uevent, sizeof(uevent)) < 0)
		uevent[0] = '\0';
	have_rec = datafd >= 0 && rules_db_file_id(sys, devpath, id, sizeof(id)) == 0 &&
		   rules_db_file_read(datafd, id, &rec) == 0;
	for (size_t i = 0; i < m->nprops && !found; i++)
		found = uevent_matches(uevent, m->props[i]) ||
			(have_rec && record_matches(&rec, m->props[i]));
	rules_record_free(&rec);
	return found;
}

/* Write the action into devpath's uevent file. 0 or -errno. */
static int write_action(const struct sysdev_root *sys, const char *devpath, const char *action)
{
	int dirfd = sysdev_open_dir(sys, devpath), fd;
	ssize_t n;

	if (dirfd < 0)
		return dirfd;
	fd = openat(dirfd, "uevent", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	close(dirfd);
	if (fd < 0)
		return -errno;
	n = write(fd, action, strlen(action));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

/* Every device listed in dir (below the sysfs root) of subsystem. */
static int trigger_dir(const struct trigger_match *m, const struct sysdev_root *sys, int datafd,
		       const char *subsystem, const char *dir, const char *sysfs, FILE *verbose,
		       unsigned int *failed)
{
	char devpath[SYSDEV_PATH_MAX];
	struct dirent *de;
	int fd = openat(sys->fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW), count = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0; /* no such class or bus */
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    sysdev_lookup(sys, subsystem, de->d_name, devpath, sizeof(devpath)) < 0 ||
		    !sysdev_subsystem_is(sys, devpath, subsystem) ||
		    !device_matches(m, sys, datafd, devpath))
			continue;
		if (!m->dry_run && write_action(sys, devpath, m->action) < 0) {
			(*failed)++;
			continue;
		}
		if (verbose)
			fprintf(verbose, "%s%s\n", sysfs, devpath);
		count++;
	}
	closedir(d);
	return count;
}

int trigger_match_run(const struct trigger_match *m, const char *sysfs, const char *udev_run,
		      FILE *verbose, unsigned int *failed)
{
	char dir[SYSDEV_PATH_MAX];
	struct sysdev_root sys;
	int datafd, r, count = 0;

	*failed = 0;
	r = sysdev_root_open(&sys, sysfs);
	if (r < 0)
		return r;
	snprintf(dir, sizeof(dir), "%s/data", udev_run);
	datafd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; i < m->nsubsystems; i++) {
		if (!trigger_match_subsystem_ok(m->subsystems[i]))
			continue;
		/* a device sits in one of them: bus/S/devices first, as sysdev_lookup */
		snprintf(dir, sizeof(dir), "bus/%s/devices", m->subsystems[i]);
		count += trigger_dir(m, &sys, datafd, m->subsystems[i], dir, sysfs, verbose,
				     failed);
		if (faccessat(sys.fd, dir, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		snprintf(dir, sizeof(dir), "class/%s", m->subsystems[i]);
		count += trigger_dir(m, &sys, datafd, m->subsystems[i], dir, sysfs, verbose,
				     failed);
	}
	if (datafd >= 0)
		close(datafd);
	sysdev_root_close(&sys);
	return count;
}
