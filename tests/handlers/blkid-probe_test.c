/* SPDX-License-Identifier: MIT */
/*
 * probe_fd against filesystem images made here with the real mkfs tools
 * (plain files in the case's scratch directory), hostile labels included,
 * and against a read-only loop device (root). Partition entries need a
 * partition device, which the host kernel cannot make: the QEMU tests cover
 * those; here only the whole-disk partition table is checked.
 */
#include <atf-c.h>

#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "handlers/blkid-probe.h"

#define IMG_SIZE (8 * 1024 * 1024)

/* Full path of a tool in PATH or an sbin directory; skips the case if missing. */
static void find_prog(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin", path != NULL ? path : "/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d != NULL;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(out, size, "%s/%s", d, name);
		if (access(out, X_OK) == 0)
			return;
	}
	atf_tc_skip("%s is not installed", name);
}

/* Redirect fd to path (NULL: leave it); in the child, so failures just exit. */
static void redirect(int fd, const char *path, int flags)
{
	int f;

	if (path == NULL)
		return;
	f = open(path, flags, 0600);
	if (f < 0 || dup2(f, fd) < 0)
		_exit(126);
}

/*
 * Run argv (argv[0] looked up as above) with stdin from in and stdout to out
 * (NULL: ./tool.log), stderr to ./tool.log. Returns the exit status.
 */
static int run_io(const char *const *argv, const char *in, const char *out)
{
	char prog[PATH_MAX];
	int status;
	pid_t pid;

	find_prog(argv[0], prog, sizeof(prog));
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		redirect(0, in, O_RDONLY);
		redirect(1, out != NULL ? out : "tool.log", O_WRONLY | O_CREAT | O_APPEND);
		redirect(2, "tool.log", O_WRONLY | O_CREAT | O_APPEND);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	ATF_REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int run(const char *const *argv)
{
	return run_io(argv, NULL, NULL);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ATF_REQUIRE(f != NULL);
	ATF_REQUIRE(fputs(text, f) >= 0);
	ATF_REQUIRE_EQ(fclose(f), 0);
}

/* Write a partition table described by an sfdisk script into img. */
static void sfdisk(const char *img, const char *script)
{
	write_file("script", script);
	ATF_REQUIRE_EQ_MSG(run_io((const char *const[]){ "sfdisk", "-q", img, NULL }, "script",
				  NULL), 0, "sfdisk failed, see tool.log");
}

#define RUN(...) ATF_REQUIRE_EQ_MSG(run((const char *const[]){ __VA_ARGS__, NULL }), 0, \
				    "tool failed, see tool.log")

static void make_image(const char *path, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(ftruncate(fd, size), 0);
	close(fd);
}

static int probe_path(const char *path, struct probe_result *r)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	ATF_REQUIRE(fd >= 0);
	rc = probe_fd(fd, r);
	close(fd);
	return rc;
}

static void mkext4(const char *img, const char *uuid, const char *label)
{
	make_image(img, IMG_SIZE);
	RUN("mkfs.ext4", "-q", "-F", "-U", uuid, "-L", label, img);
}

/* What udev's blkid builtin would put in ID_FS_LABEL_ENC for raw. */
static void blkid_enc(const char *raw, char *out, size_t size)
{
	char buf[PROBE_ENC_MAX + 8];

	ATF_REQUIRE_EQ(blkid_encode_string(raw, buf, sizeof(buf)), 0);
	ATF_REQUIRE(strlen(buf) < size);
	strcpy(out, buf);
}

static void check_label(const char *img, const char *safe, const char *enc)
{
	struct probe_result r;

	ATF_REQUIRE_EQ(probe_path(img, &r), 0);
	ATF_REQUIRE(r.has_fs);
	ATF_CHECK_STREQ(r.fs_label, safe);
	ATF_CHECK_STREQ(r.fs_label_enc, enc);
}

ATF_TC_WITHOUT_HEAD(ext4_basic);
ATF_TC_BODY(ext4_basic, tc)
{
	static const char uuid[] = "0a1b2c3d-0000-4000-8000-000000000001";
	struct probe_result r;

	mkext4("a.img", uuid, "rootfs");
	ATF_REQUIRE_EQ(probe_path("a.img", &r), 0);
	ATF_CHECK(r.has_fs);
	ATF_CHECK_STREQ(r.fs_type, "ext4");
	ATF_CHECK_STREQ(r.fs_usage, "filesystem");
	ATF_CHECK_STREQ(r.fs_version, "1.0");
	ATF_CHECK_STREQ(r.fs_uuid, uuid);
	ATF_CHECK_STREQ(r.fs_uuid_enc, uuid);
	ATF_CHECK_STREQ(r.fs_label, "rootfs");
	ATF_CHECK_STREQ(r.fs_label_enc, "rootfs");
	ATF_CHECK_STREQ(r.pt_type, "");
	ATF_CHECK(!r.has_part_entry);
}

/* Every hostile label: ID_FS_LABEL made safe, ID_FS_LABEL_ENC as blkid encodes. */
ATF_TC_WITHOUT_HEAD(ext4_hostile_labels);
ATF_TC_BODY(ext4_hostile_labels, tc)
{
	static const struct {
		const char *raw, *safe, *enc;
	} cases[] = {
		{ "a/b", "a/b", "a\\x2fb" },
		{ "..", "..", ".." },
		/* libblkid drops trailing spaces from every label it reports */
		{ "  spaces ", "spaces", "\\x20\\x20spaces" },
		{ "in  ner\tws", "in_ner_ws", "in\\x20\\x20ner\\x09ws" },
		{ "new\nline", "new_line", "new\\x0aline" },
		{ "back\\x2fslash", "back\\x2fslash", "back\\x5cx2fslash" },
		{ "\xff\xfe" "bad", "__bad", "\\xff\\xfebad" },
		{ "gr\xc3\xbc\xc3\x9f", "gr\xc3\xbc\xc3\x9f", "gr\xc3\xbc\xc3\x9f" },
		/* libblkid 2.38 keeps 7-bit bytes other than whitespace in the raw value */
		{ "$x%y?z,\"'*", "$x%y?z,\"'*", "\\x24x\\x25y\\x3fz\\x2c\\x22\\x27\\x2a" },
		{ "\x01" "ctl\x7f", "\x01" "ctl\x7f", "\\x01ctl\\x7f" },
		{ "0123456789abcdef", "0123456789abcdef", "0123456789abcdef" },
		{ "////////////////", "////////////////",
		  "\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f\\x2f" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char img[32], raw[64], enc[PROBE_ENC_MAX];

		snprintf(img, sizeof(img), "l%zu.img", i);
		mkext4(img, "0a1b2c3d-0000-4000-8000-000000000002", cases[i].raw);
		/* the table agrees with libblkid (labels as it reports them) */
		snprintf(raw, sizeof(raw), "%s", cases[i].raw);
		for (size_t n = strlen(raw); n > 0 && raw[n - 1] == ' '; n--)
			raw[n - 1] = '\0';
		blkid_enc(raw, enc, sizeof(enc));
		ATF_CHECK_STREQ_MSG(enc, cases[i].enc, "case %zu: test table vs libblkid", i);
		check_label(img, cases[i].safe, cases[i].enc);
		unlink(img);
	}
}

/* ext4 labels are 16 bytes: mkfs cuts a longer one, the probe sees 16. */
ATF_TC_WITHOUT_HEAD(ext4_label_max);
ATF_TC_BODY(ext4_label_max, tc)
{
	mkext4("a.img", "0a1b2c3d-0000-4000-8000-000000000003", "0123456789abcdefXYZ");
	check_label("a.img", "0123456789abcdef", "0123456789abcdef");
}

/* Replace every copy of the 11-byte marker in a FAT image (boot sector, root dir). */
static void patch_fat_label(const char *img, const char *marker, const char label[11])
{
	static char buf[IMG_SIZE];
	int fd = open(img, O_RDWR);
	size_t hits = 0;

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	for (char *p = buf; (p = memmem(p, buf + sizeof(buf) - p, marker, 11)) != NULL; p += 11) {
		memcpy(p, label, 11);
		hits++;
	}
	ATF_REQUIRE(hits > 0);
	ATF_REQUIRE_EQ(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	close(fd);
}

ATF_TC_WITHOUT_HEAD(vfat_basic);
ATF_TC_BODY(vfat_basic, tc)
{
	struct probe_result r;

	make_image("v.img", IMG_SIZE);
	RUN("mkfs.vfat", "-n", "ABCDEFGHIJK", "-i", "1234ABCD", "v.img");
	ATF_REQUIRE_EQ(probe_path("v.img", &r), 0);
	ATF_CHECK(r.has_fs);
	ATF_CHECK_STREQ(r.fs_type, "vfat");
	ATF_CHECK_STREQ(r.fs_usage, "filesystem");
	ATF_CHECK_STREQ(r.fs_uuid, "1234-ABCD");
	ATF_CHECK_STREQ(r.fs_uuid_enc, "1234-ABCD");
	ATF_CHECK_STREQ(r.fs_label, "ABCDEFGHIJK"); /* 11 bytes: the FAT maximum */
	ATF_CHECK_STREQ(r.fs_label_enc, "ABCDEFGHIJK");
}

/* mkfs.vfat refuses odd labels; a USB stick's label is whatever bytes it holds. */
ATF_TC_WITHOUT_HEAD(vfat_hostile_label);
ATF_TC_BODY(vfat_hostile_label, tc)
{
	make_image("v.img", IMG_SIZE);
	RUN("mkfs.vfat", "-n", "QQQQQQQQQQQ", "-i", "1234ABCD", "v.img");
	patch_fat_label("v.img", "QQQQQQQQQQQ", "a/b\n\xff\xfe.. x ");
	/* FAT pads with spaces: blkid drops the trailing one */
	check_label("v.img", "a/b___.._x", "a\\x2fb\\x0a\\xff\\xfe..\\x20x");
	patch_fat_label("v.img", "a/b\n\xff\xfe.. x ", "..         ");
	check_label("v.img", "..", "..");
}

ATF_TC_WITHOUT_HEAD(swap_basic);
ATF_TC_BODY(swap_basic, tc)
{
	static const char uuid[] = "0a1b2c3d-0000-4000-8000-000000000004";
	struct probe_result r;

	make_image("s.img", IMG_SIZE);
	RUN("mkswap", "-L", "sw ap/1", "-U", uuid, "s.img");
	ATF_REQUIRE_EQ(probe_path("s.img", &r), 0);
	ATF_CHECK(r.has_fs);
	ATF_CHECK_STREQ(r.fs_type, "swap");
	ATF_CHECK_STREQ(r.fs_usage, "other");
	ATF_CHECK_STREQ(r.fs_version, "1");
	ATF_CHECK_STREQ(r.fs_uuid, uuid);
	ATF_CHECK_STREQ(r.fs_label, "sw_ap/1");
	ATF_CHECK_STREQ(r.fs_label_enc, "sw\\x20ap\\x2f1");
}

/* Deterministic noise: no signature, nothing found, no error. */
ATF_TC_WITHOUT_HEAD(garbage);
ATF_TC_BODY(garbage, tc)
{
	static unsigned char buf[IMG_SIZE];
	struct probe_result r;
	uint32_t x = 2463534242u;
	int fd;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
	fd = open("g.img", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	ATF_REQUIRE_EQ(probe_path("g.img", &r), 0);
	ATF_CHECK(!r.has_fs);
	ATF_CHECK_STREQ(r.fs_type, "");
	ATF_CHECK_STREQ(r.pt_type, "");
	ATF_CHECK(!r.has_part_entry);
}

ATF_TC_WITHOUT_HEAD(empty_file);
ATF_TC_BODY(empty_file, tc)
{
	struct probe_result r;

	make_image("e.img", 0);
	ATF_CHECK_EQ(probe_path("e.img", &r), 0); /* readable, nothing on it */
	ATF_CHECK(!r.has_fs);
	ATF_CHECK_STREQ(r.pt_type, "");
	ATF_CHECK_STREQ(r.fs_label, "");
}

ATF_TC_WITHOUT_HEAD(bad_fd);
ATF_TC_BODY(bad_fd, tc)
{
	struct probe_result r;
	int fd = open(".", O_RDONLY | O_DIRECTORY);

	ATF_CHECK_EQ(probe_fd(-1, &r), -EBADF);
	ATF_CHECK(!r.has_fs);
	ATF_REQUIRE(fd >= 0);
	ATF_CHECK_EQ(probe_fd(fd, &r), -ENOTBLK);
	ATF_CHECK(!r.has_fs);
	close(fd);
}

/* A whole-image probe sees the table; entries need the partition device. */
ATF_TC_WITHOUT_HEAD(gpt_table);
ATF_TC_BODY(gpt_table, tc)
{
	static const char script[] =
		"label: gpt\n"
		"label-id: 01234567-89AB-4CDE-8F01-23456789ABCD\n"
		"size=1M, name=\"root/../x\", uuid=11111111-2222-4333-8444-555555555555\n";
	struct probe_result r;

	make_image("g.img", IMG_SIZE);
	sfdisk("g.img", script);
	ATF_REQUIRE_EQ(probe_path("g.img", &r), 0);
	ATF_CHECK_STREQ(r.pt_type, "gpt");
	ATF_CHECK_STREQ(r.pt_uuid, "01234567-89ab-4cde-8f01-23456789abcd");
	ATF_CHECK(!r.has_fs);
	ATF_CHECK(!r.has_part_entry);
}

ATF_TC_WITHOUT_HEAD(dos_table);
ATF_TC_BODY(dos_table, tc)
{
	struct probe_result r;

	make_image("d.img", IMG_SIZE);
	sfdisk("d.img", "label: dos\nlabel-id: 0xdeadbeef\nsize=1M, type=83\n");
	ATF_REQUIRE_EQ(probe_path("d.img", &r), 0);
	ATF_CHECK_STREQ(r.pt_type, "dos");
	ATF_CHECK_STREQ(r.pt_uuid, "deadbeef");
	ATF_CHECK(!r.has_fs);
}

/* ext4 and a FAT boot sector on one image: udev reports no filesystem then. */
ATF_TC_WITHOUT_HEAD(ambivalent);
ATF_TC_BODY(ambivalent, tc)
{
	struct probe_result r;
	char sector[512];
	int fd;

	mkext4("a.img", "0a1b2c3d-0000-4000-8000-000000000005", "both");
	make_image("v.img", IMG_SIZE);
	RUN("mkfs.vfat", "-n", "ALSO", "v.img");
	fd = open("v.img", O_RDONLY);
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(pread(fd, sector, sizeof(sector), 0), (ssize_t)sizeof(sector));
	close(fd);
	fd = open("a.img", O_WRONLY);
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(pwrite(fd, sector, sizeof(sector), 0), (ssize_t)sizeof(sector));
	close(fd);
	ATF_CHECK_EQ(probe_path("a.img", &r), -EUCLEAN);
	ATF_CHECK(!r.has_fs);
	ATF_CHECK_STREQ(r.fs_type, "");
	ATF_CHECK_STREQ(r.fs_label, "");
}

/* The probe reads only: the image is byte for byte what it was. */
ATF_TC_WITHOUT_HEAD(read_only);
ATF_TC_BODY(read_only, tc)
{
	static char before[IMG_SIZE], after[IMG_SIZE];
	struct probe_result r;
	int fd;

	mkext4("a.img", "0a1b2c3d-0000-4000-8000-000000000006", "ro");
	fd = open("a.img", O_RDWR); /* even given a writable fd */
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(pread(fd, before, sizeof(before), 0), (ssize_t)sizeof(before));
	ATF_REQUIRE_EQ(probe_fd(fd, &r), 0);
	ATF_REQUIRE_EQ(pread(fd, after, sizeof(after), 0), (ssize_t)sizeof(after));
	close(fd);
	ATF_CHECK(memcmp(before, after, sizeof(before)) == 0);
	ATF_CHECK_STREQ(r.fs_label, "ro");
}

ATF_TC_WITHOUT_HEAD(encode);
ATF_TC_BODY(encode, tc)
{
	static const char *const inputs[] = {
		"", "plain-Name_1.2:3=4@5#6+7", "a b", "a/b", "\\", "\x01\x7f", "\xc3\xbc",
		"\xc0\xaf", "\xed\xa0\x80", "\xef\xbf\xbe", "\xef\xbf\xbf", "\xf4\x90\x80\x80",
		"\xe2\x82", "%$&",
	};
	char big[PROBE_VALUE_MAX + 1], out[PROBE_ENC_MAX], ref[PROBE_ENC_MAX];

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		blkid_enc(inputs[i], ref, sizeof(ref));
		ATF_CHECK_EQ(probe_encode(inputs[i], out, sizeof(out)), 0);
		ATF_CHECK_STREQ_MSG(out, ref, "input %zu", i);
	}
	/* the worst case fits PROBE_ENC_MAX exactly as the header promises */
	memset(big, '/', PROBE_VALUE_MAX - 1);
	big[PROBE_VALUE_MAX - 1] = '\0';
	ATF_CHECK_EQ(probe_encode(big, out, sizeof(out)), 0);
	ATF_CHECK_EQ(strlen(out), 4 * (PROBE_VALUE_MAX - 1));
	ATF_CHECK(strncmp(out, "\\x2f\\x2f", 8) == 0);
	/* longer input and short output are refused, leaving "" */
	memset(big, 'a', PROBE_VALUE_MAX);
	big[PROBE_VALUE_MAX] = '\0';
	ATF_CHECK_EQ(probe_encode(big, out, sizeof(out)), -E2BIG);
	ATF_CHECK_STREQ(out, "");
	ATF_CHECK_EQ(probe_encode("a/b", out, 6), -ENOSPC);
	ATF_CHECK_STREQ(out, "");
	ATF_CHECK_EQ(probe_encode("a/b", out, 7), 0);
	ATF_CHECK_STREQ(out, "a\\x2fb");
	ATF_CHECK_EQ(probe_encode("x", out, 0), -EINVAL);
}

/* ---- loop devices (root) ---------------------------------------------- */

/* Attach img read-only; the device name stays in ./loopdev for the cleanup. */
static void loop_attach(const char *img, char *dev, size_t size)
{
	FILE *f;

	if (geteuid() != 0)
		atf_tc_skip("needs root (losetup)");
	ATF_REQUIRE_EQ_MSG(run_io((const char *const[]){ "losetup", "--find", "--show",
							 "--read-only", img, NULL },
				  NULL, "loopdev"), 0, "losetup failed, see tool.log");
	f = fopen("loopdev", "r");
	ATF_REQUIRE(f != NULL);
	ATF_REQUIRE(fgets(dev, (int)size, f) != NULL);
	fclose(f);
	dev[strcspn(dev, "\n")] = '\0';
	ATF_REQUIRE(strncmp(dev, "/dev/loop", 9) == 0);
}

static void loop_detach(void)
{
	char dev[64];
	FILE *f = fopen("loopdev", "r");

	if (f == NULL)
		return;
	if (fgets(dev, sizeof(dev), f) != NULL) {
		dev[strcspn(dev, "\n")] = '\0';
		if (strncmp(dev, "/dev/loop", 9) == 0)
			(void)run((const char *const[]){ "losetup", "-d", dev, NULL });
	}
	fclose(f);
	unlink("loopdev");
}

static void probe_loop(const char *dev, struct probe_result *r)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	ATF_REQUIRE_MSG(fd >= 0, "open %s: %s", dev, strerror(errno));
	ATF_REQUIRE_EQ(probe_fd(fd, r), 0);
	close(fd);
}

/* An unbound loop device (size 0): nothing to find, and no error. */
ATF_TC(unbound_loop);
ATF_TC_HEAD(unbound_loop, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(unbound_loop, tc)
{
	struct probe_result r;
	char dev[64];
	FILE *f;

	if (geteuid() != 0)
		atf_tc_skip("needs root (losetup)");
	/* the first free one is unbound; losetup --find creates it if needed */
	ATF_REQUIRE_EQ_MSG(run_io((const char *const[]){ "losetup", "--find", NULL },
				  NULL, "free"), 0, "losetup failed, see tool.log");
	f = fopen("free", "r");
	ATF_REQUIRE(f != NULL);
	ATF_REQUIRE(fgets(dev, sizeof(dev), f) != NULL);
	fclose(f);
	dev[strcspn(dev, "\n")] = '\0';
	ATF_REQUIRE(strncmp(dev, "/dev/loop", 9) == 0);
	if (access(dev, F_OK) != 0)
		atf_tc_skip("%s has no node", dev);
	probe_loop(dev, &r);
	ATF_CHECK(!r.has_fs);
	ATF_CHECK_STREQ(r.pt_type, "");
	ATF_CHECK(!r.has_part_entry);
}

ATF_TC_WITH_CLEANUP(loop_ext4);
ATF_TC_HEAD(loop_ext4, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(loop_ext4, tc)
{
	static const char uuid[] = "0a1b2c3d-0000-4000-8000-000000000007";
	struct probe_result r;
	char dev[PATH_MAX];

	mkext4("img", uuid, "a/b c");
	loop_attach("img", dev, sizeof(dev));
	probe_loop(dev, &r);
	ATF_CHECK(r.has_fs);
	ATF_CHECK_STREQ(r.fs_type, "ext4");
	ATF_CHECK_STREQ(r.fs_uuid, uuid);
	ATF_CHECK_STREQ(r.fs_label, "a/b_c");
	ATF_CHECK_STREQ(r.fs_label_enc, "a\\x2fb\\x20c");
	ATF_CHECK(!r.has_part_entry);
	loop_detach();
}
ATF_TC_CLEANUP(loop_ext4, tc)
{
	loop_detach();
}

/* ext4 with an MBR written over its unused first sector, size MiB. */
static void make_fs_and_table(const char *img, off_t mib)
{
	make_image(img, mib * 1024 * 1024);
	RUN("mkfs.ext4", "-q", "-F", "-L", "small", img);
	write_file("script", "label: dos\nlabel-id: 0x12345678\nsize=100K\n");
	ATF_REQUIRE_EQ(run_io((const char *const[]){ "sfdisk", "-q", "--wipe", "never", img,
						     NULL }, "script", NULL), 0);
}

/* Not a small whole disk: both the filesystem and the table are reported. */
ATF_TC_WITHOUT_HEAD(fs_and_table);
ATF_TC_BODY(fs_and_table, tc)
{
	struct probe_result r;

	make_fs_and_table("img", 4);
	ATF_REQUIRE_EQ(probe_path("img", &r), 0);
	ATF_CHECK_STREQ(r.pt_type, "dos");
	ATF_CHECK_STREQ(r.pt_uuid, "12345678");
	ATF_CHECK(r.has_fs);
	ATF_CHECK_STREQ(r.fs_label, "small");
}

/* A small whole disk (<= 1440 KiB) with a table: udev looks for no filesystem. */
ATF_TC_WITH_CLEANUP(loop_small_disk);
ATF_TC_HEAD(loop_small_disk, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(loop_small_disk, tc)
{
	struct probe_result r;
	char dev[PATH_MAX];

	make_fs_and_table("img", 1);
	loop_attach("img", dev, sizeof(dev));
	probe_loop(dev, &r);
	ATF_CHECK_STREQ(r.pt_type, "dos");
	ATF_CHECK_STREQ(r.pt_uuid, "12345678");
	ATF_CHECK(!r.has_fs);
	ATF_CHECK_STREQ(r.fs_label, "");
	loop_detach();
}
ATF_TC_CLEANUP(loop_small_disk, tc)
{
	loop_detach();
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, ext4_basic);
	ATF_TP_ADD_TC(tp, ext4_hostile_labels);
	ATF_TP_ADD_TC(tp, ext4_label_max);
	ATF_TP_ADD_TC(tp, vfat_basic);
	ATF_TP_ADD_TC(tp, vfat_hostile_label);
	ATF_TP_ADD_TC(tp, swap_basic);
	ATF_TP_ADD_TC(tp, garbage);
	ATF_TP_ADD_TC(tp, empty_file);
	ATF_TP_ADD_TC(tp, unbound_loop);
	ATF_TP_ADD_TC(tp, bad_fd);
	ATF_TP_ADD_TC(tp, gpt_table);
	ATF_TP_ADD_TC(tp, dos_table);
	ATF_TP_ADD_TC(tp, ambivalent);
	ATF_TP_ADD_TC(tp, read_only);
	ATF_TP_ADD_TC(tp, encode);
	ATF_TP_ADD_TC(tp, loop_ext4);
	ATF_TP_ADD_TC(tp, fs_and_table);
	ATF_TP_ADD_TC(tp, loop_small_disk);
	return 0;
}
