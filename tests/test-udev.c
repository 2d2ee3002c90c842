/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for systemd's test-udev (src/test/test-udev.c in systemd
 * 252), so that udev's own rules suite (test/udev-test.pl) runs through
 * initdev: `test-udev ACTION DEVPATH` from the suite's directory, or
 * `test-udev check`. As test-udev it first enters a mount namespace of its
 * own and binds the suite's trees over /sys (test/tmpfs/sys), /dev
 * (test/tmpfs/dev) and /run (test/run): nothing it does reaches the host's.
 * Then it makes the node devtmpfs would make (0600, parents 0755; on
 * remove it unlinks it and its empty parents), and hands the event, made
 * from sysfs as test-udev makes it, to initdev's own handlers: devnode,
 * then the rules handler over /run/udev/rules.d (the suite's rules file),
 * which applies the rules, puts links through the link table, node
 * permissions through devnode, and runs RUN.
 *
 * The daemon keeps what one event leaves for the next in memory; here
 * every event is a process of its own, so that state goes through udev's
 * database in /run/udev/data (written with initdev's udev-db writer, read
 * back with rules/db-file.h): the device's own record (its old links,
 * IMPORT{db}), its parents' (IMPORT{parent}), and every other device's
 * links with their priorities (the link table's claimants, so that a
 * link_priority contest across devices is decided as the daemon decides
 * it). The suite starts a device's events in parallel processes; an
 * exclusive lock on /run/udev/test-udev.lock orders them as the daemon's
 * queue would (one event of the suite's at a time).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "handlers/devnode.h"
#include "handlers/disk-links.h"
#include "handlers/rules.h"
#include "handlers/synth-event.h"
#include "handlers/udev-db.h"
#include "rules/db-file.h"
#include "util/log.h"
#include "util/safedir.h"

struct standin {
	struct logger log;
	struct sysdev_root sys;
	struct devnode devnode;
	struct disk_links links;
	struct rules_handler rules;
	struct udev_db udevdb;
	struct rules_db_dir data; /* /run/udev/data */
	int devfd;
};

/* test-udev's fake_filesystems: a private namespace, the suite's trees bound over the real ones. */
static int enter_suite(void)
{
	static const char *const binds[][2] = {
		{ "test/tmpfs/sys", "/sys" },
		{ "test/tmpfs/dev", "/dev" },
		{ "test/run", "/run" },
	};

	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	/* nothing mounted here may propagate back to the host */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++)
		if (mount(binds[i][0], binds[i][1], NULL, MS_BIND | MS_REC, NULL) < 0) {
			int r = -errno;

			fprintf(stderr, "test-udev: bind %s on %s: %s\n", binds[i][0], binds[i][1],
				strerror(-r));
			return r;
		}
	return 0;
}

/* What devtmpfs does for the event (test-udev's mknod and unlink). */
static int fake_devtmpfs(int devfd, const struct uevent *ev)
{
	const char *leaf;
	int dirfd, r = 0;

	if (!ev->devname || !ev->has_devnum)
		return 0;
	dirfd = safedir_open_parent(devfd, ev->devname, ev->action != UEVENT_REMOVE, &leaf);
	if (dirfd < 0)
		return dirfd;
	if (ev->action == UEVENT_REMOVE) {
		if (unlinkat(dirfd, leaf, 0) < 0)
			r = -errno;
		else
			(void)safedir_remove_empty_parents(devfd, ev->devname);
	} else if (mknodat(dirfd, leaf,
			   (strcmp(ev->subsystem, "block") == 0 ? S_IFBLK : S_IFCHR) | 0600,
			   makedev(ev->major, ev->minor)) < 0) {
		r = -errno;
	}
	close(dirfd);
	return r;
}

/*
 * The node another device's claim on link points at: udev's link index
 * (/run/udev/links/<escaped link>/<id>, a symlink saying "PRIORITY:/dev/NAME")
 * into devname, relative to /dev. False if there is none.
 */
static bool claim_devname(const struct standin *s, const char *link, const char *id,
			  char *devname, size_t size)
{
	char esc[NAME_MAX + 1], path[PATH_MAX], target[PATH_MAX];
	const char *colon, *rel;
	ssize_t n;

	if (udev_db_escape_link(link, esc, sizeof(esc)) < 0)
		return false;
	snprintf(path, sizeof(path), "links/%s/%s", esc, id);
	n = readlinkat(s->udevdb.dirfd, path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	colon = strchr(target, ':');
	rel = colon ? rules_devname_rel(colon + 1) : NULL;
	return rel && (size_t)snprintf(devname, size, "%s", rel) < size;
}

/*
 * A device's links claimed again in the link table as its events left them:
 * key is its devpath (the event's device) or its database id (any other:
 * the table only needs its claims told apart), devname its node.
 */
static void restore_links(struct standin *s, const char *key, const char *devname,
			  const struct rules_record *rec)
{
	struct disk_links_device_info info = { 0 };
	const char *names[DISK_LINKS_NAMES_MAX];
	size_t n = 0;

	snprintf(info.devname, sizeof(info.devname), "%s", devname);
	for (size_t i = 0; i < rec->links.n && n < DISK_LINKS_NAMES_MAX; i++)
		if (rules_link_valid(rec->links.v[i]))
			names[n++] = rec->links.v[i] + strlen("/dev/");
	if (n > 0)
		(void)disk_links_update_rules(&s->links, key, &info, rec->link_priority, names, n);
}

/* One data file: the event's own device (id self), or another one. */
static void restore_one(struct standin *s, const struct uevent *ev, const char *self,
			const char *id)
{
	char devname[UEVENT_DEVNAME_MAX + 1];
	struct rules_record rec;

	if (rules_db_file_read(s->data.dirfd, id, &rec) < 0)
		return;
	if (strcmp(id, self) == 0) {
		(void)rules_db_put(&s->rules.db, ev->devpath, &rec);
		if (ev->devname)
			restore_links(s, ev->devpath, ev->devname, &rec);
	} else if (rec.links.n > 0 && claim_devname(s, rec.links.v[0] + strlen("/dev/"), id,
						    devname, sizeof(devname))) {
		restore_links(s, id, devname, &rec);
	}
	rules_record_free(&rec);
}

/*
 * What earlier events left in /run/udev/data: every device's links into the
 * link table; the event's own record and its parents' into the rules'
 * record store (IMPORT{db}, IMPORT{parent}).
 */
static void restore(struct standin *s, const struct uevent *ev)
{
	char self[RULES_DB_ID_MAX], cur[SYSDEV_PATH_MAX], parent[SYSDEV_PATH_MAX];
	struct rules_record rec;
	struct dirent *de;
	DIR *d = fdopendir(dup(s->data.dirfd));

	if (rules_db_file_id(&s->sys, ev->devpath, self, sizeof(self)) < 0)
		self[0] = '\0';
	for (de = d ? readdir(d) : NULL; de; de = readdir(d))
		if (de->d_name[0] != '.')
			restore_one(s, ev, self, de->d_name);
	if (d)
		closedir(d);
	snprintf(cur, sizeof(cur), "%s", ev->devpath);
	while (sysdev_parent(&s->sys, cur, parent, sizeof(parent)) == 0) {
		if (rules_db_dir_get(&s->data, parent, &rec)) {
			(void)rules_db_put(&s->rules.db, parent, &rec);
			rules_record_free(&rec);
		}
		snprintf(cur, sizeof(cur), "%s", parent);
	}
}

static void db_entry(const struct uevent *ev, const struct rules_record *rec,
		     struct udev_db_entry *e, char *devnode, size_t size)
{
	snprintf(devnode, size, "/dev/%s", ev->devname ? ev->devname : "");
	*e = (struct udev_db_entry){ .block = strcmp(ev->subsystem, "block") == 0,
				     .major = ev->major,
				     .minor = ev->minor,
				     .devnode = ev->devname ? devnode : NULL,
				     .links = &rec->links,
				     .link_priority = rec->link_priority,
				     .usec_initialized = rec->usec_initialized,
				     .props = &rec->props,
				     .tags = &rec->tags,
				     .persist = rec->persist };
}

/* What the event left, for the next process: its record written, or removed. */
static int persist(struct standin *s, const struct uevent *ev, const struct rules_record *old,
		   bool had)
{
	char devnode[UEVENT_DEVNAME_MAX + 8], olddevnode[UEVENT_DEVNAME_MAX + 8];
	struct udev_db_entry now, before;
	struct rules_record rec;
	int r = 0;

	if (!ev->has_devnum)
		return 0;
	if (had)
		db_entry(ev, old, &before, olddevnode, sizeof(olddevnode));
	if (ev->action == UEVENT_REMOVE)
		return had ? udev_db_remove(&s->udevdb, &before) : 0;
	if (!rules_db_get(&s->rules.db, ev->devpath, &rec))
		return had ? udev_db_remove(&s->udevdb, &before) : 0;
	db_entry(ev, &rec, &now, devnode, sizeof(devnode));
	r = udev_db_write(&s->udevdb, &now, had ? &before : NULL);
	rules_record_free(&rec);
	return r;
}

static int run_event(struct standin *s, const char *action, const char *devpath)
{
	static struct uevent ev;
	struct props env = PROPS_INIT;
	struct handler_call call = { .ev = &ev };
	struct rules_record old;
	bool had;
	int r = synth_env(&s->sys, devpath, action, &env);

	r = r ?: synth_uevent(&env, 1, &ev);
	props_clear(&env);
	if (r < 0)
		return r;
	r = fake_devtmpfs(s->devfd, &ev);
	if (r < 0)
		return r;
	restore(s, &ev);
	had = rules_db_get(&s->rules.db, devpath, &old);
	devnode_handler.handle(&s->devnode, &call);
	rules_handler.handle(&s->rules, &call);
	r = persist(s, &ev, &old, had);
	if (had)
		rules_record_free(&old);
	return r;
}

static int setup(struct standin *s)
{
	static const char *const dirs[] = { "/run/udev/rules.d", NULL };
	/* .broadcast stays off: a namespace of mounts only, so a netlink
	 * broadcast would reach the host's udev listeners */
	struct rules_handler_config cfg = { .sysfs = "/sys", .dev = "/dev", .dirs = dirs };
	int r;

	log_init(&s->log, LOG_TARGET_STDERR, getenv("TEST_UDEV_DEBUG") ? LOG_DEBUG : LOG_ERR);
	s->devfd = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->devfd < 0)
		return -errno;
	if ((r = sysdev_root_open(&s->sys, "/sys")) < 0 ||
	    (r = devnode_init(&s->devnode, "/dev", false, &s->log)) < 0 ||
	    (r = disk_links_init(&s->links, s->devfd, &s->log)) < 0 ||
	    (r = rules_handler_init(&s->rules, &cfg, &s->devnode, &s->links, NULL, &s->log)) < 0 ||
	    (r = udev_db_open(&s->udevdb, "/run/udev", &s->log)) < 0)
		return r;
	(void)mkdirat(s->udevdb.dirfd, "data", 0755);
	s->data = (struct rules_db_dir){ .sys = &s->sys };
	s->data.dirfd = openat(s->udevdb.dirfd, "data", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return s->data.dirfd < 0 ? -errno : 0;
}

/* One event of the suite's at a time, as the daemon's queue orders them. */
static int lock_suite(void)
{
	int fd = open("/run/udev/test-udev.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		return -errno;
	return fd;
}

int main(int argc, char **argv)
{
	static struct standin s;
	int r, lock = -1;

	if (argc == 2 && strcmp(argv[1], "check") == 0)
		return enter_suite() < 0 ? 1 : 0;
	if (argc != 3) {
		fprintf(stderr, "usage: test-udev check | ACTION DEVPATH\n");
		return 2;
	}
	r = enter_suite();
	if (r == 0 && mkdir("/run/udev", 0755) < 0 && errno != EEXIST)
		r = -errno;
	if (r == 0 && (lock = lock_suite()) < 0)
		r = lock;
	r = r ?: setup(&s);
	r = r ?: run_event(&s, argv[1], argv[2]);
	if (r < 0)
		fprintf(stderr, "test-udev: %s %s: %s\n", argv[1], argv[2], strerror(-r));
	if (lock >= 0)
		close(lock);
	return r < 0 ? 1 : 0;
}
