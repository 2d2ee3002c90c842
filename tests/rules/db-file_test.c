/* SPDX-License-Identifier: MIT */
/*
 * The reader of udev's database files: lines as sd-device splits them
 * (a '\r' ends a line too: no value read holds one), the keys read and
 * those skipped, bounds (an oversized value left out, an oversized file
 * refused), ids from sysfs, and records found by devpath for IMPORT{parent}.
 */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/db-file.h"
#include "rules/db.h"
#include "sysfs-fixture.h"

#define DISK "/devices/pci0000:00/0000:00:01.0/block/vda"

static int parse(const char *text, struct rules_record *rec)
{
	return rules_db_file_parse(text, strlen(text), rec);
}

ATF_TC_WITHOUT_HEAD(lines_read);
ATF_TC_BODY(lines_read, tc)
{
	struct rules_record rec;

	ATF_REQUIRE_EQ(parse("S:disk/by-id/x\nS:mapper/a\nL:-10\nI:123456\n"
			     "E:ID_FS_TYPE=ext4\nE:DM_NAME=a b\nG:systemd\nQ:systemd\n"
			     "W:3\nV:1\n",
			     &rec),
		       0);
	ATF_REQUIRE_EQ(rec.links.n, 2);
	/* links as udev's sd-device holds them: with "/dev/" */
	ATF_CHECK_STREQ(rec.links.v[0], "/dev/disk/by-id/x");
	ATF_CHECK_STREQ(rec.links.v[1], "/dev/mapper/a");
	ATF_CHECK_EQ(rec.link_priority, -10);
	ATF_CHECK_EQ(rec.usec_initialized, 123456);
	ATF_CHECK_STREQ(props_get(&rec.props, "ID_FS_TYPE"), "ext4");
	ATF_CHECK_STREQ(props_get(&rec.props, "DM_NAME"), "a b");
	ATF_CHECK(rec.props.v[0].db);
	ATF_REQUIRE_EQ(rec.tags.n, 1);
	ATF_CHECK_STREQ(rec.tags.v[0], "systemd");
	rules_record_free(&rec);
}

/* issue 21's forged line: a '\r' inside a value ends it, as in systemd's reader */
ATF_TC_WITHOUT_HEAD(line_ends);
ATF_TC_BODY(line_ends, tc)
{
	struct rules_record rec;

	ATF_REQUIRE_EQ(parse("E:ID_FS_VERSION=\rS:vda\nE:\nE:B=2\r\nXY:z\nL:x\n:\nS:last", &rec),
		       0);
	ATF_CHECK_STREQ(props_get(&rec.props, "ID_FS_VERSION"), "");
	/* what follows the '\r' is a line of its own, read as sd-device reads it */
	ATF_REQUIRE_EQ(rec.links.n, 1);
	ATF_CHECK_STREQ(rec.links.v[0], "/dev/vda");
	/* "E:" then a line end is empty (not the start of a value swallowing "E:B=2") */
	ATF_CHECK_STREQ(props_get(&rec.props, "B"), "2");
	ATF_CHECK_EQ(rec.props.n, 2);
	ATF_CHECK_EQ(rec.link_priority, 0); /* "L:x" is not a number */
	for (size_t i = 0; i < rec.props.n; i++)
		ATF_CHECK(!strpbrk(rec.props.v[i].key, "\r\n") &&
			  !strpbrk(rec.props.v[i].value, "\r\n"));
	rules_record_free(&rec);
}

ATF_TC_WITHOUT_HEAD(bounds);
ATF_TC_BODY(bounds, tc)
{
	size_t n = PROPS_VALUE_MAX + 64;
	char *text = malloc(n + 32);
	struct rules_record rec;
	int fd;

	ATF_REQUIRE(text != NULL);
	strcpy(text, "E:BIG=");
	memset(text + 6, 'x', n);
	strcpy(text + 6 + n, "\nE:SMALL=1\n");
	ATF_REQUIRE_EQ(parse(text, &rec), 0);
	ATF_CHECK(props_get(&rec.props, "BIG") == NULL);
	ATF_CHECK_STREQ(props_get(&rec.props, "SMALL"), "1");
	rules_record_free(&rec);
	free(text);

	/* a file past RULES_DB_FILE_MAX is refused whole; a symlink is not followed */
	ATF_REQUIRE_EQ(mkdir("data", 0755), 0);
	fd = open("data/b8:0", O_WRONLY | O_CREAT, 0644);
	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(ftruncate(fd, RULES_DB_FILE_MAX + 1), 0);
	close(fd);
	ATF_REQUIRE_EQ(symlink("b8:0", "data/b8:1"), 0);
	fd = open("data", O_RDONLY | O_DIRECTORY);
	ATF_REQUIRE(fd >= 0);
	ATF_CHECK_EQ(rules_db_file_read(fd, "b8:0", &rec), -EFBIG);
	ATF_CHECK_EQ(rules_db_file_read(fd, "b8:1", &rec), -ELOOP);
	ATF_CHECK_EQ(rules_db_file_read(fd, "../data/b8:0", &rec), -EINVAL);
	ATF_CHECK_EQ(rules_db_file_read(fd, "b9:9", &rec), -ENOENT);
	close(fd);
}

ATF_TC_WITHOUT_HEAD(ids_and_parents);
ATF_TC_BODY(ids_and_parents, tc)
{
	struct sysdev_root sys;
	struct rules_record rec;
	struct rules_db_dir db;
	char id[RULES_DB_ID_MAX];

	fx_device("sys", "/devices/pci0000:00/0000:00:01.0", "pci", NULL);
	fx_device("sys", DISK, "block", "disk");
	fx_text("sys", DISK "/uevent", "MAJOR=254\nMINOR=0\nDEVNAME=vda\n");
	/* the dev attribute is not what sd-device reads (udev's suite has one that disagrees) */
	fx_text("sys", DISK "/dev", "711:0\n");
	fx_device("sys", "/devices/virtual/mem/null", "mem", NULL);
	fx_text("sys", "/devices/virtual/mem/null/uevent", "MAJOR=1\nMINOR=3\n");
	fx_device("sys", "/devices/virtual/net/lo", "net", NULL);
	fx_text("sys", "/devices/virtual/net/lo/uevent", "INTERFACE=lo\nIFINDEX=1\n");
	fx_device("sys", "/devices/virtual/net/bad", "net", NULL);
	fx_text("sys", "/devices/virtual/net/bad/uevent", "MAJOR=1\nMINOR=x\nIFINDEX=-1\n");
	ATF_REQUIRE_EQ(sysdev_root_open(&sys, "sys"), 0);
	ATF_REQUIRE_EQ(rules_db_file_id(&sys, DISK, id, sizeof(id)), 0);
	ATF_CHECK_STREQ(id, "b254:0");
	ATF_REQUIRE_EQ(rules_db_file_id(&sys, "/devices/virtual/mem/null", id, sizeof(id)), 0);
	ATF_CHECK_STREQ(id, "c1:3");
	ATF_REQUIRE_EQ(rules_db_file_id(&sys, "/devices/virtual/net/lo", id, sizeof(id)), 0);
	ATF_CHECK_STREQ(id, "n1");
	ATF_REQUIRE_EQ(rules_db_file_id(&sys, "/devices/pci0000:00/0000:00:01.0", id, sizeof(id)), 0);
	ATF_CHECK_STREQ(id, "+pci:0000:00:01.0");
	/* a MINOR or IFINDEX that is not digits gives neither */
	ATF_REQUIRE_EQ(rules_db_file_id(&sys, "/devices/virtual/net/bad", id, sizeof(id)), 0);
	ATF_CHECK_STREQ(id, "+net:bad");
	ATF_CHECK_EQ(rules_db_file_id(&sys, "/devices/none", id, sizeof(id)), -ENOENT);
	ATF_CHECK_EQ(rules_db_file_id(&sys, DISK, id, 4), -ENAMETOOLONG);

	ATF_REQUIRE_EQ(mkdir("data", 0755), 0);
	fx_text(".", "data/+pci:0000:00:01.0", "E:PARENT_KEY=right\nV:1\n");
	db = (struct rules_db_dir){ .dirfd = open("data", O_RDONLY | O_DIRECTORY), .sys = &sys };
	ATF_REQUIRE(db.dirfd >= 0);
	ATF_REQUIRE(rules_db_dir_get(&db, "/devices/pci0000:00/0000:00:01.0", &rec));
	ATF_CHECK_STREQ(props_get(&rec.props, "PARENT_KEY"), "right");
	/* kept in the engine's record store under its devpath, for IMPORT{parent} */
	{
		struct rules_db mem;
		struct rules_record back;

		rules_db_init(&mem);
		ATF_REQUIRE_EQ(rules_db_put(&mem, "/devices/pci0000:00/0000:00:01.0", &rec), 0);
		ATF_REQUIRE(rules_db_get(&mem, "/devices/pci0000:00/0000:00:01.0", &back));
		ATF_CHECK_STREQ(props_get(&back.props, "PARENT_KEY"), "right");
		rules_record_free(&back);
		rules_db_fini(&mem);
	}
	rules_record_free(&rec);
	ATF_CHECK(!rules_db_dir_get(&db, DISK, &rec));
	close(db.dirfd);
	sysdev_root_close(&sys);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, lines_read);
	ATF_TP_ADD_TC(tp, line_ends);
	ATF_TP_ADD_TC(tp, bounds);
	ATF_TP_ADD_TC(tp, ids_and_parents);
	return atf_no_error();
}
