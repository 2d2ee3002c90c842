/* SPDX-License-Identifier: MIT */
/*
 * The /dev handler against a scratch directory standing in for /dev (never
 * the real one). Needs root: mknod and chown. Events go through the real
 * parser, so they look exactly like what the gate hands over.
 */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "handlers/devnode.h"
#include "util/log.h"
#include "gate/uevent.h"

struct fx {
	struct devnode d;
	struct logger log;
};

static void require_root(void)
{
	if (geteuid() != 0)
		atf_tc_skip("needs root (mknod, chown)");
}

/* Dev root "dev" in the case's scratch directory; log to ./log. */
static void fx_init(struct fx *f, bool mknod_mode)
{
	require_root();
	memset(f, 0, sizeof(*f));
	ATF_REQUIRE_EQ(mkdir("dev", 0755), 0);
	log_init(&f->log, LOG_TARGET_STDERR, LOG_DEBUG);
	f->log.fd = open("log", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	ATF_REQUIRE(f->log.fd >= 0);
	ATF_REQUIRE_EQ(devnode_init(&f->d, "dev", mknod_mode, &f->log), 0);
}

static void fx_fini(struct fx *f)
{
	devnode_fini(&f->d);
	close(f->log.fd);
}

/*
 * Build "ACTION@DEVPATH\0ACTION=..\0DEVPATH=..\0SUBSYSTEM=..\0SEQNUM=..\0"
 * plus the given "KEY=VALUE" strings, parse it, and hand it to devnode.
 */
static int handle_v(struct fx *f, const char *action, const char *devpath,
		    const char *subsystem, va_list ap)
{
	static unsigned long long seqnum; /* shared by the threads of concurrent_adds */
	struct uevent *ev = malloc(sizeof(*ev));
	char buf[UEVENT_MSG_MAX], err[256];
	size_t n = 0;
	const char *kv;
	int r;

	ATF_REQUIRE(ev != NULL);
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s@%s", action, devpath) + 1;
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "ACTION=%s", action) + 1;
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "DEVPATH=%s", devpath) + 1;
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "SUBSYSTEM=%s", subsystem) + 1;
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "SEQNUM=%llu",
			      __atomic_add_fetch(&seqnum, 1, __ATOMIC_RELAXED)) + 1;
	while ((kv = va_arg(ap, const char *)) != NULL)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", kv) + 1;
	ATF_REQUIRE(n < sizeof(buf));
	ATF_REQUIRE_MSG(uevent_parse(ev, buf, n, err, sizeof(err)) == UEVENT_PARSE_OK,
			"test event refused by the parser: %s", err);
	r = devnode_handle(&f->d, ev);
	free(ev);
	return r;
}

static int handle_(struct fx *f, const char *action, const char *devpath,
		   const char *subsystem, ...)
{
	va_list ap;
	int r;

	va_start(ap, subsystem);
	r = handle_v(f, action, devpath, subsystem, ap);
	va_end(ap);
	return r;
}

/* HANDLE(f, action, devpath, subsystem, "KEY=VALUE"...) */
#define HANDLE(f, action, devpath, ...) \
	handle_(f, action, devpath, __VA_ARGS__, (const char *)NULL)

static struct stat lstat_of(const char *path)
{
	struct stat st;

	ATF_REQUIRE_MSG(lstat(path, &st) == 0, "lstat %s: %s", path, strerror(errno));
	return st;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Target of the symlink at path, or "" if it is not one. */
static const char *link_of(const char *path)
{
	static char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void check_node(const char *path, mode_t type, unsigned int major, unsigned int minor,
		       mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st = lstat_of(path);

	ATF_CHECK_EQ_MSG(st.st_mode & S_IFMT, type, "%s: type %o", path, st.st_mode & S_IFMT);
	ATF_CHECK_EQ_MSG(major(st.st_rdev), major, "%s: major %u", path, major(st.st_rdev));
	ATF_CHECK_EQ_MSG(minor(st.st_rdev), minor, "%s: minor %u", path, minor(st.st_rdev));
	ATF_CHECK_EQ_MSG(st.st_mode & 07777, mode, "%s: mode %o", path, st.st_mode & 07777);
	ATF_CHECK_EQ_MSG(st.st_uid, uid, "%s: uid %u", path, (unsigned int)st.st_uid);
	ATF_CHECK_EQ_MSG(st.st_gid, gid, "%s: gid %u", path, (unsigned int)st.st_gid);
}

/* Nothing at all below dir (an "outside" directory that must stay untouched). */
static void check_empty(const char *dir)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", dir);
	ATF_CHECK_MSG(system(cmd) == 0, "%s is not empty", dir);
}

static char *read_log(void)
{
	static char buf[1 << 16];
	int fd = open("log", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ATF_REQUIRE(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n < 0 ? 0 : n] = '\0';
	close(fd);
	return buf;
}

#define SDA "/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda"

ATF_TC_WITHOUT_HEAD(add_block_and_char);
ATF_TC_BODY(add_block_and_char, tc)
{
	struct fx f;

	umask(077); /* must not leak into what we make */
	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0",
			      "DEVMODE=0640", "DEVUID=12", "DEVGID=34"), 0);
	check_node("dev/sda", S_IFBLK, 8, 0, 0640, 12, 34);
	ATF_CHECK_STREQ(link_of("dev/block/8:0"), "../sda");
	ATF_CHECK_EQ(lstat_of("dev/block").st_mode & 07777, 0755);

	/* no DEVMODE/DEVUID/DEVGID: 0600 root:root, a char device */
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/virtual/tty/ttyS0", "tty",
			      "DEVNAME=ttyS0", "MAJOR=4", "MINOR=64"), 0);
	check_node("dev/ttyS0", S_IFCHR, 4, 64, 0600, 0, 0);
	ATF_CHECK_STREQ(link_of("dev/char/4:64"), "../ttyS0");
	/* ours from birth, but the umask takes bits: they are put back */
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/virtual/mem/null", "mem",
			      "DEVNAME=null", "MAJOR=1", "MINOR=3", "DEVMODE=0666"), 0);
	check_node("dev/null", S_IFCHR, 1, 3, 0666, 0, 0);

	ATF_CHECK_EQ(devnode_count(&f.d), 3);
	ATF_CHECK_EQ(f.d.stats.nodes_created, 3);
	ATF_CHECK_EQ(f.d.stats.links, 3);
	ATF_CHECK_EQ(f.d.stats.errors, 0);
	ATF_CHECK(system("ls -A dev | grep -q initdev-tmp") != 0); /* no scratch names left */
	fx_fini(&f);
}

/* A second add changes nothing but a drifted owner/mode; the inode stays. */
ATF_TC_WITHOUT_HEAD(readd_is_idempotent);
ATF_TC_BODY(readd_is_idempotent, tc)
{
	struct fx f;
	ino_t ino;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0",
			      "DEVMODE=0640"), 0);
	ino = lstat_of("dev/sda").st_ino;
	ATF_REQUIRE_EQ(chmod("dev/sda", 0666), 0);
	ATF_REQUIRE_EQ(chown("dev/sda", 5, 5), 0);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0",
			      "DEVMODE=0640"), 0);
	check_node("dev/sda", S_IFBLK, 8, 0, 0640, 0, 0);
	ATF_CHECK_EQ(lstat_of("dev/sda").st_ino, ino);
	ATF_CHECK_EQ(f.d.stats.nodes_created, 1);
	ATF_CHECK_EQ(f.d.stats.links, 1);
	ATF_CHECK_EQ(f.d.stats.errors, 0);
	ATF_CHECK_EQ(devnode_count(&f.d), 1);
	fx_fini(&f);
}

ATF_TC_WITHOUT_HEAD(change_applies_devmode);
ATF_TC_BODY(change_applies_devmode, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	check_node("dev/sda", S_IFBLK, 8, 0, 0600, 0, 0);
	ATF_REQUIRE_EQ(HANDLE(&f, "change", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0",
			      "DEVMODE=0666", "DEVGID=6"), 0);
	check_node("dev/sda", S_IFBLK, 8, 0, 0666, 0, 6);
	ATF_CHECK_EQ(f.d.stats.nodes_created, 1);
	fx_fini(&f);
}

ATF_TC_WITHOUT_HEAD(remove_node_and_link);
ATF_TC_BODY(remove_node_and_link, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_REQUIRE(exists("dev/sda") && exists("dev/block/8:0"));
	ATF_REQUIRE_EQ(HANDLE(&f, "remove", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_CHECK(!exists("dev/sda"));
	ATF_CHECK(!exists("dev/block/8:0"));
	ATF_CHECK_EQ(devnode_count(&f.d), 0);
	ATF_CHECK_EQ(f.d.stats.nodes_removed, 1);
	ATF_CHECK_EQ(f.d.stats.links, 0);
	ATF_CHECK_EQ(f.d.stats.errors, 0);
	/* a second remove finds nothing and is not an error */
	ATF_CHECK_EQ(HANDLE(&f, "remove", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_CHECK_EQ(f.d.stats.errors, 0);
	fx_fini(&f);
}

/* What sits at the name now is not the device that went: keep it. */
ATF_TC_WITHOUT_HEAD(remove_keeps_replacement);
ATF_TC_BODY(remove_keeps_replacement, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/x/sdb", "block", "DEVNAME=sdb", "MAJOR=8",
			      "MINOR=16"), 0);
	/* sda becomes a regular file, sdb a node with another number */
	ATF_REQUIRE_EQ(unlink("dev/sda"), 0);
	ATF_REQUIRE(close(open("dev/sda", O_WRONLY | O_CREAT | O_EXCL, 0644)) == 0);
	ATF_REQUIRE_EQ(unlink("dev/sdb"), 0);
	ATF_REQUIRE_EQ(mknod("dev/sdb", S_IFBLK | 0600, makedev(8, 32)), 0);

	ATF_CHECK(HANDLE(&f, "remove", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0") < 0);
	ATF_CHECK(HANDLE(&f, "remove", "/devices/x/sdb", "block", "DEVNAME=sdb", "MAJOR=8",
			 "MINOR=16") < 0);
	ATF_CHECK(S_ISREG(lstat_of("dev/sda").st_mode));
	check_node("dev/sdb", S_IFBLK, 8, 32, 0600, 0, 0);
	ATF_CHECK_EQ(f.d.stats.errors, 2);
	ATF_CHECK_EQ(f.d.stats.nodes_removed, 0);
	/* the links were still ours: they go */
	ATF_CHECK(!exists("dev/block/8:0") && !exists("dev/block/8:16"));
	ATF_CHECK(strstr(read_log(), "remove sda (8:0): a regular file is there now") != NULL);
	fx_fini(&f);
}

/* Something not ours at DEVNAME is left alone and the device not recorded. */
ATF_TC_WITHOUT_HEAD(add_refuses_foreign);
ATF_TC_BODY(add_refuses_foreign, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_REQUIRE(close(open("dev/sda", O_WRONLY | O_CREAT | O_EXCL, 0644)) == 0);
	ATF_REQUIRE_EQ(mkdir("dev/sdb", 0700), 0);
	ATF_REQUIRE_EQ(mknod("dev/sdc", S_IFBLK | 0644, makedev(9, 9)), 0);
	ATF_CHECK_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), -EEXIST);
	ATF_CHECK_EQ(HANDLE(&f, "add", "/devices/b", "block", "DEVNAME=sdb", "MAJOR=8",
			    "MINOR=16"), -EEXIST);
	ATF_CHECK_EQ(HANDLE(&f, "add", "/devices/c", "block", "DEVNAME=sdc", "MAJOR=8",
			    "MINOR=32"), -EEXIST);
	ATF_CHECK(S_ISREG(lstat_of("dev/sda").st_mode));
	ATF_CHECK_EQ(lstat_of("dev/sda").st_mode & 07777, 0644);
	ATF_CHECK(S_ISDIR(lstat_of("dev/sdb").st_mode));
	check_node("dev/sdc", S_IFBLK, 9, 9, 0644, 0, 0);
	ATF_CHECK_EQ(devnode_count(&f.d), 0);
	ATF_CHECK_EQ(f.d.stats.errors, 3);
	ATF_CHECK(!exists("dev/block/8:0"));
	fx_fini(&f);
}

/* Our own recorded node with a new number is replaced, and its link follows. */
ATF_TC_WITHOUT_HEAD(recorded_node_replaced);
ATF_TC_BODY(recorded_node_replaced, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_REQUIRE_EQ(HANDLE(&f, "change", SDA, "block", "DEVNAME=sda", "MAJOR=8",
			      "MINOR=16"), 0);
	check_node("dev/sda", S_IFBLK, 8, 16, 0600, 0, 0);
	ATF_CHECK(!exists("dev/block/8:0"));
	ATF_CHECK_STREQ(link_of("dev/block/8:16"), "../sda");
	ATF_CHECK_EQ(f.d.stats.links, 1);
	ATF_CHECK_EQ(f.d.stats.errors, 0);
	fx_fini(&f);
}

ATF_TC_WITHOUT_HEAD(move_renames);
ATF_TC_BODY(move_renames, tc)
{
	struct fx f;
	ino_t ino;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/virtual/misc/old", "misc", "DEVNAME=old",
			      "MAJOR=10", "MINOR=200", "DEVMODE=0660"), 0);
	ino = lstat_of("dev/old").st_ino;
	ATF_REQUIRE_EQ(HANDLE(&f, "move", "/devices/virtual/misc/new", "misc",
			      "DEVPATH_OLD=/devices/virtual/misc/old", "DEVNAME=net/new",
			      "MAJOR=10", "MINOR=200", "DEVMODE=0660"), 0);
	ATF_CHECK(!exists("dev/old"));
	check_node("dev/net/new", S_IFCHR, 10, 200, 0660, 0, 0);
	ATF_CHECK_EQ(lstat_of("dev/net/new").st_ino, ino); /* renamed, not remade */
	ATF_CHECK_STREQ(link_of("dev/char/10:200"), "../net/new");
	ATF_CHECK_EQ(devnode_count(&f.d), 1);
	ATF_CHECK_EQ(f.d.stats.links, 1);
	ATF_CHECK_EQ(f.d.stats.nodes_created, 1);

	/* the record follows the new devpath: the old one names nothing now */
	ATF_CHECK_EQ(HANDLE(&f, "remove", "/devices/virtual/misc/old", "misc"), 0);
	ATF_CHECK(exists("dev/net/new"));
	ATF_REQUIRE_EQ(HANDLE(&f, "remove", "/devices/virtual/misc/new", "misc",
			      "DEVNAME=net/new", "MAJOR=10", "MINOR=200"), 0);
	ATF_CHECK(!exists("dev/net/new") && !exists("dev/char/10:200"));
	ATF_CHECK_EQ(devnode_count(&f.d), 0);
	ATF_CHECK_EQ(f.d.stats.errors, 0);
	fx_fini(&f);
}

ATF_TC_WITHOUT_HEAD(nested_devname);
ATF_TC_BODY(nested_devname, tc)
{
	struct fx f;

	fx_init(&f, true);
	umask(077);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/pci0000:00/usb1/1-1", "usb",
			      "DEVNAME=bus/usb/001/002", "MAJOR=189", "MINOR=1",
			      "DEVMODE=0664"), 0);
	check_node("dev/bus/usb/001/002", S_IFCHR, 189, 1, 0664, 0, 0);
	ATF_CHECK(S_ISDIR(lstat_of("dev/bus/usb/001").st_mode));
	ATF_CHECK_EQ(lstat_of("dev/bus").st_mode & 07777, 0755);
	ATF_CHECK_EQ(lstat_of("dev/bus/usb/001").st_mode & 07777, 0755);
	ATF_CHECK_STREQ(link_of("dev/char/189:1"), "../bus/usb/001/002");
	ATF_REQUIRE_EQ(HANDLE(&f, "remove", "/devices/pci0000:00/usb1/1-1", "usb",
			      "DEVNAME=bus/usb/001/002", "MAJOR=189", "MINOR=1"), 0);
	ATF_CHECK(!exists("dev/bus/usb/001/002") && !exists("dev/char/189:1"));
	fx_fini(&f);
}

/* Absolute path of a fresh directory "name" in the scratch dir. */
static char *outside_dir(const char *name)
{
	static char path[PATH_MAX];

	ATF_REQUIRE_EQ(mkdir(name, 0755), 0);
	ATF_REQUIRE(realpath(name, path) != NULL);
	return path;
}

/* No event can make us create or change anything outside the root. */
ATF_TC_WITHOUT_HEAD(containment);
ATF_TC_BODY(containment, tc)
{
	struct fx f;
	char *out;
	char victim[PATH_MAX + 16];

	fx_init(&f, true);
	out = outside_dir("outside");
	ATF_REQUIRE_EQ(symlink(out, "dev/evil"), 0);
	ATF_CHECK_EQ(HANDLE(&f, "add", "/devices/e", "misc", "DEVNAME=evil/x", "MAJOR=1",
			    "MINOR=3", "DEVMODE=0666"), -ELOOP);
	ATF_CHECK_EQ(HANDLE(&f, "add", "/devices/e2", "misc", "DEVNAME=evil/a/b/c", "MAJOR=1",
			    "MINOR=5"), -ELOOP);
	check_empty(out);
	ATF_CHECK(!exists("dev/char/1:3"));

	/* a regular file as a directory component */
	ATF_REQUIRE(close(open("dev/file", O_WRONLY | O_CREAT | O_EXCL, 0644)) == 0);
	ATF_CHECK_EQ(HANDLE(&f, "add", "/devices/f", "misc", "DEVNAME=file/x", "MAJOR=1",
			    "MINOR=7"), -ENOTDIR);

	/* a symlink at the leaf: its target's owner and mode stay */
	snprintf(victim, sizeof(victim), "%s/victim", out);
	ATF_REQUIRE(close(open(victim, O_WRONLY | O_CREAT | O_EXCL, 0644)) == 0);
	ATF_REQUIRE_EQ(symlink(victim, "dev/null"), 0);
	ATF_CHECK_EQ(HANDLE(&f, "add", "/devices/virtual/mem/null", "mem", "DEVNAME=null",
			    "MAJOR=1", "MINOR=3", "DEVMODE=0666", "DEVUID=7"), -EEXIST);
	ATF_CHECK_EQ(lstat_of(victim).st_mode & 07777, 0644);
	ATF_CHECK_EQ(lstat_of(victim).st_uid, 0);
	ATF_CHECK_STREQ(link_of("dev/null"), victim);
	ATF_CHECK_EQ(HANDLE(&f, "remove", "/devices/virtual/mem/null", "mem", "DEVNAME=null",
			    "MAJOR=1", "MINOR=3"), -EEXIST);
	ATF_CHECK(exists(victim));

	ATF_CHECK_EQ(devnode_count(&f.d), 0);
	ATF_CHECK_EQ(f.d.stats.errors, 5);
	ATF_CHECK(strstr(read_log(),
			 "node evil/x: a directory on its path is a symlink, refusing") != NULL);
	fx_fini(&f);
}

/* The root's own block/ is a symlink out: the node is fine, the link is refused. */
ATF_TC_WITHOUT_HEAD(containment_links);
ATF_TC_BODY(containment_links, tc)
{
	struct fx f;
	char *out;

	fx_init(&f, true);
	out = outside_dir("outside");
	ATF_REQUIRE_EQ(symlink(out, "dev/block"), 0);
	ATF_CHECK_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), -ELOOP);
	check_empty(out);
	check_node("dev/sda", S_IFBLK, 8, 0, 0600, 0, 0);
	ATF_CHECK_EQ(f.d.stats.links, 0);
	ATF_CHECK_EQ(f.d.stats.errors, 1);
	/* remove still removes the node and leaves the outside alone */
	ATF_CHECK_EQ(HANDLE(&f, "remove", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_CHECK(!exists("dev/sda"));
	check_empty(out);
	ATF_CHECK_EQ(f.d.stats.links, 0);
	fx_fini(&f);
}

/* A link slot held by something that is not a symlink is left alone. */
ATF_TC_WITHOUT_HEAD(link_slot_taken);
ATF_TC_BODY(link_slot_taken, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(mkdir("dev/block", 0755), 0);
	ATF_REQUIRE(close(open("dev/block/8:0", O_WRONLY | O_CREAT | O_EXCL, 0600)) == 0);
	ATF_REQUIRE_EQ(symlink("../elsewhere", "dev/block/8:16"), 0);
	ATF_CHECK_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"),
		     -EEXIST);
	ATF_CHECK(S_ISREG(lstat_of("dev/block/8:0").st_mode));
	/* a stale symlink is replaced */
	ATF_CHECK_EQ(HANDLE(&f, "add", "/devices/x/sdb", "block", "DEVNAME=sdb", "MAJOR=8",
			    "MINOR=16"), 0);
	ATF_CHECK_STREQ(link_of("dev/block/8:16"), "../sdb");
	ATF_CHECK_EQ(f.d.stats.links, 1);
	fx_fini(&f);
}

/* The block/char directory kept open was deleted or replaced: links still land. */
ATF_TC_WITHOUT_HEAD(link_dir_replaced);
ATF_TC_BODY(link_dir_replaced, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_REQUIRE_EQ(system("rm -r dev/block"), 0);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/x/sdb", "block", "DEVNAME=sdb", "MAJOR=8",
			      "MINOR=16"), 0);
	ATF_CHECK_STREQ(link_of("dev/block/8:16"), "../sdb");
	/* replaced behind our back: removal finds the link in the new directory */
	ATF_REQUIRE_EQ(system("rm -r dev/block && mkdir dev/block && "
			      "ln -s ../sdb dev/block/8:16"), 0);
	ATF_REQUIRE_EQ(HANDLE(&f, "remove", "/devices/x/sdb", "block", "DEVNAME=sdb",
			      "MAJOR=8", "MINOR=16"), 0);
	ATF_CHECK(!exists("dev/block/8:16"));
	ATF_CHECK(!exists("dev/sdb"));
	ATF_CHECK_EQ(f.d.stats.errors, 0);
	fx_fini(&f);
}

/* OWNER/GROUP/MODE from the udev rules: applied to the node, kept by later events. */
ATF_TC_WITHOUT_HEAD(rules_perms_applied);
ATF_TC_BODY(rules_perms_applied, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0",
			      "DEVUID=9"), 0);
	check_node("dev/sda", S_IFBLK, 8, 0, 0600, 9, 0);
	ATF_REQUIRE_EQ(devnode_set_perms(&f.d, SDA, (uid_t)-1, 6, 0660), 0);
	check_node("dev/sda", S_IFBLK, 8, 0, 0660, 9, 6);
	/* a change event starts from what the rules decided, not the event's defaults */
	ATF_REQUIRE_EQ(HANDLE(&f, "change", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	check_node("dev/sda", S_IFBLK, 8, 0, 0660, 9, 6);
	/* only what the rules set changes */
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/x/sdb", "block", "DEVNAME=sdb", "MAJOR=8",
			      "MINOR=16", "DEVMODE=0640"), 0);
	ATF_REQUIRE_EQ(devnode_set_perms(&f.d, "/devices/x/sdb", 1, 2, (mode_t)-1), 0);
	check_node("dev/sdb", S_IFBLK, 8, 16, 0640, 1, 2);
	/* a device without a node, and a node replaced by something else, are left alone */
	ATF_CHECK_EQ(devnode_set_perms(&f.d, "/devices/none", 0, 0, 0666), -ENOENT);
	ATF_REQUIRE_EQ(unlink("dev/sdb"), 0);
	ATF_REQUIRE_EQ(mknod("dev/sdb", S_IFCHR | 0600, makedev(1, 3)), 0);
	ATF_CHECK_EQ(devnode_set_perms(&f.d, "/devices/x/sdb", 0, 0, 0666), -EEXIST);
	check_node("dev/sdb", S_IFCHR, 1, 3, 0600, 0, 0);
	fx_fini(&f);
}

/* devtmpfs owns the nodes: we only fix owner/mode and keep the links. */
ATF_TC_WITHOUT_HEAD(devtmpfs_mode);
ATF_TC_BODY(devtmpfs_mode, tc)
{
	struct fx f;

	fx_init(&f, false);
	ATF_REQUIRE_EQ(mknod("dev/sda", S_IFBLK | 0600, makedev(8, 0)), 0);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_REQUIRE_EQ(devnode_set_perms(&f.d, SDA, (uid_t)-1, 6, 0660), 0);
	check_node("dev/sda", S_IFBLK, 8, 0, 0660, 0, 6);
	ATF_CHECK_STREQ(link_of("dev/block/8:0"), "../sda");
	/* no node, no mknod (and no directories either); the link is still made */
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/u", "usb", "DEVNAME=bus/usb/001/002",
			      "MAJOR=189", "MINOR=1"), 0);
	ATF_CHECK(!exists("dev/bus"));
	ATF_CHECK_STREQ(link_of("dev/char/189:1"), "../bus/usb/001/002");
	ATF_CHECK_EQ(f.d.stats.nodes_created, 0);
	ATF_CHECK_EQ(devnode_count(&f.d), 2);

	/* remove leaves the node to the kernel, takes the link */
	ATF_REQUIRE_EQ(HANDLE(&f, "remove", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_CHECK(exists("dev/sda"));
	ATF_CHECK(!exists("dev/block/8:0"));
	ATF_CHECK_EQ(f.d.stats.nodes_removed, 0);
	ATF_CHECK_EQ(f.d.stats.links, 1);
	ATF_CHECK_EQ(f.d.stats.errors, 0);
	fx_fini(&f);
}

static void mkdirs(const char *path)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	ATF_REQUIRE_EQ(system(cmd), 0);
}

ATF_TC_WITHOUT_HEAD(prune_gone_devices);
ATF_TC_BODY(prune_gone_devices, tc)
{
	struct fx f;

	fx_init(&f, true);
	mkdirs("sys/devices/a/sda");
	mkdirs("sys/devices/b/sdb");
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/a/sda", "block", "DEVNAME=sda", "MAJOR=8",
			      "MINOR=0"), 0);
	ATF_REQUIRE_EQ(HANDLE(&f, "add", "/devices/b/sdb", "block", "DEVNAME=sdb", "MAJOR=8",
			      "MINOR=16"), 0);
	ATF_CHECK_EQ(devnode_prune(&f.d, "sys"), 0);
	ATF_REQUIRE_EQ(rmdir("sys/devices/b/sdb"), 0);
	ATF_CHECK_EQ(devnode_prune(&f.d, "sys"), 1);
	ATF_CHECK(exists("dev/sda") && exists("dev/block/8:0"));
	ATF_CHECK(!exists("dev/sdb") && !exists("dev/block/8:16"));
	ATF_CHECK_EQ(devnode_count(&f.d), 1);
	ATF_CHECK_EQ(f.d.stats.links, 1);
	ATF_CHECK_EQ(devnode_prune(&f.d, "sys"), 0);
	fx_fini(&f);
}

/* Events without a node, and actions that do not concern nodes, change nothing. */
ATF_TC_WITHOUT_HEAD(ignored_events);
ATF_TC_BODY(ignored_events, tc)
{
	struct fx f;

	fx_init(&f, true);
	ATF_CHECK_EQ(HANDLE(&f, "add", "/devices/pci0000:00/0000:00:01.0", "pci",
			    "MODALIAS=pci:v00008086d00001237sv00000000sd00000000bc06sc00i00"), 0);
	ATF_CHECK_EQ(HANDLE(&f, "bind", SDA, "block", "DEVNAME=sda", "MAJOR=8", "MINOR=0"), 0);
	ATF_CHECK_EQ(HANDLE(&f, "remove", "/devices/none", "block"), 0);
	ATF_CHECK_EQ(devnode_count(&f.d), 0);
	check_empty("dev");
	fx_fini(&f);
}

struct worker {
	struct fx *f;
	int id;
	int failures;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < 40; i++) {
		char devpath[64], devname[64], minor[32];

		snprintf(devpath, sizeof(devpath), "/devices/virtual/t%d/d%d", w->id, i);
		snprintf(devname, sizeof(devname), "DEVNAME=t%d/d%d", w->id, i);
		snprintf(minor, sizeof(minor), "MINOR=%d", w->id * 100 + i);
		w->failures += HANDLE(w->f, "add", devpath, "misc", devname, "MAJOR=240",
				      minor) != 0;
	}
	return NULL;
}

/* Handlers run on worker threads: concurrent adds all land, records intact. */
ATF_TC_WITHOUT_HEAD(concurrent_adds);
ATF_TC_BODY(concurrent_adds, tc)
{
	struct worker w[4];
	pthread_t t[4];
	struct fx f;

	fx_init(&f, true);
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ &f, i, 0 };
		ATF_REQUIRE_EQ(pthread_create(&t[i], NULL, worker_run, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ATF_CHECK_EQ(w[i].failures, 0);
	}
	ATF_CHECK_EQ(devnode_count(&f.d), 160);
	ATF_CHECK_EQ(f.d.stats.links, 160);
	check_node("dev/t3/d39", S_IFCHR, 240, 339, 0600, 0, 0);
	ATF_CHECK_STREQ(link_of("dev/char/240:339"), "../t3/d39");
	fx_fini(&f);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, add_block_and_char);
	ATF_TP_ADD_TC(tp, readd_is_idempotent);
	ATF_TP_ADD_TC(tp, change_applies_devmode);
	ATF_TP_ADD_TC(tp, remove_node_and_link);
	ATF_TP_ADD_TC(tp, remove_keeps_replacement);
	ATF_TP_ADD_TC(tp, add_refuses_foreign);
	ATF_TP_ADD_TC(tp, recorded_node_replaced);
	ATF_TP_ADD_TC(tp, move_renames);
	ATF_TP_ADD_TC(tp, nested_devname);
	ATF_TP_ADD_TC(tp, containment);
	ATF_TP_ADD_TC(tp, containment_links);
	ATF_TP_ADD_TC(tp, link_slot_taken);
	ATF_TP_ADD_TC(tp, link_dir_replaced);
	ATF_TP_ADD_TC(tp, rules_perms_applied);
	ATF_TP_ADD_TC(tp, devtmpfs_mode);
	ATF_TP_ADD_TC(tp, prune_gone_devices);
	ATF_TP_ADD_TC(tp, ignored_events);
	ATF_TP_ADD_TC(tp, concurrent_adds);
	return atf_no_error();
}
