/* SPDX-License-Identifier: MIT */
/* The permissions file: what is accepted, what is reported, what wins. */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "handlers/perms.h"

/* A logger writing to ./log, so messages can be checked. */
static void log_to_file(struct logger *log)
{
	log_init(log, LOG_TARGET_STDERR, LOG_DEBUG);
	log->fd = open("log", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	ATF_REQUIRE(log->fd >= 0);
}

static char *read_log(void)
{
	static char buf[1 << 16];
	int fd = open("log", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ATF_REQUIRE(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	ATF_REQUIRE(n >= 0);
	buf[n] = '\0';
	close(fd);
	return buf;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

static int parse(struct perms *r, const char *text, struct logger *log)
{
	return perms_parse(r, text, strlen(text), "rules", log);
}

/* A group other than root's, for checking name resolution; falls back to root. */
static const struct group *some_group(void)
{
	const struct group *g = getgrnam("disk");

	return g != NULL ? g : getgrnam("root");
}

ATF_TC_WITHOUT_HEAD(good_file);
ATF_TC_BODY(good_file, tc)
{
	struct logger log;
	struct perms r;
	const struct group *g = some_group();
	char text[256];

	ATF_REQUIRE(g != NULL);
	snprintf(text, sizeof(text),
		 "block sd* root %s 0660\n"
		 "*\ttty*\t-\t-\t0620\n"
		 "input event* 0 - -\n", g->gr_name);
	log_to_file(&log);
	ATF_REQUIRE_EQ(parse(&r, text, &log), 0);
	ATF_CHECK_EQ(r.errors, 0);
	ATF_REQUIRE_EQ(r.n, 3);
	ATF_CHECK_STREQ(r.v[0].subsystem, "block");
	ATF_CHECK_STREQ(r.v[0].glob, "sd*");
	ATF_CHECK(r.v[0].has_uid && r.v[0].uid == 0);
	ATF_CHECK(r.v[0].has_gid && r.v[0].gid == g->gr_gid);
	ATF_CHECK(r.v[0].has_mode && r.v[0].mode == 0660);
	ATF_CHECK_EQ(r.v[0].line, 1);
	ATF_CHECK(!r.v[1].has_uid && !r.v[1].has_gid && r.v[1].mode == 0620);
	ATF_CHECK(r.v[2].has_uid && !r.v[2].has_gid && !r.v[2].has_mode);
	ATF_CHECK_EQ(r.v[2].line, 3);

	ATF_CHECK_EQ(perms_match(&r, "block", "sda1"), &r.v[0]);
	ATF_CHECK_EQ(perms_match(&r, "usb", "sda1"), NULL);
	ATF_CHECK_EQ(perms_match(&r, "tty", "ttyS0"), &r.v[1]);
	ATF_CHECK_EQ(perms_match(&r, "block", "ttyS0"), &r.v[1]);
	ATF_CHECK_EQ(perms_match(&r, "block", "loop0"), NULL);
	ATF_CHECK_STREQ(read_log(), "");
	perms_free(&r);
	ATF_CHECK_EQ(r.n, 0);
	ATF_CHECK_EQ(r.v, NULL);
}

/* Every kind of bad line is reported with its line number; the good lines stay. */
ATF_TC_WITHOUT_HEAD(bad_lines);
ATF_TC_BODY(bad_lines, tc)
{
	static const struct {
		const char *line;
		const char *msg;
	} bad[] = {
		{ "block sd*", "rules:2: 2 fields: " },
		{ "block sd* root root 0660 extra", "rules:3: too many fields: " },
		{ "block sd* nosuchuser-initdev root 0660", "rules:4: unknown user 'nosuchuser-initdev'" },
		{ "block sd* root dsk 0660", "rules:5: unknown group 'dsk'" },
		{ "block sd* ro:ot root 0660", "rules:6: user 'ro:ot': not a valid name" },
		{ "block sd* root root 0680", "rules:7: mode '0680': not an octal number" },
		{ "block sd* root root 17777", "rules:8: mode '17777': larger than 07777" },
		{ "bl/ock sd* root root 0660", "rules:9: subsystem 'bl/ock': " },
		{ "block /dev/sd* root root 0660", "rules:10: glob '/dev/sd*': " },
		{ "block sd\x01* root root 0660", "rules:11: field 2 'sd\\x01*': control character" },
		{ "block sd* 4294967295 root 0660", "rules:12: user '4294967295': " },
		{ "block sd* root root -1", "rules:13: mode '-1': " },
	};
	const size_t nbad = sizeof(bad) / sizeof(bad[0]);
	char text[2048] = "block sd* root root 0600\n";
	struct logger log;
	struct perms r;
	const char *out;

	for (size_t i = 0; i < nbad; i++) {
		strcat(text, bad[i].line);
		strcat(text, "\n");
	}
	strcat(text, "block vd* 0 0 0640\n");
	log_to_file(&log);
	ATF_REQUIRE_EQ(parse(&r, text, &log), 0);
	ATF_CHECK_EQ(r.errors, nbad);
	ATF_REQUIRE_EQ(r.n, 2);
	ATF_CHECK_STREQ(r.v[0].glob, "sd*");
	ATF_CHECK_STREQ(r.v[1].glob, "vd*");
	ATF_CHECK_EQ(r.v[1].line, nbad + 2);
	out = read_log();
	ATF_CHECK_EQ(count_lines(out), nbad);
	for (size_t i = 0; i < nbad; i++)
		if (strstr(out, bad[i].msg) == NULL)
			atf_tc_fail_nonfatal("no \"%s\" in log:\n%s", bad[i].msg, out);
	perms_free(&r);
}

/* A NUL inside the text is a bad line, not the end of the file. */
ATF_TC_WITHOUT_HEAD(nul_byte);
ATF_TC_BODY(nul_byte, tc)
{
	static const char text[] = "block sd* root root 0600\nblock x\0y root root 0600\n"
				   "block vd* root root 0600\n";
	struct logger log;
	struct perms r;

	log_to_file(&log);
	ATF_REQUIRE_EQ(perms_parse(&r, text, sizeof(text) - 1, "f", &log), 0);
	ATF_CHECK_EQ(r.n, 2);
	ATF_CHECK_EQ(r.errors, 1);
	ATF_CHECK(strstr(read_log(), "f:2: NUL byte at column 8") != NULL);
	perms_free(&r);
}

ATF_TC_WITHOUT_HEAD(comments_and_blank_lines);
ATF_TC_BODY(comments_and_blank_lines, tc)
{
	static const char text[] =
		"# a comment\n"
		"\n"
		"   \t  \n"
		"  # indented comment with fields a b c d e f\n"
		"block sd* root root 0660 # trailing comment\n"
		"block\tvd*\troot\troot\t0640\r\n"
		"block nv#me root root 0600\n"
		"block xvda root root 0600"; /* no final newline */
	struct logger log;
	struct perms r;

	log_to_file(&log);
	ATF_REQUIRE_EQ(parse(&r, text, &log), 0);
	ATF_CHECK_EQ(r.errors, 0);
	ATF_REQUIRE_EQ(r.n, 4);
	ATF_CHECK_EQ(r.v[0].line, 5);
	ATF_CHECK_EQ(r.v[0].mode, 0660);
	ATF_CHECK_EQ(r.v[1].mode, 0640); /* CRLF is accepted */
	ATF_CHECK_STREQ(r.v[2].glob, "nv#me"); /* '#' inside a field is a byte */
	ATF_CHECK_STREQ(r.v[3].glob, "xvda");
	ATF_CHECK_EQ(r.v[3].line, 8);
	ATF_CHECK_STREQ(read_log(), "");
	perms_free(&r);
}

ATF_TC_WITHOUT_HEAD(last_match_wins);
ATF_TC_BODY(last_match_wins, tc)
{
	static const char text[] =
		"* * - - 0600\n"
		"block sd* - - 0660\n"
		"block sda - - 0640\n"
		"tty * - - 0620\n";
	struct perms r;

	ATF_REQUIRE_EQ(parse(&r, text, NULL), 0);
	ATF_REQUIRE_EQ(r.n, 4);
	ATF_CHECK_EQ(perms_match(&r, "block", "sda")->mode, 0640);
	ATF_CHECK_EQ(perms_match(&r, "block", "sdb")->mode, 0660);
	ATF_CHECK_EQ(perms_match(&r, "block", "vda")->mode, 0600);
	ATF_CHECK_EQ(perms_match(&r, "tty", "sda")->mode, 0620);
	ATF_CHECK_EQ(perms_match(&r, NULL, "sda")->mode, 0600);
	perms_free(&r);
}

ATF_TC_WITHOUT_HEAD(numeric_ids);
ATF_TC_BODY(numeric_ids, tc)
{
	static const char text[] =
		"block a 1234 5678 0\n"
		"block b 4294967294 0 07777\n"
		"block c - 42 -\n";
	struct perms r;

	ATF_REQUIRE_EQ(parse(&r, text, NULL), 0);
	ATF_CHECK_EQ(r.errors, 0);
	ATF_REQUIRE_EQ(r.n, 3);
	ATF_CHECK(r.v[0].has_uid && r.v[0].uid == 1234);
	ATF_CHECK(r.v[0].has_gid && r.v[0].gid == 5678);
	ATF_CHECK(r.v[0].has_mode && r.v[0].mode == 0);
	ATF_CHECK_EQ(r.v[1].uid, 4294967294u);
	ATF_CHECK_EQ(r.v[1].mode, 07777);
	ATF_CHECK(!r.v[2].has_uid && r.v[2].has_gid && r.v[2].gid == 42 && !r.v[2].has_mode);
	perms_free(&r);
}

/* FNM_PATHNAME: wildcards never cross a '/'. */
ATF_TC_WITHOUT_HEAD(glob_pathname);
ATF_TC_BODY(glob_pathname, tc)
{
	static const char text[] =
		"* * - - 0601\n"
		"* bus/usb/* - - 0602\n"
		"* input/event? - - 0603\n"
		"* dri/card[0-9] - - 0604\n";
	struct perms r;

	ATF_REQUIRE_EQ(parse(&r, text, NULL), 0);
	ATF_REQUIRE_EQ(r.n, 4);
	ATF_CHECK_EQ(perms_match(&r, "x", "null")->mode, 0601);
	ATF_CHECK_EQ(perms_match(&r, "x", "input/mice"), NULL);
	ATF_CHECK_EQ(perms_match(&r, "x", "bus/usb/001")->mode, 0602);
	ATF_CHECK_EQ(perms_match(&r, "x", "bus/usb/001/002"), NULL);
	ATF_CHECK_EQ(perms_match(&r, "x", "input/event3")->mode, 0603);
	ATF_CHECK_EQ(perms_match(&r, "x", "input/event10"), NULL);
	ATF_CHECK_EQ(perms_match(&r, "x", "dri/card1")->mode, 0604);
	ATF_CHECK_EQ(perms_match(&r, "x", "dri/cardX"), NULL);
	perms_free(&r);
}

/* Lines of PERMS_LINE_MAX - 1 bytes are fine; one more byte is an error. */
ATF_TC_WITHOUT_HEAD(over_long_line);
ATF_TC_BODY(over_long_line, tc)
{
	static char text[4 * PERMS_LINE_MAX];
	const char *rule = "block sd* root root 0660";
	struct logger log;
	struct perms r;
	char *p = text;

	for (int len = PERMS_LINE_MAX - 1; len <= PERMS_LINE_MAX; len++) {
		memset(p, ' ', (size_t)len);
		memcpy(p, rule, strlen(rule));
		p += len;
		*p++ = '\n';
	}
	strcpy(p, "block vd* root root 0640\n");
	log_to_file(&log);
	ATF_REQUIRE_EQ(parse(&r, text, &log), 0);
	ATF_CHECK_EQ(r.n, 2);
	ATF_CHECK_EQ(r.errors, 1);
	ATF_CHECK_EQ(r.v[1].line, 3);
	ATF_CHECK(strstr(read_log(), "rules:2: line too long: 512 bytes, at most 511") != NULL);
	perms_free(&r);
}

/* Past PERMS_MAX rules the rest is counted as errors and reported once. */
ATF_TC_WITHOUT_HEAD(too_many_rules);
ATF_TC_BODY(too_many_rules, tc)
{
	const size_t extra = 5, total = PERMS_MAX + extra;
	char *text = malloc(total * 32);
	size_t len = 0;
	struct logger log;
	struct perms r;
	char msg[128];

	ATF_REQUIRE(text != NULL);
	for (size_t i = 0; i < total; i++)
		len += (size_t)sprintf(text + len, "block d%zu 0 0 0600\n", i);
	log_to_file(&log);
	ATF_REQUIRE_EQ(perms_parse(&r, text, len, "rules", &log), 0);
	ATF_CHECK_EQ(r.n, PERMS_MAX);
	ATF_CHECK_EQ(r.errors, extra);
	ATF_CHECK_STREQ(r.v[PERMS_MAX - 1].glob, "d1023");
	snprintf(msg, sizeof(msg), "rules:%d: too many rules", PERMS_MAX + 1);
	ATF_CHECK(strstr(read_log(), msg) != NULL);
	ATF_CHECK_EQ(count_lines(read_log()), 1);
	perms_free(&r);
	free(text);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

ATF_TC_WITHOUT_HEAD(load_file);
ATF_TC_BODY(load_file, tc)
{
	struct logger log;
	struct perms r;

	log_to_file(&log);
	ATF_CHECK_EQ(perms_load(&r, "missing", &log), 0);
	ATF_CHECK_EQ(r.n, 0);

	write_file("rules.conf", "block sd* 0 0 0660\nblock x\n");
	ATF_REQUIRE_EQ(perms_load(&r, "rules.conf", &log), 0);
	ATF_CHECK_EQ(r.n, 1);
	ATF_CHECK_EQ(r.errors, 1);
	ATF_CHECK(strstr(read_log(), "rules.conf:2: 2 fields") != NULL);
	perms_free(&r);

	ATF_REQUIRE_EQ(mkdir("dir", 0755), 0);
	ATF_CHECK_EQ(perms_load(&r, "dir", &log), -EINVAL);
	/* a FIFO must be refused, not waited on */
	ATF_REQUIRE_EQ(mkfifo("fifo", 0600), 0);
	ATF_CHECK_EQ(perms_load(&r, "fifo", &log), -EINVAL);
	ATF_CHECK_EQ(r.n, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, good_file);
	ATF_TP_ADD_TC(tp, bad_lines);
	ATF_TP_ADD_TC(tp, nul_byte);
	ATF_TP_ADD_TC(tp, comments_and_blank_lines);
	ATF_TP_ADD_TC(tp, last_match_wins);
	ATF_TP_ADD_TC(tp, numeric_ids);
	ATF_TP_ADD_TC(tp, glob_pathname);
	ATF_TP_ADD_TC(tp, over_long_line);
	ATF_TP_ADD_TC(tp, too_many_rules);
	ATF_TP_ADD_TC(tp, load_file);
	return atf_no_error();
}
