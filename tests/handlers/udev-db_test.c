/* SPDX-License-Identifier: MIT */
/*
 * udev 252's database as initdev writes it for the real root: the data
 * file's lines, the link index's escaping, the files, modes and index
 * entries written, replaced and removed, and `udevadm info --cleanup-db`
 * keeping exactly the db_persist entries.
 */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-sysfs.h"
#include "handlers/udev-db.h"

struct fx {
	struct props props;
	struct strv links, tags, current;
	struct udev_db_entry e;
};

/* dm-0 as 55-dm.rules and 11-dm.rules leave it (a few of its properties) */
static void fx_init(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	ATF_REQUIRE(props_set(&f->props, "DEVNAME", "/dev/dm-0", false) == 0);
	ATF_REQUIRE(props_set(&f->props, "DM_UDEV_PRIMARY_SOURCE_FLAG", "1", true) == 0);
	ATF_REQUIRE(props_set(&f->props, "DM_NAME", "luks-x", true) == 0);
	ATF_REQUIRE(props_set(&f->props, "DM_LV_LAYER", "", true) == 0);
	ATF_REQUIRE(props_set(&f->props, "MAJOR", "254", false) == 0);
	ATF_REQUIRE(strv_add(&f->links, "/dev/mapper/luks-x") == 1);
	ATF_REQUIRE(strv_add(&f->links, "/dev/disk/by-id/dm-name-luks-x") == 1);
	f->e = (struct udev_db_entry){ .block = true, .major = 254, .minor = 0,
				       .devnode = "/dev/dm-0", .links = &f->links,
				       .usec_initialized = 46123429, .props = &f->props,
				       .tags = &f->tags, .current_tags = &f->current,
				       .persist = true };
}

static void fx_fini(struct fx *f)
{
	props_clear(&f->props);
	strv_clear(&f->links);
	strv_clear(&f->tags);
	strv_clear(&f->current);
}

static void print_to(const struct udev_db_entry *e, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	ATF_REQUIRE(f);
	ATF_REQUIRE_EQ(udev_db_print(e, f), 0);
	fclose(f);
}

ATF_TC_WITHOUT_HEAD(data_lines_as_udev);
ATF_TC_BODY(data_lines_as_udev, tc)
{
	struct fx f;
	char buf[4096];

	fx_init(&f);
	print_to(&f.e, buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "S:mapper/luks-x\n"
			     "S:disk/by-id/dm-name-luks-x\n"
			     "I:46123429\n"
			     "E:DM_UDEV_PRIMARY_SOURCE_FLAG=1\n"
			     "E:DM_NAME=luks-x\n"
			     "E:DM_LV_LAYER=\n"
			     "V:1\n");
	/* priority, tags; a value or link with a newline would forge a line: left out */
	f.e.link_priority = 100;
	ATF_REQUIRE(strv_add(&f.tags, "systemd") == 1);
	ATF_REQUIRE(strv_add(&f.current, "systemd") == 1);
	ATF_REQUIRE(props_set(&f.props, "EVIL", "x\nE:DM_UDEV_DISABLE_OTHER_RULES_FLAG=1", true) == 0);
	ATF_REQUIRE(strv_add(&f.links, "/dev/a\nS:b") == 1);
	ATF_REQUIRE(strv_add(&f.links, "/elsewhere") == 1);
	print_to(&f.e, buf, sizeof(buf));
	ATF_CHECK(strstr(buf, "L:100\nI:46123429\n") != NULL);
	ATF_CHECK(strstr(buf, "G:systemd\nQ:systemd\nV:1\n") != NULL);
	ATF_CHECK(strstr(buf, "EVIL") == NULL && strstr(buf, "DISABLE_OTHER") == NULL);
	ATF_CHECK(strstr(buf, "S:b") == NULL && strstr(buf, "elsewhere") == NULL);
	/* a device without a node has no S: */
	f.e.major = 0;
	print_to(&f.e, buf, sizeof(buf));
	ATF_CHECK(strstr(buf, "S:") == NULL);
	fx_fini(&f);
}

/*
 * Every line of t as systemd 252's device_read_db splits it (at '\n' and
 * at '\r', empty lines skipped) is "X:value" with X one of udev's tags;
 * no S: line names vda.
 */
static void check_read_as_systemd(const char *t)
{
	for (const char *l = t; *l;) {
		size_t n = strcspn(l, "\n\r");

		if (n > 0) {
			ATF_CHECK_MSG(n >= 2 && l[1] == ':' && strchr("SLIEGQV", l[0]),
				      "forged line \"%.*s\"", (int)n, l);
			ATF_CHECK_MSG(strncmp(l, "S:vda", 5) != 0, "forged link line");
		}
		l += n + (l[n] != '\0');
	}
}

/* issue 21: a DDF header's revision "\rS:vda" became ID_FS_VERSION and forged S:vda */
ATF_TC_WITHOUT_HEAD(carriage_return_forges_no_line);
ATF_TC_BODY(carriage_return_forges_no_line, tc)
{
	struct udev_db_refused r;
	struct fx f;
	char buf[4096];

	fx_init(&f);
	ATF_REQUIRE(props_set(&f.props, "ID_FS_VERSION", "\rS:vda", true) == 0);
	ATF_REQUIRE(props_set(&f.props, "ID\rS:x", "1", true) == 0);
	ATF_REQUIRE(strv_add(&f.links, "/dev/a\rS:vda") == 1);
	ATF_REQUIRE(strv_add(&f.tags, "t\rS:vda") == 1);
	ATF_REQUIRE(strv_add(&f.tags, "") == 1); /* "G:" alone would swallow the next line */
	ATF_REQUIRE(strv_add(&f.current, "systemd") == 1);
	print_to(&f.e, buf, sizeof(buf));
	check_read_as_systemd(buf);
	ATF_CHECK(strchr(buf, '\r') == NULL);
	ATF_CHECK(strstr(buf, "ID_FS_VERSION") == NULL);
	ATF_CHECK(strstr(buf, "\nG:\n") == NULL);
	ATF_CHECK(strstr(buf, "E:DM_LV_LAYER=\nQ:systemd\nV:1\n") != NULL);
	/* what was left out, said for the log: which line, which field, why */
	ATF_CHECK_EQ(udev_db_refused(&f.e, &r), 4);
	ATF_CHECK_STREQ(r.first, "S:/dev/a\\x0dS:vda: the link holds a carriage return at byte 6");
	strv_clear(&f.links);
	ATF_CHECK_EQ(udev_db_refused(&f.e, &r), 3);
	ATF_CHECK_STREQ(r.first,
			"E:ID_FS_VERSION: the value holds a carriage return at byte 0");
	fx_fini(&f);
}

/* the writer logs what it left out, with the entry's name */
ATF_TC_WITHOUT_HEAD(write_logs_refused_field);
ATF_TC_BODY(write_logs_refused_field, tc)
{
	struct logger log = { .max_level = LOG_DEBUG, .ident = "initdev", .echo_fd = -1 };
	struct udev_db db;
	struct fx f;
	char buf[4096];

	log.fd = open("log", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ATF_REQUIRE(log.fd >= 0);
	fx_init(&f);
	ATF_REQUIRE(props_set(&f.props, "ID_FS_VERSION", "\rS:vda", true) == 0);
	ATF_REQUIRE_EQ(udev_db_open(&db, "udev", &log), 0);
	ATF_REQUIRE_EQ(udev_db_write(&db, &f.e, NULL), 0);
	fs_read_file("udev/data/b254:0", buf, sizeof(buf));
	check_read_as_systemd(buf);
	fs_read_file("log", buf, sizeof(buf));
	ATF_CHECK_MSG(strstr(buf, "udev database data/b254:0: 1 field(s) left out, the first "
				  "E:ID_FS_VERSION: the value holds a carriage return at byte 0") != NULL,
		      "log: %s", buf);
	udev_db_close(&db);
	close(log.fd);
	fx_fini(&f);
}

ATF_TC_WITHOUT_HEAD(link_escaping);
ATF_TC_BODY(link_escaping, tc)
{
	char out[256], lng[300];

	ATF_REQUIRE_EQ(udev_db_escape_link("/dev/disk/by-id/md-name-a/b", out, sizeof(out)), 0);
	ATF_CHECK_STREQ(out, "disk\\x2fby-id\\x2fmd-name-a\\x2fb");
	ATF_REQUIRE_EQ(udev_db_escape_link("/dev/disk/by-label/..\\x2fx", out, sizeof(out)), 0);
	ATF_CHECK_STREQ(out, "disk\\x2fby-label\\x2f..\\x5cx2fx");
	ATF_REQUIRE_EQ(udev_db_escape_link("mapper/h+_.--vg-r+_.--lv", out, sizeof(out)), 0);
	ATF_CHECK_STREQ(out, "mapper\\x2fh+_.--vg-r+_.--lv");
	ATF_CHECK_EQ(udev_db_escape_link("/dev/", out, sizeof(out)), -EINVAL);
	ATF_CHECK_EQ(udev_db_escape_link("/elsewhere/x", out, sizeof(out)), -EINVAL);
	ATF_CHECK_EQ(udev_db_escape_link("/dev/..", out, sizeof(out)), -EINVAL);
	ATF_CHECK_EQ(udev_db_escape_link(".", out, sizeof(out)), -EINVAL);
	/* udev shortens what exceeds 244 bytes with a hash: left out here */
	memset(lng, 'a', sizeof(lng));
	memcpy(lng, "/dev/", 5);
	lng[5 + 245] = '\0'; /* 245 */
	ATF_CHECK_EQ(udev_db_escape_link(lng, out, sizeof(out)), -ENAMETOOLONG);
	lng[5 + 244] = '\0'; /* 244 */
	ATF_CHECK_EQ(udev_db_escape_link(lng, out, sizeof(out)), 0);
	ATF_CHECK_EQ(strlen(out), 244u);
}

static void read_file(const char *path, char *buf, size_t size)
{
	fs_read_file(path, buf, size);
}

static unsigned int mode_of(const char *path)
{
	struct stat st;

	ATF_REQUIRE_MSG(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
	return st.st_mode & 07777;
}

static void readlink_is(const char *path, const char *want)
{
	char buf[512];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	ATF_REQUIRE_MSG(n > 0, "%s: %s", path, strerror(errno));
	buf[n] = '\0';
	ATF_CHECK_STREQ(buf, want);
}

#define STACK(name) "udev/links/" name "/b254:0"

ATF_TC_WITHOUT_HEAD(write_replace_remove);
ATF_TC_BODY(write_replace_remove, tc)
{
	struct udev_db db;
	struct fx f, g;
	char buf[4096];

	umask(0077); /* the modes are set, not inherited */
	fx_init(&f);
	ATF_REQUIRE(strv_add(&f.tags, "seat") == 1);
	ATF_REQUIRE_EQ(udev_db_open(&db, "udev", NULL), 0);
	ATF_REQUIRE_EQ(udev_db_write(&db, &f.e, NULL), 0);
	ATF_CHECK_EQ(mode_of("udev/data/b254:0"), 01644u);
	read_file("udev/data/b254:0", buf, sizeof(buf));
	ATF_CHECK(strncmp(buf, "S:mapper/luks-x\n", 16) == 0);
	readlink_is(STACK("mapper\\x2fluks-x"), "0:/dev/dm-0");
	readlink_is(STACK("disk\\x2fby-id\\x2fdm-name-luks-x"), "0:/dev/dm-0");
	ATF_CHECK(access("udev/tags/seat/b254:0", F_OK) == 0);
	/* the next event: another link, a priority, no tag, not persistent any more */
	fx_init(&g);
	strv_remove(&g.links, "/dev/disk/by-id/dm-name-luks-x");
	ATF_REQUIRE(strv_add(&g.links, "/dev/root") == 1);
	g.e.link_priority = -10;
	g.e.persist = false;
	ATF_REQUIRE_EQ(udev_db_write(&db, &g.e, &f.e), 0);
	ATF_CHECK_EQ(mode_of("udev/data/b254:0"), 0644u);
	readlink_is(STACK("mapper\\x2fluks-x"), "-10:/dev/dm-0");
	readlink_is(STACK("root"), "-10:/dev/dm-0");
	ATF_CHECK(access("udev/links/disk\\x2fby-id\\x2fdm-name-luks-x", F_OK) != 0);
	ATF_CHECK(access("udev/tags/seat", F_OK) != 0);
	ATF_CHECK(access("udev/data/.#b254:0", F_OK) != 0);
	/* removed: data and index gone, empty stacks too */
	ATF_REQUIRE_EQ(udev_db_remove(&db, &g.e), 0);
	ATF_CHECK(access("udev/data/b254:0", F_OK) != 0);
	ATF_CHECK(access("udev/links/mapper\\x2fluks-x", F_OK) != 0);
	ATF_CHECK(access("udev/links/root", F_OK) != 0);
	udev_db_close(&db);
	fx_fini(&f);
	fx_fini(&g);
}

ATF_TC_WITHOUT_HEAD(cleanup_keeps_persistent);
ATF_TC_BODY(cleanup_keeps_persistent, tc)
{
	struct udev_db db;
	struct fx f;

	fx_init(&f);
	ATF_REQUIRE_EQ(udev_db_open(&db, "udev", NULL), 0);
	ATF_REQUIRE_EQ(udev_db_write(&db, &f.e, NULL), 0);
	/* what udevd leaves for other devices: plain entries, their indexes */
	fs_write_file("udev/data/b253:0", "S:disk/by-uuid/x\nV:1\n");
	fs_mkdir_p("udev/links/disk\\x2fby-uuid\\x2fx");
	fs_symlink_at("0:/dev/vda", "udev/links/disk\\x2fby-uuid\\x2fx", "b253:0");
	fs_symlink_at("0:/dev/vda", "udev/links/mapper\\x2fluks-x", "b253:0");
	fs_mkdir_p("udev/tags/systemd");
	fs_write_file("udev/tags/systemd/b253:0", "");
	fs_mkdir_p("udev/static_node-tags/uaccess");
	fs_write_file("udev/static_node-tags/uaccess/x", "");
	fs_mkdir_p("udev/watch");
	/* a symlink in data is not followed */
	fs_write_file("outside", "keep me");
	fs_symlink_at("../../outside", "udev/data", "n1");
	ATF_REQUIRE_EQ(udev_db_cleanup("udev"), 0);
	ATF_CHECK(access("udev/data/b254:0", F_OK) == 0);
	ATF_CHECK(faccessat(AT_FDCWD, "udev/links/mapper\\x2fluks-x/b254:0", F_OK,
			    AT_SYMLINK_NOFOLLOW) == 0);
	ATF_CHECK(faccessat(AT_FDCWD, "udev/links/mapper\\x2fluks-x/b253:0", F_OK,
			    AT_SYMLINK_NOFOLLOW) != 0);
	ATF_CHECK(access("udev/data/b253:0", F_OK) != 0);
	ATF_CHECK(access("udev/links/disk\\x2fby-uuid\\x2fx", F_OK) != 0);
	ATF_CHECK(access("udev/tags/systemd", F_OK) != 0);
	ATF_CHECK(access("udev/static_node-tags/uaccess", F_OK) != 0);
	ATF_CHECK(faccessat(AT_FDCWD, "udev/data/n1", F_OK, AT_SYMLINK_NOFOLLOW) != 0);
	ATF_CHECK(access("outside", F_OK) == 0);
	ATF_CHECK(access("udev/watch", F_OK) == 0); /* udevd's own, left alone */
	ATF_CHECK_EQ(udev_db_cleanup("no-such-dir"), 0);
	udev_db_close(&db);
	fx_fini(&f);
}

/* systemd 252's device_get_device_id for each kind of device, and what it refuses */
ATF_TC_WITHOUT_HEAD(device_ids_as_sd_device);
ATF_TC_BODY(device_ids_as_sd_device, tc)
{
	static const struct {
		struct udev_db_device d;
		const char *id; /* NULL: -EINVAL */
	} v[] = {
		{ { "block", "/devices/virtual/block/dm-0", true, 254, 0, 0 }, "b254:0" },
		{ { "mem", "/devices/virtual/mem/null", true, 1, 3, 0 }, "c1:3" },
		/* a device number wins over an index; major 0 is none */
		{ { "net", "/devices/virtual/net/lo", true, 10, 1, 1 }, "c10:1" },
		{ { "net", "/devices/virtual/net/lo", false, 0, 0, 1 }, "n1" },
		{ { "pci", "/devices/pci0000:00/0000:00:01.0", false, 0, 0, 0 }, "+pci:0000:00:01.0" },
		{ { "block", "/devices/x/cciss!c0d0", true, 0, 0, 0 }, "+block:cciss!c0d0" },
		{ { "drivers", "/bus/pci/drivers/e1000", false, 0, 0, 0 }, "+drivers:pci:e1000" },
		{ { "module", "/module/loop", false, 0, 0, 0 }, "+module:loop" },
		{ { "drivers", "/drivers/e1000", false, 0, 0, 0 }, NULL },
		{ { "drivers", "/bus/pci/e1000", false, 0, 0, 0 }, NULL },
		{ { "", "/devices/virtual/mem/null", true, 1, 3, 0 }, NULL },
		{ { NULL, "/devices/virtual/mem/null", true, 1, 3, 0 }, NULL },
		{ { "pci", "/devices/", false, 0, 0, 0 }, NULL },
		{ { "pci", "/devices/..", false, 0, 0, 0 }, NULL },
		{ { "pci", "nopath", false, 0, 0, 0 }, NULL },
		{ { "p/ci", "/devices/x", false, 0, 0, 0 }, NULL },
	};
	char id[UDEV_DB_ID_MAX], path[400];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int r = udev_db_device_id(&v[i].d, id);

		if (v[i].id) {
			ATF_CHECK_EQ_MSG(r, 0, "%zu", i);
			ATF_CHECK_STREQ_MSG(id, v[i].id, "%zu", i);
		} else {
			ATF_CHECK_EQ_MSG(r, -EINVAL, "%zu: %s", i, r == 0 ? id : "");
		}
	}
	/* one file name at most: NAME_MAX in all */
	memset(path, 'a', sizeof(path));
	memcpy(path, "/devices/", 9);
	path[9 + 250] = '\0';
	ATF_CHECK_EQ(udev_db_device_id(&(struct udev_db_device){ .subsystem = "pci", .devpath = path }, id), 0);
	ATF_CHECK_EQ(strlen(id), 255u);
	path[9 + 250] = 'a';
	path[9 + 251] = '\0';
	ATF_CHECK_EQ(udev_db_device_id(&(struct udev_db_device){ .subsystem = "pci", .devpath = path }, id),
		     -EINVAL);
}

/*
 * Nothing set: udevd writes an empty file for a device with a number or an
 * index (it is initialized), and none for any other, removing what was there.
 */
ATF_TC_WITHOUT_HEAD(no_info_as_udevd);
ATF_TC_BODY(no_info_as_udevd, tc)
{
	struct props props = PROPS_INIT;
	struct strv tags = STRV_INIT;
	struct udev_db db;
	struct udev_db_entry mem = { .major = 1, .minor = 3, .usec_initialized = 5 };
	struct udev_db_entry lo = { .id = "n1", .ifindex = 1, .usec_initialized = 5 };
	struct udev_db_entry pci = { .id = "+pci:0000:00:01.0", .usec_initialized = 5,
				     .props = &props, .tags = &tags };
	struct udev_db_entry pci2 = pci;
	char buf[256];

	ATF_CHECK(!udev_db_has_info(&mem));
	ATF_REQUIRE_EQ(udev_db_open(&db, "udev", NULL), 0);
	ATF_REQUIRE_EQ(udev_db_write(&db, &mem, NULL), 0);
	ATF_REQUIRE_EQ(udev_db_write(&db, &lo, NULL), 0);
	read_file("udev/data/c1:3", buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "");
	read_file("udev/data/n1", buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "");
	/* a property, then a tag: lines; then neither: the file goes, with the tag's index */
	ATF_REQUIRE(props_set(&props, "ID_VENDOR_FROM_DATABASE", "x", true) == 0);
	ATF_CHECK(udev_db_has_info(&pci));
	ATF_REQUIRE_EQ(udev_db_write(&db, &pci, NULL), 0);
	read_file("udev/data/+pci:0000:00:01.0", buf, sizeof(buf));
	ATF_CHECK_STREQ(buf, "I:5\nE:ID_VENDOR_FROM_DATABASE=x\nV:1\n");
	props_clear(&props);
	ATF_REQUIRE(strv_add(&tags, "systemd") == 1);
	ATF_REQUIRE_EQ(udev_db_write(&db, &pci, NULL), 0);
	ATF_CHECK(access("udev/tags/systemd/+pci:0000:00:01.0", F_OK) == 0);
	pci2.tags = NULL;
	ATF_CHECK(!udev_db_has_info(&pci2));
	ATF_REQUIRE_EQ(udev_db_write(&db, &pci2, &pci), 0);
	ATF_CHECK(access("udev/data/+pci:0000:00:01.0", F_OK) != 0);
	ATF_CHECK(access("udev/tags/systemd", F_OK) != 0);
	/* a property the event does not keep (db false) is no info */
	ATF_REQUIRE(props_set(&props, "DEVNAME", "/dev/x", false) == 0);
	ATF_CHECK(!udev_db_has_info(&pci2));
	udev_db_close(&db);
	props_clear(&props);
	strv_clear(&tags);
}

/* An id as long as a file name may be: written through a temporary name that fits too. */
ATF_TC_WITHOUT_HEAD(longest_id_written);
ATF_TC_BODY(longest_id_written, tc)
{
	char id[UDEV_DB_ID_MAX], path[UDEV_DB_ID_MAX + 64];
	struct strv tags = STRV_INIT;
	struct udev_db_entry e = { .id = id, .tags = &tags };
	struct udev_db db;

	memset(id, 'x', 255);
	id[0] = '+';
	id[255] = '\0';
	ATF_REQUIRE(strv_add(&tags, "systemd") == 1);
	ATF_REQUIRE_EQ(udev_db_open(&db, "udev", NULL), 0);
	ATF_REQUIRE_EQ(udev_db_write(&db, &e, NULL), 0);
	snprintf(path, sizeof(path), "udev/data/%s", id);
	ATF_CHECK(access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "udev/tags/systemd/%s", id);
	ATF_CHECK(access(path, F_OK) == 0);
	ATF_REQUIRE_EQ(udev_db_remove(&db, &e), 0);
	ATF_CHECK(access(path, F_OK) != 0);
	udev_db_close(&db);
	strv_clear(&tags);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, data_lines_as_udev);
	ATF_TP_ADD_TC(tp, carriage_return_forges_no_line);
	ATF_TP_ADD_TC(tp, write_logs_refused_field);
	ATF_TP_ADD_TC(tp, link_escaping);
	ATF_TP_ADD_TC(tp, write_replace_remove);
	ATF_TP_ADD_TC(tp, cleanup_keeps_persistent);
	ATF_TP_ADD_TC(tp, device_ids_as_sd_device);
	ATF_TP_ADD_TC(tp, no_info_as_udevd);
	ATF_TP_ADD_TC(tp, longest_id_written);
	return atf_no_error();
}
