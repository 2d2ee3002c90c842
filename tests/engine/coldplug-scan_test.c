/* SPDX-License-Identifier: MIT */
/*
 * Coldplug against a fake sysfs of plain files, directories and symlinks
 * built in the test's working directory, plus one read-only scan of /sys.
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/coldplug-scan.h"
#include "fake-sysfs.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void check_scan(const char *sysfs, const char *subtree,
		       const char *const *want, size_t nwant)
{
	struct coldplug_list l;
	int r = coldplug_scan(sysfs, subtree, false, &l);

	ATF_REQUIRE_EQ_MSG(r, 0, "coldplug_scan: %s", strerror(-r));
	for (size_t i = 0; i < l.n || i < nwant; i++)
		printf("%3zu %-60s %s\n", i, i < l.n ? l.dev[i].devpath : "-",
		       i < nwant ? want[i] : "-");
	ATF_REQUIRE_EQ(l.n, nwant);
	for (size_t i = 0; i < nwant; i++)
		ATF_CHECK_STREQ_MSG(l.dev[i].devpath, want[i], "position %zu", i);
	for (size_t i = 1; i < l.n; i++)
		ATF_CHECK_MSG(l.dev[i - 1].priority <= l.dev[i].priority,
			      "priority drops at %zu", i);
	coldplug_list_free(&l);
	ATF_CHECK_EQ(l.n, 0);
	ATF_CHECK(l.dev == NULL);
}

static const char *const machine_order[] = {
	/* block, with ancestors (the FS_PCI root has no subsystem: not a device) */
	FS_PCI "/0000:00:01.0",
	FS_PCI "/0000:00:01.0/block/sda",
	FS_PCI "/0000:00:01.0/block/sda/sda1",
	"/devices/virtual/block/loop0",
	/* net */
	FS_PCI "/0000:00:03.0",
	FS_PCI "/0000:00:03.0/net/eth0",
	/* tty */
	"/devices/platform/serial8250",
	"/devices/platform/serial8250/tty/ttyS0",
	"/devices/virtual/tty/tty0",
	/* input */
	FS_PCI "/0000:00:02.0",
	FS_USB,
	FS_USB "/1-1",
	FS_USB "/1-1/1-1:1.0",
	FS_USB "/1-1/1-1:1.0/input/input3",
	FS_USB "/1-1/1-1:1.0/input/input3/event3",
	/* the rest */
	"/devices/platform/mdio-bus",
	"/devices/platform/pcspkr",
	"/devices/virtual/mem/null",
	"/devices/virtual/mem/zero",
	"/devices/virtual/nodev/child",
	/* md and dm, and what lies below them */
	"/devices/virtual/block/dm-0",
	"/devices/virtual/block/dm-0/vcs9",
	"/devices/virtual/block/md0",
	"/devices/virtual/block/md0/md0p1",
};

ATF_TC_WITHOUT_HEAD(scan_order);
ATF_TC_BODY(scan_order, tc)
{
	fs_small_machine();
	check_scan("sys", NULL, machine_order, N_ELEMS(machine_order));
	check_scan("sys", "/devices", machine_order, N_ELEMS(machine_order));
	check_scan("sys/", "/devices/", machine_order, N_ELEMS(machine_order));
}

ATF_TC_WITHOUT_HEAD(scan_priorities);
ATF_TC_BODY(scan_priorities, tc)
{
	struct coldplug_list l;
	int sda = -1, eth0 = -1, tty0 = -1, input3 = -1, null = -1, md0 = -1, pci = -1;

	fs_small_machine();
	ATF_REQUIRE_EQ(coldplug_scan("sys", NULL, false, &l), 0);
	for (size_t i = 0; i < l.n; i++) {
		const char *name = strrchr(l.dev[i].devpath, '/') + 1;
		int p = l.dev[i].priority;

		sda = strcmp(name, "sda") == 0 ? p : sda;
		eth0 = strcmp(name, "eth0") == 0 ? p : eth0;
		tty0 = strcmp(name, "tty0") == 0 ? p : tty0;
		input3 = strcmp(name, "input3") == 0 ? p : input3;
		null = strcmp(name, "null") == 0 ? p : null;
		md0 = strcmp(name, "md0") == 0 ? p : md0;
		pci = strcmp(l.dev[i].devpath, FS_PCI "/0000:00:01.0") == 0 ? p : pci;
		ATF_CHECK_MSG(strcmp(l.dev[i].devpath, FS_PCI) != 0,
			      "a device without subsystem was listed");
	}
	ATF_CHECK(sda >= 0);
	ATF_CHECK_EQ(pci, sda); /* an ancestor takes the best claim below it */
	ATF_CHECK(sda < eth0 && eth0 < tty0 && tty0 < input3 && input3 < null && null < md0);
	coldplug_list_free(&l);
}

/* A PCI function with a modalias, below the fake PCI root. */
static void pci_dev(const char *slot, const char *modalias)
{
	char devpath[256], path[512];

	snprintf(devpath, sizeof(devpath), FS_PCI "/%s", slot);
	fs_mkdev(devpath, "bus/pci");
	snprintf(path, sizeof(path), "sys%s/modalias", devpath);
	fs_write_file(path, modalias);
}

static size_t position(const struct coldplug_list *l, const char *suffix)
{
	for (size_t i = 0; i < l->n; i++) {
		size_t n = strlen(l->dev[i].devpath), k = strlen(suffix);

		if (n >= k && strcmp(l->dev[i].devpath + n - k, suffix) == 0)
			return i;
	}
	atf_tc_fail("%s not in the list", suffix);
	return 0;
}

/*
 * Root first: storage controllers and input (and what is above them) are
 * triggered before network and sound, whatever systemd's order says; the
 * rest keeps it. Without root first, devpath order decides between them.
 */
ATF_TC_WITHOUT_HEAD(scan_root_first);
ATF_TC_BODY(scan_root_first, tc)
{
	struct coldplug_list l;

	fs_mkdev(FS_PCI, NULL);
	pci_dev("0000:00:02.0", "pci:v00008086d0000100Esv00008086sd0000001Ebc02sc00i00\n");
	fs_mkdev(FS_PCI "/0000:00:02.0/net/eth0", "class/net");
	pci_dev("0000:00:03.0", "pci:v00008086d00002668sv00001AF4sd00001100bc04sc03i00\n");
	pci_dev("0000:00:04.0", "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00\n");
	pci_dev("0000:00:05.0", "pci:v00001B36d0000000Dsv00001AF4sd00001100bc0Csc03i30\n");
	fs_mkdev(FS_PCI "/0000:00:05.0/usb1/1-1/1-1:1.0", "bus/usb");
	fs_write_file("sys" FS_PCI "/0000:00:05.0/usb1/1-1/1-1:1.0/modalias",
		      "usb:v0627p0001d0000dc00dsc00dp00ic03isc01ip01in00\n");
	fs_mkdev("/devices/virtual/mem/null", "class/mem");

	ATF_REQUIRE_EQ(coldplug_scan("sys", NULL, true, &l), 0);
	/* storage, the USB controller and its HID interface before the NIC (net) */
	ATF_CHECK(position(&l, "0000:00:04.0") < position(&l, "0000:00:02.0"));
	ATF_CHECK(position(&l, "1-1:1.0") < position(&l, "0000:00:02.0"));
	ATF_CHECK(position(&l, "0000:00:05.0") < position(&l, "1-1:1.0"));
	ATF_CHECK(position(&l, "0000:00:04.0") < position(&l, "eth0"));
	/* the rest in systemd's order: net before the sound card and mem */
	ATF_CHECK(position(&l, "eth0") < position(&l, "0000:00:03.0"));
	ATF_CHECK(position(&l, "0000:00:03.0") < position(&l, "null"));
	ATF_CHECK_EQ(l.dev[position(&l, "0000:00:04.0")].priority, COLDPLUG_PRIO_ROOT);
	ATF_CHECK(l.dev[position(&l, "0000:00:03.0")].priority != COLDPLUG_PRIO_ROOT);
	coldplug_list_free(&l);

	ATF_REQUIRE_EQ(coldplug_scan("sys", NULL, false, &l), 0);
	ATF_CHECK(position(&l, "0000:00:02.0") < position(&l, "0000:00:04.0")); /* net first */
	for (size_t i = 0; i < l.n; i++)
		ATF_CHECK(l.dev[i].priority != COLDPLUG_PRIO_ROOT);
	coldplug_list_free(&l);
}

/*
 * '-' and '.' sort below '/' in bytes; devpath order must still keep each
 * subtree together, also when a claim is passed up to the ancestors.
 */
ATF_TC_WITHOUT_HEAD(scan_path_order);
ATF_TC_BODY(scan_path_order, tc)
{
	static const char *const want[] = {
		/* tty, claimed by c */
		"/devices/a", "/devices/a/b", "/devices/a/b/c",
		/* the rest */
		"/devices/a-b", "/devices/a-b/x", "/devices/a.c", "/devices/aa",
		"/devices/q", "/devices/q/r", "/devices/q-r",
	};

	for (size_t i = N_ELEMS(want); i-- > 0;)
		fs_mkdev(want[i], i == 2 ? "class/tty" : "bus/other");
	check_scan("sys", NULL, want, N_ELEMS(want));
}

ATF_TC_WITHOUT_HEAD(scan_subtree);
ATF_TC_BODY(scan_subtree, tc)
{
	static const char *const mem[] = {
		"/devices/virtual/mem/null", "/devices/virtual/mem/zero",
	};
	static const char *const null[] = { "/devices/virtual/mem/null" };
	static const char *const md0[] = {
		"/devices/virtual/block/md0", "/devices/virtual/block/md0/md0p1",
	};

	fs_small_machine();
	check_scan("sys", "/devices/virtual/mem", mem, 2);
	check_scan("sys", "/devices//virtual/./mem/", mem, 2);
	check_scan("sys", "/devices/virtual/mem/null", null, 1);
	check_scan("sys", "/devices/virtual/block/md0", md0, 2);
	check_scan("sys", "/devices/virtual/udir", NULL, 0);
}

ATF_TC_WITHOUT_HEAD(scan_bad_subtree);
ATF_TC_BODY(scan_bad_subtree, tc)
{
	static const char *const bad[] = {
		"/devices/../etc", "/sys", "devices", "/devicesX", "", "/",
		"/devices/virtual/..", "/devices/virtual/../../etc", "//devices",
	};
	struct coldplug_list l;

	fs_small_machine();
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		l.n = 99;
		ATF_CHECK_EQ_MSG(coldplug_scan("sys", bad[i], false, &l), -EINVAL, "%s", bad[i]);
		ATF_CHECK_EQ(l.n, 0);
	}
	ATF_CHECK_EQ(coldplug_scan("sys", "/devices/none", false, &l), -ENOENT);
	ATF_CHECK_EQ(coldplug_scan("nosys", NULL, false, &l), -ENOENT);
	/* a subtree through a symlink is refused, not followed */
	ATF_CHECK(coldplug_scan("sys", "/devices/virtual/link", false, &l) < 0);
	ATF_CHECK(coldplug_scan("sys", "/devices/virtual/link/dev0", false, &l) < 0);
	ATF_CHECK_EQ(l.n, 0);
	coldplug_list_free(&l);
}

/* Depth is bounded: the root and 64 levels below it. */
ATF_TC_WITHOUT_HEAD(scan_depth_limit);
ATF_TC_BODY(scan_depth_limit, tc)
{
	char path[512] = "/devices/deep";
	struct coldplug_list l;

	fs_mkdev(path, "bus/test");
	for (int i = 1; i <= 70; i++) {
		strcat(path, "/d");
		fs_mkdev(path, "bus/test");
	}
	ATF_REQUIRE_EQ(coldplug_scan("sys", "/devices/deep", false, &l), 0);
	ATF_REQUIRE_EQ(l.n, 65);
	ATF_CHECK_EQ(strlen(l.dev[64].devpath), strlen("/devices/deep") + 64 * 2);
	for (size_t i = 1; i < l.n; i++)
		ATF_CHECK_EQ(strlen(l.dev[i].devpath), strlen(l.dev[i - 1].devpath) + 2);
	coldplug_list_free(&l);
}

/* Create dir/name holding an empty uevent file; returns the open new dir. */
static int mkdev_at(int dir, const char *name)
{
	int fd, u;

	ATF_REQUIRE(mkdirat(dir, name, 0755) == 0);
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY);
	ATF_REQUIRE(fd >= 0);
	u = openat(fd, "uevent", O_WRONLY | O_CREAT, 0644);
	ATF_REQUIRE(u >= 0);
	close(u);
	ATF_REQUIRE(symlinkat("../bus/test", fd, "subsystem") == 0);
	return fd;
}

/*
 * Devices whose uevent path would not fit PATH_MAX are skipped, not an error.
 * 16 levels of 250-byte names, then two leaves: sys<devpath>/uevent of "fits"
 * is PATH_MAX - 1 bytes long, that of "over" one byte more.
 */
ATF_TC_WITHOUT_HEAD(scan_long_paths);
ATF_TC_BODY(scan_long_paths, tc)
{
	char name[251], fits[NAME_MAX + 1], over[NAME_MAX + 2];
	size_t len = strlen("/devices/long"), leaf;
	struct coldplug_list l;
	int fd;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	fs_mkdev("/devices/long", "bus/test");
	fd = open("sys/devices/long", O_RDONLY | O_DIRECTORY);
	ATF_REQUIRE(fd >= 0);
	for (int i = 0; i < 16; i++) {
		int next = mkdev_at(fd, name);

		close(fd);
		fd = next;
		len += 1 + strlen(name);
	}
	leaf = PATH_MAX - 1 - strlen("sys") - strlen("/uevent") - len - 1;
	ATF_REQUIRE(leaf > 1 && leaf < NAME_MAX);
	memset(fits, 'f', leaf);
	fits[leaf] = '\0';
	memset(over, 'o', leaf + 1);
	over[leaf + 1] = '\0';
	close(mkdev_at(fd, fits));
	close(mkdev_at(fd, over));
	close(fd);

	ATF_REQUIRE_EQ(coldplug_scan("sys", "/devices/long", false, &l), 0);
	ATF_REQUIRE_EQ(l.n, 18);
	ATF_CHECK_EQ(strlen("sys") + strlen(l.dev[17].devpath) + strlen("/uevent"), PATH_MAX - 1);
	ATF_CHECK_STREQ(strrchr(l.dev[17].devpath, '/') + 1, fits);
	coldplug_list_free(&l);
}

/* Running out of descriptors aborts the scan (no silent gaps) and frees all. */
ATF_TC_WITHOUT_HEAD(scan_out_of_fds);
ATF_TC_BODY(scan_out_of_fds, tc)
{
	char path[512] = "/devices/deep";
	struct rlimit old, low;
	struct coldplug_list l;
	int r;

	/* leaves made before and after each d, so some are found before it fails */
	fs_mkdev(path, "bus/test");
	for (int i = 0; i < 40; i++) {
		char leaf[sizeof(path) + 8];

		snprintf(leaf, sizeof(leaf), "%s/a", path);
		fs_mkdev(leaf, "bus/test");
		strcat(path, "/d");
		fs_mkdev(path, "bus/test");
		snprintf(leaf, sizeof(leaf), "%.*s/z", (int)strlen(path) - 2, path);
		fs_mkdev(leaf, "bus/test");
	}
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &old) == 0);
	low = old;
	low.rlim_cur = 24;
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
	r = coldplug_scan("sys", NULL, false, &l);
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &old) == 0);
	ATF_CHECK_EQ(r, -EMFILE);
	ATF_CHECK_EQ(l.n, 0);
	ATF_CHECK(l.dev == NULL);
}

ATF_TC_WITHOUT_HEAD(scan_deterministic);
ATF_TC_BODY(scan_deterministic, tc)
{
	struct coldplug_list a, b;

	fs_small_machine();
	ATF_REQUIRE_EQ(coldplug_scan("sys", NULL, false, &a), 0);
	ATF_REQUIRE_EQ(coldplug_scan("sys", NULL, false, &b), 0);
	ATF_REQUIRE_EQ(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		ATF_CHECK_STREQ(a.dev[i].devpath, b.dev[i].devpath);
		ATF_CHECK_EQ(a.dev[i].priority, b.dev[i].priority);
	}
	coldplug_list_free(&a);
	coldplug_list_free(&b);
	coldplug_list_free(&b); /* freeing twice is harmless */
}

static int cmp_devpath(const void *a, const void *b)
{
	return strcmp(((const struct coldplug_device *)a)->devpath,
		      ((const struct coldplug_device *)b)->devpath);
}

/*
 * The whole real /sys/devices, read only, against find(1): the walk's
 * shortcuts (a short sysfs read is the end of a directory; a device's
 * "power" group is skipped) must not lose a single device. Directories
 * with more entries than one read returns (system/memory, block queues)
 * are where a wrong end would show.
 */
ATF_TC_WITHOUT_HEAD(real_sysfs_complete);
ATF_TC_BODY(real_sysfs_complete, tc)
{
	const char *cmd = "find /sys/devices -name uevent -type f | sed 's,/uevent$,,' | "
			  "while read -r d; do [ -L \"$d/subsystem\" ] && echo \"${d#/sys}\"; done | "
			  "grep -v '/power$' | LC_ALL=C sort";
	struct coldplug_list l;
	char line[4096];
	size_t i = 0, seen = 0;
	FILE *f;

	if (access("/sys/devices/virtual/mem/null/uevent", F_OK) != 0)
		atf_tc_skip("no /sys/devices/virtual/mem/null");
	ATF_REQUIRE_EQ(coldplug_scan("/sys", "/devices", false, &l), 0);
	qsort(l.dev, l.n, sizeof(l.dev[0]), cmp_devpath);
	f = popen(cmd, "r");
	ATF_REQUIRE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		seen++;
		while (i < l.n && strcmp(l.dev[i].devpath, line) < 0)
			i++;
		ATF_CHECK_MSG(i < l.n && strcmp(l.dev[i].devpath, line) == 0,
			      "find sees %s, the walk does not", line);
	}
	ATF_CHECK_EQ(pclose(f), 0);
	ATF_CHECK_MSG(seen > 50, "find saw only %zu devices", seen);
	ATF_CHECK_EQ_MSG(l.n, seen, "the walk found %zu devices, find %zu", l.n, seen);
	coldplug_list_free(&l);
}

/* The real /sys, read only. */
ATF_TC_WITHOUT_HEAD(real_sysfs);
ATF_TC_BODY(real_sysfs, tc)
{
	struct coldplug_list l;
	bool found = false;

	if (access("/sys/devices/virtual/mem/null/uevent", F_OK) != 0)
		atf_tc_skip("no /sys/devices/virtual/mem/null");
	ATF_REQUIRE_EQ(coldplug_scan("/sys", "/devices/virtual/mem", false, &l), 0);
	for (size_t i = 0; i < l.n; i++) {
		ATF_CHECK(strncmp(l.dev[i].devpath, "/devices/virtual/mem/", 21) == 0);
		found |= strcmp(l.dev[i].devpath, "/devices/virtual/mem/null") == 0;
	}
	ATF_CHECK(found);
	coldplug_list_free(&l);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, scan_order);
	ATF_TP_ADD_TC(tp, scan_priorities);
	ATF_TP_ADD_TC(tp, scan_root_first);
	ATF_TP_ADD_TC(tp, scan_path_order);
	ATF_TP_ADD_TC(tp, scan_subtree);
	ATF_TP_ADD_TC(tp, scan_bad_subtree);
	ATF_TP_ADD_TC(tp, scan_depth_limit);
	ATF_TP_ADD_TC(tp, scan_long_paths);
	ATF_TP_ADD_TC(tp, scan_out_of_fds);
	ATF_TP_ADD_TC(tp, scan_deterministic);
	ATF_TP_ADD_TC(tp, real_sysfs);
	ATF_TP_ADD_TC(tp, real_sysfs_complete);
	return atf_no_error();
}
