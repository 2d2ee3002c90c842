/* SPDX-License-Identifier: MIT */
/*
 * The /dev/disk link table against a scratch "dev" directory in the case's
 * work directory; device "nodes" are plain files. No root needed.
 */
#include <atf-c.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handlers/disk-links.h"
#include "util/log.h"

struct fx {
	struct disk_links l;
	struct logger log;
	int devfd;
};

static void fx_init(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	ATF_REQUIRE_EQ(mkdir("dev", 0755), 0);
	f->devfd = open("dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ATF_REQUIRE(f->devfd >= 0);
	log_init(&f->log, LOG_TARGET_STDERR, LOG_DEBUG);
	f->log.fd = open("log", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	ATF_REQUIRE(f->log.fd >= 0);
	ATF_REQUIRE_EQ(disk_links_init(&f->l, f->devfd, &f->log), 0);
}

static void fx_fini(struct fx *f)
{
	disk_links_fini(&f->l);
	close(f->log.fd);
	close(f->devfd);
}

/* What was logged so far (caller frees). */
static char *read_log(void)
{
	char buf[1 << 14];
	int fd = open("log", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ATF_REQUIRE(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n < 0 ? 0 : n] = '\0';
	close(fd);
	return strdup(buf);
}

/* A plain file standing in for the device node dev/<devname>. */
static void make_node(const char *devname)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "dev/%s", devname);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ATF_REQUIRE_MSG(fd >= 0, "create %s: %s", path, strerror(errno));
	close(fd);
}

static struct disk_links_device_info info_for(const char *devname)
{
	struct disk_links_device_info info;

	memset(&info, 0, sizeof(info));
	snprintf(info.devname, sizeof(info.devname), "%s", devname);
	info.major = 8;
	info.minor = 1;
	return info;
}

static int upd_v(struct fx *f, const char *devpath, const char *devname, int prio,
		 bool removable, va_list ap)
{
	const char *names[32];
	struct disk_links_device_info info = info_for(devname);
	size_t n = 0;

	info.removable = removable;
	for (const char *s; (s = va_arg(ap, const char *)) != NULL && n < 32;)
		names[n++] = s;
	return disk_links_update(&f->l, devpath, &info, prio, names, n);
}

/* Update devpath (devname, priority) to claim the NULL-terminated names. */
static int upd(struct fx *f, const char *devpath, const char *devname, int prio, ...)
{
	va_list ap;
	int r;

	va_start(ap, prio);
	r = upd_v(f, devpath, devname, prio, false, ap);
	va_end(ap);
	return r;
}

/* The same for a removable device (a USB stick). */
static int upd_removable(struct fx *f, const char *devpath, const char *devname, int prio, ...)
{
	va_list ap;
	int r;

	va_start(ap, prio);
	r = upd_v(f, devpath, devname, prio, true, ap);
	va_end(ap);
	return r;
}

/* What dev/disk/<name> says, or "" if it is not a symlink (or absent). */
static const char *link_of(const char *name)
{
	static char buf[PATH_MAX];
	char path[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "dev/disk/%s", name);
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static struct disk_links_stats stats(struct fx *f)
{
	struct disk_links_stats s;

	disk_links_snapshot(&f->l, &s);
	return s;
}

/* Entries in a directory, dot entries excluded; -1 if it cannot be read. */
static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* Every symlink below dev/disk/<by-*> must lead to an existing node. */
static int count_links_checked(void)
{
	static const char *const dirs[] = { "by-uuid", "by-label", "by-partuuid", "by-partlabel",
					    "by-id", "by-path", "by-diskseq" };
	int total = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char path[PATH_MAX];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "dev/disk/%s", dirs[i]);
		d = opendir(path);
		if (d == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			char p[PATH_MAX * 2];
			struct stat st;

			if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
						     strcmp(de->d_name, "..") == 0))
				continue;
			snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
			ATF_CHECK_MSG(stat(p, &st) == 0 && S_ISREG(st.st_mode), "dangling: %s", p);
			total++;
		}
		closedir(d);
	}
	return total;
}

ATF_TC_WITHOUT_HEAD(claim_release);
ATF_TC_BODY(claim_release, tc)
{
	struct fx f;
	char devname[64];

	fx_init(&f);
	make_node("sda1");
	ATF_REQUIRE_EQ(upd(&f, "/devices/a/sda/sda1", "sda1", 0, "by-uuid/1234-ABCD",
			   "by-label/root", "by-partuuid/11-22", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/1234-ABCD"), "../../sda1");
	ATF_CHECK_STREQ(link_of("by-label/root"), "../../sda1");
	ATF_CHECK_STREQ(link_of("by-partuuid/11-22"), "../../sda1");
	ATF_CHECK_EQ(stats(&f).links, 3);
	ATF_CHECK_EQ(stats(&f).conflicts, 0);
	ATF_CHECK(disk_links_resolve(&f.l, "by-label/root", devname, sizeof(devname)));
	ATF_CHECK_STREQ(devname, "sda1");
	/* made with fixed modes, whatever the umask */
	{
		struct stat st;

		ATF_REQUIRE_EQ(stat("dev/disk/by-uuid", &st), 0);
		ATF_CHECK_EQ(st.st_mode & 07777, 0755);
	}

	/* claims only by-uuid now: the others are released */
	ATF_REQUIRE_EQ(upd(&f, "/devices/a/sda/sda1", "sda1", 0, "by-uuid/1234-ABCD", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/1234-ABCD"), "../../sda1");
	ATF_CHECK(!exists("dev/disk/by-label/root"));
	ATF_CHECK(!exists("dev/disk/by-partuuid/11-22"));
	/* as udev: the last link's empty directory goes with it */
	ATF_CHECK(!exists("dev/disk/by-label"));
	ATF_CHECK(!exists("dev/disk/by-partuuid"));
	ATF_CHECK(!disk_links_resolve(&f.l, "by-label/root", devname, sizeof(devname)));
	ATF_CHECK_EQ(stats(&f).links, 1);

	ATF_REQUIRE_EQ(disk_links_remove(&f.l, "/devices/a/sda/sda1"), 0);
	ATF_CHECK(!exists("dev/disk/by-uuid/1234-ABCD"));
	ATF_CHECK(!exists("dev/disk"));
	ATF_CHECK(exists("dev/sda1"));
	ATF_CHECK_EQ(stats(&f).links, 0);
	ATF_CHECK_EQ(count_links_checked(), 0);
	ATF_CHECK_EQ(stats(&f).errors, 0);
	/* removing what is unknown is no error */
	ATF_CHECK_EQ(disk_links_remove(&f.l, "/devices/none"), 0);
	fx_fini(&f);
}

/* Two devices, one label: priority first. */
ATF_TC_WITHOUT_HEAD(conflict_priority);
ATF_TC_BODY(conflict_priority, tc)
{
	struct fx f;
	char devname[64];

	fx_init(&f);
	make_node("sda1");
	make_node("sdb1");
	ATF_REQUIRE_EQ(upd(&f, "/devices/a", "sda1", 0, "by-label/data", NULL), 0);
	ATF_REQUIRE_EQ(upd(&f, "/devices/b", "sdb1", 10, "by-label/data", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/data"), "../../sdb1");
	ATF_CHECK_EQ(stats(&f).conflicts, 1);
	ATF_CHECK_EQ(stats(&f).links, 1);
	ATF_CHECK(disk_links_resolve(&f.l, "by-label/data", devname, sizeof(devname)));
	ATF_CHECK_STREQ(devname, "sdb1");

	/* the winner goes: the link moves to the other claimant */
	ATF_REQUIRE_EQ(disk_links_remove(&f.l, "/devices/b"), 0);
	ATF_CHECK_STREQ(link_of("by-label/data"), "../../sda1");
	ATF_CHECK_EQ(stats(&f).conflicts, 0);
	ATF_CHECK(disk_links_resolve(&f.l, "by-label/data", devname, sizeof(devname)));
	ATF_CHECK_STREQ(devname, "sda1");

	/* back with a lower priority than a: a keeps it */
	ATF_REQUIRE_EQ(upd(&f, "/devices/b", "sdb1", -5, "by-label/data", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/data"), "../../sda1");
	/* a change of priority alone moves it */
	ATF_REQUIRE_EQ(upd(&f, "/devices/b", "sdb1", 5, "by-label/data", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/data"), "../../sdb1");

	ATF_REQUIRE_EQ(disk_links_remove(&f.l, "/devices/a"), 0);
	ATF_REQUIRE_EQ(disk_links_remove(&f.l, "/devices/b"), 0);
	ATF_CHECK(!exists("dev/disk/by-label/data"));
	ATF_CHECK(!disk_links_resolve(&f.l, "by-label/data", devname, sizeof(devname)));
	ATF_CHECK_EQ(stats(&f).links, 0);
	ATF_CHECK_EQ(stats(&f).conflicts, 0);
	ATF_CHECK_EQ(stats(&f).errors, 0);
	fx_fini(&f);
}

/*
 * A priority the rules gave (an md array's 100) stays through the device's
 * next native update, which passes 0: the name never flips to the member.
 */
ATF_TC_WITHOUT_HEAD(rules_priority_kept);
ATF_TC_BODY(rules_priority_kept, tc)
{
	struct disk_links_device_info info = info_for("md0");
	struct fx f;

	fx_init(&f);
	make_node("sda1");
	make_node("md0");
	ATF_REQUIRE_EQ(upd(&f, "/devices/sda/sda1", "sda1", 0, "by-uuid/u", NULL), 0);
	ATF_REQUIRE_EQ(upd(&f, "/devices/virtual/block/md0", "md0", 0, "by-uuid/u", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/u"), "../../sda1");
	ATF_REQUIRE_EQ(disk_links_update_rules(&f.l, "/devices/virtual/block/md0", &info, 100,
					       NULL, 0), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/u"), "../../md0");
	/* its next event: the disk handler updates its native names at 0 */
	ATF_REQUIRE_EQ(upd(&f, "/devices/virtual/block/md0", "md0", 0, "by-uuid/u", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/u"), "../../md0");
	ATF_CHECK_EQ(stats(&f).errors, 0);
	fx_fini(&f);
}

/*
 * Equal priority: the device that claimed the name first keeps it, whatever
 * the devpaths (a lower devpath used to win: a USB controller's devpath sorts
 * before SATA's and NVMe's). The tie is logged, naming both.
 */
ATF_TC_WITHOUT_HEAD(conflict_first_claim);
ATF_TC_BODY(conflict_first_claim, tc)
{
	struct fx f;
	char *log;

	fx_init(&f);
	make_node("sdb1");
	make_node("sda1");
	ATF_REQUIRE_EQ(upd(&f, "/devices/pci/b", "sdb1", 0, "by-label/same", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/same"), "../../sdb1");
	ATF_REQUIRE_EQ(upd(&f, "/devices/pci/a", "sda1", 0, "by-label/same", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/same"), "../../sdb1");
	/* a change event (a claims again): still b's */
	ATF_REQUIRE_EQ(upd(&f, "/devices/pci/a", "sda1", 0, "by-label/same", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/same"), "../../sdb1");
	log = read_log();
	ATF_CHECK_MSG(strstr(log, "disk/by-label/same: claimed by /dev/sdb1 and /dev/sda1 at the "
			     "same priority; /dev/sdb1 keeps it (it claimed the name first)"),
		      "%s", log);
	free(log);
	/* b goes: a has it; b comes back: a keeps it, it holds it now */
	ATF_REQUIRE_EQ(disk_links_remove(&f.l, "/devices/pci/b"), 0);
	ATF_CHECK_STREQ(link_of("by-label/same"), "../../sda1");
	ATF_REQUIRE_EQ(upd(&f, "/devices/pci/b", "sdb1", 0, "by-label/same", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/same"), "../../sda1");
	/* a stops claiming it (its label changed): back to b */
	ATF_REQUIRE_EQ(upd(&f, "/devices/pci/a", "sda1", 0, "by-label/other", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/same"), "../../sdb1");
	ATF_CHECK_STREQ(link_of("by-label/other"), "../../sda1");
	ATF_REQUIRE_EQ(disk_links_remove(&f.l, "/devices/pci/b"), 0);
	ATF_CHECK(!exists("dev/disk/by-label/same"));
	ATF_CHECK_STREQ(link_of("by-label/other"), "../../sda1");
	fx_fini(&f);
}

static void count_conflict(void *u, const char *name, const struct disk_links_device_info *kept,
			   const struct disk_links_device_info *other)
{
	char *out = u;

	snprintf(out + strlen(out), 256 - strlen(out), "%s:%s>%s;", name, kept->devname,
		 other->devname);
}

/*
 * A removable device never takes a name from one that is not at the same
 * priority, whoever came first: a USB stick with a copy of the root's UUID.
 */
ATF_TC_WITHOUT_HEAD(conflict_removable);
ATF_TC_BODY(conflict_removable, tc)
{
	char devname[64], seen[256] = "";
	struct fx f;
	char *log;

	fx_init(&f);
	make_node("sda2");
	make_node("vda1");
	/* the stick is there first, and its devpath sorts first */
	ATF_REQUIRE_EQ(upd_removable(&f, "/devices/pci/0000:00:01.2/usb1/1-1", "sda2", 0,
				     "by-uuid/root", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/root"), "../../sda2");
	ATF_REQUIRE_EQ(upd(&f, "/devices/pci/0000:00:04.0/virtio1", "vda1", 0,
			   "by-uuid/root", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/root"), "../../vda1");
	ATF_REQUIRE(disk_links_resolve(&f.l, "by-uuid/root", devname, sizeof(devname)));
	ATF_CHECK_STREQ(devname, "vda1");
	/* the stick announces itself again: nothing changes */
	ATF_REQUIRE_EQ(upd_removable(&f, "/devices/pci/0000:00:01.2/usb1/1-1", "sda2", 0,
				     "by-uuid/root", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/root"), "../../vda1");
	log = read_log();
	ATF_CHECK_MSG(strstr(log, "disk/by-uuid/root: claimed by /dev/vda1 and /dev/sda2 "
			     "(removable) at the same priority; /dev/vda1 keeps it (it is not "
			     "removable)"), "%s", log);
	free(log);
	disk_links_foreach_conflict(&f.l, count_conflict, seen);
	ATF_CHECK_STREQ(seen, "disk/by-uuid/root:vda1>sda2;");
	/* a higher priority still decides */
	ATF_REQUIRE_EQ(upd_removable(&f, "/devices/pci/0000:00:01.2/usb1/1-1", "sda2", 10,
				     "by-uuid/root", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/root"), "../../sda2");
	fx_fini(&f);
}

/* A changed device: new names replace old ones; a new devname retargets. */
ATF_TC_WITHOUT_HEAD(move_on_change);
ATF_TC_BODY(move_on_change, tc)
{
	struct fx f;

	fx_init(&f);
	make_node("sdc");
	make_node("sdd");
	ATF_REQUIRE_EQ(upd(&f, "/devices/c", "sdc", 0, "by-label/old", "by-uuid/u1", NULL), 0);
	ATF_REQUIRE_EQ(upd(&f, "/devices/c", "sdc", 0, "by-label/new", "by-uuid/u1", NULL), 0);
	ATF_CHECK(!exists("dev/disk/by-label/old"));
	ATF_CHECK_STREQ(link_of("by-label/new"), "../../sdc");
	ATF_CHECK_STREQ(link_of("by-uuid/u1"), "../../sdc");
	ATF_REQUIRE_EQ(upd(&f, "/devices/c", "sdd", 0, "by-label/new", "by-uuid/u1", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-label/new"), "../../sdd");
	ATF_CHECK_STREQ(link_of("by-uuid/u1"), "../../sdd");
	ATF_CHECK_EQ(stats(&f).links, 2);
	/* a name given twice is claimed once */
	ATF_REQUIRE_EQ(upd(&f, "/devices/c", "sdd", 0, "by-id/x", "by-id/x", NULL), 0);
	ATF_CHECK_EQ(stats(&f).conflicts, 0);
	ATF_CHECK_EQ(stats(&f).links, 1);
	ATF_CHECK_EQ(count_links_checked(), 1);
	fx_fini(&f);
}

/* A devname in a subdirectory of /dev: still two levels up from the link. */
ATF_TC_WITHOUT_HEAD(devname_subdir);
ATF_TC_BODY(devname_subdir, tc)
{
	struct fx f;
	struct stat st;

	fx_init(&f);
	ATF_REQUIRE_EQ(mkdir("dev/mapper", 0755), 0);
	make_node("mapper/root");
	ATF_REQUIRE_EQ(upd(&f, "/devices/virtual/block/dm-0", "mapper/root", 0,
			   "by-uuid/abc", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/abc"), "../../mapper/root");
	ATF_CHECK_EQ(stat("dev/disk/by-uuid/abc", &st), 0);
	ATF_CHECK(S_ISREG(st.st_mode));
	fx_fini(&f);
}

/* Removing devices and their nodes leaves no link pointing nowhere. */
ATF_TC_WITHOUT_HEAD(no_dangling);
ATF_TC_BODY(no_dangling, tc)
{
	struct fx f;

	fx_init(&f);
	for (int i = 0; i < 6; i++) {
		char devpath[32], devname[32], uuid[32], label[32];

		snprintf(devpath, sizeof(devpath), "/devices/d%d", i);
		snprintf(devname, sizeof(devname), "vd%c", 'a' + i);
		snprintf(uuid, sizeof(uuid), "by-uuid/u%d", i);
		snprintf(label, sizeof(label), "by-label/L%d", i % 2);
		make_node(devname);
		ATF_REQUIRE_EQ(upd(&f, devpath, devname, i % 3, uuid, label, "by-id/shared", NULL),
			       0);
	}
	ATF_CHECK_EQ(count_links_checked(), 6 + 2 + 1);
	ATF_CHECK_EQ(stats(&f).conflicts, 3);
	for (int i = 0; i < 6; i += 2) {
		char devpath[32], node[32];

		snprintf(devpath, sizeof(devpath), "/devices/d%d", i);
		snprintf(node, sizeof(node), "dev/vd%c", 'a' + i);
		ATF_REQUIRE_EQ(disk_links_remove(&f.l, devpath), 0);
		ATF_REQUIRE_EQ(unlink(node), 0);
		/* count_links_checked fails the case on any dangling link */
		count_links_checked();
	}
	ATF_CHECK_EQ(count_links_checked(), 3 + 1 + 1);
	ATF_CHECK(!exists("dev/disk/by-label/L0"));
	/* left: d1 (prio 1), d3 (prio 0), d5 (prio 2) */
	ATF_CHECK_STREQ(link_of("by-label/L1"), "../../vdf");
	ATF_CHECK_STREQ(link_of("by-id/shared"), "../../vdf");
	ATF_CHECK_EQ(stats(&f).links, 5);
	fx_fini(&f);
}

/* Nothing refused may leave a trace anywhere. */
static void check_only_nodes(void)
{
	ATF_CHECK_EQ(count_dir("."), 2); /* dev, log */
	ATF_CHECK(!exists("dev/disk"));
	ATF_CHECK_EQ(count_dir("dev"), 1); /* the node */
}

ATF_TC_WITHOUT_HEAD(hostile_names);
ATF_TC_BODY(hostile_names, tc)
{
	static const char *const bad[] = {
		"", "by-uuid", "by-uuid/", "by-uuid/.", "by-uuid/..", "by-uuid/a/b",
		"by-uuid/../../etc/passwd", "../by-uuid/x", "/by-uuid/x", "by-foo/x", "BY-UUID/x",
		"by-uuid//x", "disk/by-uuid/x", "by-label/new\nline", "by-label/tab\there",
		"by-label/\x7f", "by-uuid/x/", ".initdev/x",
	};
	char longname[300], okname[300];
	struct fx f;

	fx_init(&f);
	make_node("sda");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ATF_CHECK_MSG(!disk_links_name_valid(bad[i]), "accepted bad name %zu", i);
		ATF_CHECK_EQ(upd(&f, "/devices/x", "sda", 0, bad[i], NULL), 0);
	}
	snprintf(longname, sizeof(longname), "by-label/%0256d", 0);
	ATF_CHECK(!disk_links_name_valid(longname));
	ATF_CHECK_EQ(upd(&f, "/devices/x", "sda", 0, longname, NULL), 0);
	ATF_CHECK_EQ(stats(&f).errors, sizeof(bad) / sizeof(bad[0]) + 1);
	check_only_nodes();

	/* hostile device names are refused whole */
	ATF_CHECK_EQ(upd(&f, "/devices/y", "../etc", 0, "by-uuid/y", NULL), -EINVAL);
	ATF_CHECK_EQ(upd(&f, "/devices/y", "/etc/x", 0, "by-uuid/y", NULL), -EINVAL);
	ATF_CHECK_EQ(upd(&f, "/devices/y", "a//b", 0, "by-uuid/y", NULL), -EINVAL);
	ATF_CHECK_EQ(upd(&f, "/devices/y", "", 0, "by-uuid/y", NULL), -EINVAL);
	ATF_CHECK_EQ(upd(&f, "/devices/y", "sd\na", 0, "by-uuid/y", NULL), -EINVAL);
	check_only_nodes();

	/* the longest name that fits one component, and encoded bytes, are fine */
	snprintf(okname, sizeof(okname), "by-label/%0255d", 0);
	ATF_CHECK(disk_links_name_valid(okname));
	ATF_CHECK(disk_links_name_valid("by-label/a\\x2fb\\x20c"));
	ATF_CHECK(disk_links_name_valid("by-label/gr\xc3\xbc\xc3\x9f"));
	ATF_CHECK(disk_links_name_valid("by-diskseq/12"));
	ATF_CHECK_EQ(upd(&f, "/devices/x", "sda", 0, okname, "by-label/a\\x2fb\\x20c", "..", NULL),
		     0);
	ATF_CHECK_STREQ(link_of(okname), "../../sda");
	ATF_CHECK_STREQ(link_of("by-label/a\\x2fb\\x20c"), "../../sda");
	ATF_CHECK_EQ(stats(&f).links, 2);
	fx_fini(&f);
}

/* <dev>/disk is a symlink to somewhere else: refused, nothing written there. */
/*
 * udev 257's partition names below a disk's by-path name: exactly
 * by-path/<X-part>/by-{partnum,partuuid,partlabel,uuid,label}/<one component>.
 * Both rules are checked (disk_links_name_valid_compat); the table keeps the
 * build's (UDEV_COMPAT).
 */
ATF_TC_WITHOUT_HEAD(nested_path_names);
ATF_TC_BODY(nested_path_names, tc)
{
	static const char *const good[] = {
		"by-path/pci-0000:00:05.0-part/by-partnum/1",
		"by-path/pci-0000:00:05.0-part/by-partuuid/3f2a0d1e-1c3b-4a5d-8e6f-0a1b2c3d4e5f",
		"by-path/pci-0000:00:05.0-part/by-partlabel/a\\x2f..\\x2fb",
		"by-path/pci-0000:00:05.0-part/by-uuid/1234-ABCD",
		"by-path/pci-0000:00:05.0-part/by-label/..x",
		"by-path/x-part/by-label/gr\xc3\xbc\xc3\x9f",
		"by-path/..-part/by-label/x", /* a plain name, not ".." */
	};
	static const char *const bad[] = {
		"by-path/-part/by-partnum/1",              /* no ID_PATH before "-part" */
		"by-path/pci-0000:00:05.0/by-partnum/1",   /* not "-part" */
		"by-path/pci-0000:00:05.0-part1/by-uuid/x",
		"by-path/x-part/by-id/x",                  /* not a partition directory */
		"by-path/x-part/by-diskseq/1",
		"by-path/x-part/by-partnum",               /* too short */
		"by-path/x-part/by-partnum/",
		"by-path/x-part/by-label/.",
		"by-path/x-part/by-label/..",
		"by-path/x-part/by-label/../../../../etc", /* a raw '/' in a label */
		"by-path/x-part/by-label/a/b",             /* deeper */
		"by-path/x-part/by-label/a\nb",
		"by-path/x-part/by-label/\x7f",
		"by-path/../by-label/x",
		"by-path/x-part//by-label/x",
		"by-path/x-part/./by-label/x",
		"by-path/x-part/by-partnum/1/by-uuid/x",
		"by-path/a/x-part/by-uuid/x",
		"by-uuid/x-part/by-uuid/x",                /* only below by-path */
		"by-id/x-part/by-uuid/x",
		"disk/by-path/x-part/by-uuid/x",
	};
	char longname[600];
	struct fx f;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ATF_CHECK_MSG(disk_links_name_valid_compat(good[i], 257), "257 refused %zu", i);
		ATF_CHECK_MSG(!disk_links_name_valid_compat(good[i], 252), "252 accepted %zu", i);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_MSG(!disk_links_name_valid_compat(bad[i], 257) &&
				      !disk_links_name_valid_compat(bad[i], 252),
			      "accepted bad %zu", i);
	/* one component is 255 bytes at most, in either place */
	snprintf(longname, sizeof(longname), "by-path/%0250d-part/by-label/%0255d", 0, 0);
	ATF_CHECK(disk_links_name_valid_compat(longname, 257));
	snprintf(longname, sizeof(longname), "by-path/%0251d-part/by-label/x", 0);
	ATF_CHECK(!disk_links_name_valid_compat(longname, 257));
	snprintf(longname, sizeof(longname), "by-path/x-part/by-label/%0256d", 0);
	ATF_CHECK(!disk_links_name_valid_compat(longname, 257));
	/* the flat names stay as they were */
	ATF_CHECK(disk_links_name_valid_compat("by-path/pci-0000:00:05.0-part1", 252));
	ATF_CHECK(disk_links_name_valid_compat("by-path/pci-0000:00:05.0-part1", 257));
	ATF_CHECK(disk_links_name_valid_compat("by-diskseq/3-part1", 257));

	fx_init(&f);
	make_node("vdb1");
	ATF_CHECK_EQ(upd(&f, "/devices/p", "vdb1", 0, good[0], good[3], good[4],
			 "by-path/x-part/by-label/a/b", NULL), 0);
	if (UDEV_COMPAT >= 257) {
		/* udev's relative targets: one "../" per directory below dev */
		ATF_CHECK_STREQ(link_of(good[0]), "../../../../vdb1");
		ATF_CHECK_STREQ(link_of(good[3]), "../../../../vdb1");
		ATF_CHECK_STREQ(link_of(good[4]), "../../../../vdb1");
		ATF_CHECK(exists("dev/vdb1") && !exists("dev/disk/by-path/x-part/by-label/a"));
		ATF_CHECK_EQ(stats(&f).links, 3);
		ATF_CHECK_EQ(stats(&f).errors, 1);
	} else {
		ATF_CHECK(!exists("dev/disk"));
		ATF_CHECK_EQ(stats(&f).errors, 4);
	}
	/* gone with the device, directories too (as udev) */
	ATF_CHECK_EQ(disk_links_remove(&f.l, "/devices/p"), 0);
	ATF_CHECK(!exists("dev/disk"));
	ATF_CHECK_EQ(stats(&f).links, 0);
	fx_fini(&f);
}

ATF_TC_WITHOUT_HEAD(planted_disk_symlink);
ATF_TC_BODY(planted_disk_symlink, tc)
{
	struct fx f;
	char devname[64];

	fx_init(&f);
	make_node("sda");
	ATF_REQUIRE_EQ(mkdir("elsewhere", 0755), 0);
	ATF_REQUIRE_EQ(symlink("../elsewhere", "dev/disk"), 0);
	ATF_CHECK_EQ(upd(&f, "/devices/x", "sda", 0, "by-uuid/u", NULL), 0);
	ATF_CHECK_EQ(count_dir("elsewhere"), 0);
	ATF_CHECK(stats(&f).errors >= 1);
	ATF_CHECK_EQ(stats(&f).links, 0);
	/* the claim is known, the link just is not there */
	ATF_CHECK(disk_links_resolve(&f.l, "by-uuid/u", devname, sizeof(devname)));
	ATF_CHECK_EQ(disk_links_remove(&f.l, "/devices/x"), 0);
	ATF_CHECK_EQ(count_dir("elsewhere"), 0);
	fx_fini(&f);
}

/* A by-* directory that is a symlink or a file is refused too. */
ATF_TC_WITHOUT_HEAD(planted_subdir);
ATF_TC_BODY(planted_subdir, tc)
{
	struct fx f;
	int fd;

	fx_init(&f);
	make_node("sda");
	ATF_REQUIRE_EQ(mkdir("elsewhere", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("dev/disk", 0755), 0);
	ATF_REQUIRE_EQ(symlink("../../elsewhere", "dev/disk/by-uuid"), 0);
	fd = open("dev/disk/by-label", O_WRONLY | O_CREAT, 0600);
	ATF_REQUIRE(fd >= 0);
	close(fd);
	ATF_CHECK_EQ(upd(&f, "/devices/x", "sda", 0, "by-uuid/u", "by-label/l", "by-id/ok",
			 NULL), 0);
	ATF_CHECK_EQ(count_dir("elsewhere"), 0);
	ATF_CHECK_EQ(stats(&f).errors, 2);
	ATF_CHECK_EQ(stats(&f).links, 1);
	ATF_CHECK_STREQ(link_of("by-id/ok"), "../../sda");
	fx_fini(&f);
}

/* Something not ours at the link's place is left alone, created or removed. */
ATF_TC_WITHOUT_HEAD(foreign_entries);
ATF_TC_BODY(foreign_entries, tc)
{
	struct fx f;
	int fd;

	fx_init(&f);
	make_node("sda");
	ATF_REQUIRE_EQ(mkdir("dev/disk", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("dev/disk/by-uuid", 0755), 0);
	fd = open("dev/disk/by-uuid/file", O_WRONLY | O_CREAT, 0600);
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(write(fd, "keep", 4), 4);
	close(fd);
	ATF_CHECK_EQ(upd(&f, "/devices/x", "sda", 0, "by-uuid/file", "by-uuid/mine", NULL), 0);
	ATF_CHECK_EQ(stats(&f).errors, 1);
	ATF_CHECK_STREQ(link_of("by-uuid/file"), "");
	ATF_CHECK_STREQ(link_of("by-uuid/mine"), "../../sda");
	/* someone else repoints "mine": on removal it is not ours to delete */
	ATF_REQUIRE_EQ(unlink("dev/disk/by-uuid/mine"), 0);
	ATF_REQUIRE_EQ(symlink("../../other", "dev/disk/by-uuid/mine"), 0);
	ATF_CHECK_EQ(disk_links_remove(&f.l, "/devices/x"), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/mine"), "../../other");
	ATF_CHECK(exists("dev/disk/by-uuid/file"));
	ATF_CHECK_EQ(stats(&f).links, 0);
	fx_fini(&f);
}

/* A stale symlink (from an earlier run) is replaced; a deleted link comes back. */
ATF_TC_WITHOUT_HEAD(stale_and_restored);
ATF_TC_BODY(stale_and_restored, tc)
{
	struct fx f;

	fx_init(&f);
	make_node("sda");
	ATF_REQUIRE_EQ(mkdir("dev/disk", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("dev/disk/by-uuid", 0755), 0);
	ATF_REQUIRE_EQ(symlink("../../gone", "dev/disk/by-uuid/u"), 0);
	ATF_CHECK_EQ(upd(&f, "/devices/x", "sda", 0, "by-uuid/u", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/u"), "../../sda");
	ATF_REQUIRE_EQ(unlink("dev/disk/by-uuid/u"), 0);
	ATF_CHECK_EQ(upd(&f, "/devices/x", "sda", 0, "by-uuid/u", NULL), 0);
	ATF_CHECK_STREQ(link_of("by-uuid/u"), "../../sda");
	ATF_CHECK_EQ(stats(&f).errors, 0);
	/* no scratch names left behind */
	ATF_CHECK_EQ(count_dir("dev/disk"), 1);
	fx_fini(&f);
}

ATF_TC_WITHOUT_HEAD(resolve);
ATF_TC_BODY(resolve, tc)
{
	struct fx f;
	char small[4], devname[64];

	fx_init(&f);
	make_node("nvme0n1p1");
	ATF_REQUIRE_EQ(upd(&f, "/devices/n", "nvme0n1p1", 0, "by-partlabel/EFI", NULL), 0);
	ATF_CHECK(disk_links_resolve(&f.l, "by-partlabel/EFI", devname, sizeof(devname)));
	ATF_CHECK_STREQ(devname, "nvme0n1p1");
	ATF_CHECK(!disk_links_resolve(&f.l, "by-partlabel/EFI", small, sizeof(small)));
	ATF_CHECK(!disk_links_resolve(&f.l, "by-partlabel/efi", devname, sizeof(devname)));
	ATF_CHECK(!disk_links_resolve(&f.l, "by-partlabel/../EFI", devname, sizeof(devname)));
	fx_fini(&f);
}

struct seen {
	int n;
	bool a, b, c;
};

static void count_device(void *u, const char *devpath, const struct disk_links_device_info *info)
{
	struct seen *s = u;

	s->n++;
	if (strcmp(devpath, "/devices/a") == 0)
		s->a = strcmp(info->devname, "sda") == 0 && info->major == 8;
	if (strcmp(devpath, "/devices/b") == 0)
		s->b = strcmp(info->devname, "sdb") == 0;
	if (strcmp(devpath, "/devices/c") == 0)
		s->c = strcmp(info->devname, "sdc") == 0;
}

ATF_TC_WITHOUT_HEAD(foreach_device);
ATF_TC_BODY(foreach_device, tc)
{
	struct seen s = { 0 };
	struct fx f;

	fx_init(&f);
	make_node("sda");
	make_node("sdb");
	make_node("sdc");
	ATF_REQUIRE_EQ(upd(&f, "/devices/a", "sda", 0, "by-uuid/a", NULL), 0);
	ATF_REQUIRE_EQ(upd(&f, "/devices/b", "sdb", 0, NULL), 0); /* known, no names */
	ATF_REQUIRE_EQ(upd(&f, "/devices/c", "sdc", 0, "by-uuid/c", NULL), 0);
	ATF_REQUIRE_EQ(upd(&f, "/devices/d", "sdd", 0, "by-uuid/d", NULL), 0);
	ATF_REQUIRE_EQ(disk_links_remove(&f.l, "/devices/d"), 0);
	disk_links_foreach_device(&f.l, count_device, &s);
	ATF_CHECK_EQ(s.n, 3);
	ATF_CHECK(s.a && s.b && s.c);
	fx_fini(&f);
}

/* ---- four threads at once -------------------------------------------- */

#define THREADS 4
#define DEVS 6
#define ROUNDS 150
#define NAMES_PER 3

struct final {
	bool present;
	int prio;
	char names[NAMES_PER][32];
};

struct worker {
	struct fx *f;
	int t;
	pthread_barrier_t *start;
	int failures;              /* atf checks are not for threads: counted here */
	struct final fin[DEVS];
};

static void dev_ids(int t, int j, char *devpath, char *devname)
{
	sprintf(devpath, "/devices/t%d/d%d", t, j);
	sprintf(devname, "t%dd%d", t, j);
}

static void *work(void *p)
{
	struct worker *w = p;

	pthread_barrier_wait(w->start);
	for (int i = 0; i < ROUNDS; i++) {
		int j = (i * 5 + w->t) % DEVS;
		char devpath[64], devname[64];
		struct final *fin = &w->fin[j];

		dev_ids(w->t, j, devpath, devname);
		if (i % 7 == 3) {
			w->failures += disk_links_remove(&w->f->l, devpath) != 0;
			fin->present = false;
			continue;
		}
		fin->present = true;
		fin->prio = (i * 3 + j) % 3;
		sprintf(fin->names[0], "by-uuid/t%d-d%d", w->t, j);
		sprintf(fin->names[1], "by-label/shared-%d", j % 3);
		sprintf(fin->names[2], "by-id/round-%d", (i + j) % 4);
		{
			struct disk_links_device_info info = info_for(devname);
			const char *names[NAMES_PER] = { fin->names[0], fin->names[1], fin->names[2] };

			w->failures += disk_links_update(&w->f->l, devpath, &info, fin->prio, names,
						    NAMES_PER) != 0;
		}
	}
	return NULL;
}

/*
 * The devnames that may own name, from every worker's final state: those of
 * the highest priority among its claimants (which of them keeps it depends
 * on the order the threads claimed it). ";a;b;" in owners.
 */
static bool expected_owners(struct worker *ws, const char *name, char *owners, size_t size,
			    int *claimants)
{
	int best_prio = -1;

	*claimants = 0;
	owners[0] = '\0';
	for (int t = 0; t < THREADS; t++) {
		for (int j = 0; j < DEVS; j++) {
			const struct final *fin = &ws[t].fin[j];
			char devpath[64], devname[64];
			bool claims = false;

			for (int k = 0; k < NAMES_PER; k++)
				claims |= fin->present && strcmp(fin->names[k], name) == 0;
			if (!claims)
				continue;
			(*claimants)++;
			dev_ids(t, j, devpath, devname);
			if (fin->prio > best_prio)
				snprintf(owners, size, ";");
			if (fin->prio >= best_prio)
				snprintf(owners + strlen(owners), size - strlen(owners), "%s;",
					 devname);
			if (fin->prio > best_prio)
				best_prio = fin->prio;
		}
	}
	return best_prio >= 0;
}

ATF_TC_WITHOUT_HEAD(concurrent);
ATF_TC_BODY(concurrent, tc)
{
	struct worker ws[THREADS];
	pthread_t th[THREADS];
	pthread_barrier_t start;
	int expected_links = 0, expected_conflicts = 0;
	struct fx f;

	fx_init(&f);
	for (int t = 0; t < THREADS; t++) {
		for (int j = 0; j < DEVS; j++) {
			char devpath[64], devname[64];

			dev_ids(t, j, devpath, devname);
			make_node(devname);
		}
	}
	ATF_REQUIRE_EQ(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int t = 0; t < THREADS; t++) {
		ws[t] = (struct worker){ .f = &f, .t = t, .start = &start };
		ATF_REQUIRE_EQ(pthread_create(&th[t], NULL, work, &ws[t]), 0);
	}
	for (int t = 0; t < THREADS; t++) {
		pthread_join(th[t], NULL);
		ATF_CHECK_EQ(ws[t].failures, 0);
	}
	pthread_barrier_destroy(&start);

	/* every possible name: the link is there iff claimed, and says the winner */
	for (int t = 0; t < THREADS; t++) {
		for (int j = 0; j < DEVS + 4; j++) {
			for (int k = 0; k < 3; k++) {
				char name[64], owners[512], got[64], want[80];
				int claimants;
				bool any;

				if (k == 2 && j >= DEVS)
					continue;
				if (k < 2 && t > 0)
					continue; /* shared names: once */
				if (k < 2)
					snprintf(name, sizeof(name), "%s-%d",
						 k == 0 ? "by-label/shared" : "by-id/round", j);
				else
					snprintf(name, sizeof(name), "by-uuid/t%d-d%d", t, j);
				any = expected_owners(ws, name, owners, sizeof(owners), &claimants);
				if (!any) {
					ATF_CHECK_STREQ_MSG(link_of(name), "", "%s", name);
					ATF_CHECK(!disk_links_resolve(&f.l, name, got, sizeof(got)));
					continue;
				}
				expected_links++;
				expected_conflicts += claimants > 1;
				ATF_CHECK(disk_links_resolve(&f.l, name, got, sizeof(got)));
				snprintf(want, sizeof(want), ";%s;", got);
				ATF_CHECK_MSG(strstr(owners, want), "%s: %s is not one of %s", name,
					      got, owners);
				snprintf(want, sizeof(want), "../../%s", got);
				ATF_CHECK_STREQ_MSG(link_of(name), want, "%s", name);
			}
		}
	}
	ATF_CHECK(expected_links > 0);
	ATF_CHECK_EQ(count_links_checked(), expected_links);
	ATF_CHECK_EQ(stats(&f).links, (uint64_t)expected_links);
	ATF_CHECK_EQ(stats(&f).conflicts, (uint64_t)expected_conflicts);
	ATF_CHECK_EQ(stats(&f).errors, 0);
	fx_fini(&f);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, claim_release);
	ATF_TP_ADD_TC(tp, conflict_priority);
	ATF_TP_ADD_TC(tp, rules_priority_kept);
	ATF_TP_ADD_TC(tp, conflict_first_claim);
	ATF_TP_ADD_TC(tp, conflict_removable);
	ATF_TP_ADD_TC(tp, move_on_change);
	ATF_TP_ADD_TC(tp, devname_subdir);
	ATF_TP_ADD_TC(tp, no_dangling);
	ATF_TP_ADD_TC(tp, hostile_names);
	ATF_TP_ADD_TC(tp, nested_path_names);
	ATF_TP_ADD_TC(tp, planted_disk_symlink);
	ATF_TP_ADD_TC(tp, planted_subdir);
	ATF_TP_ADD_TC(tp, foreign_entries);
	ATF_TP_ADD_TC(tp, stale_and_restored);
	ATF_TP_ADD_TC(tp, resolve);
	ATF_TP_ADD_TC(tp, foreach_device);
	ATF_TP_ADD_TC(tp, concurrent);
	return 0;
}
