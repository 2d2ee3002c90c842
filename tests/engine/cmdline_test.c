/* SPDX-License-Identifier: MIT */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/cmdline.h"

/* A logger whose output lands in an unlinked file we can read back. */
struct capture {
	struct logger log;
	char text[16384];
};

static void capture_open(struct capture *cap)
{
	char name[] = "log.XXXXXX";

	log_init(&cap->log, LOG_TARGET_STDERR, LOG_DEBUG);
	cap->log.fd = mkstemp(name);
	ATF_REQUIRE(cap->log.fd >= 0);
	ATF_REQUIRE_EQ(unlink(name), 0);
	cap->text[0] = '\0';
}

/* Everything logged so far, NUL-terminated, in cap->text. */
static const char *capture_read(struct capture *cap)
{
	ssize_t n = pread(cap->log.fd, cap->text, sizeof(cap->text) - 1, 0);

	ATF_REQUIRE(n >= 0);
	cap->text[n] = '\0';
	return cap->text;
}

static void capture_close(struct capture *cap)
{
	close(cap->log.fd);
}

static unsigned int count_of(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

static void parse_str(struct cmdline *c, const char *text, const struct logger *log)
{
	ATF_REQUIRE_EQ(cmdline_parse(c, text, strlen(text), log), 0);
}

/* Parse text into a fresh cmdline and return the log output. */
static const char *parse_logged(struct cmdline *c, struct capture *cap, const char *text)
{
	cmdline_init(c);
	capture_open(cap);
	parse_str(c, text, &cap->log);
	return capture_read(cap);
}

static void check_list(char *const *list, size_t n, const char *const *want, size_t nwant)
{
	ATF_REQUIRE_EQ(n, nwant);
	for (size_t i = 0; i < n; i++)
		ATF_CHECK_STREQ(list[i], want[i]);
}

/* rd.initdev.broadcast: unset (-1: the engine decides by /etc/initrd-release), 0 or 1 */
ATF_TC_WITHOUT_HEAD(broadcast_tristate);
ATF_TC_BODY(broadcast_tristate, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	ATF_CHECK_EQ(c.broadcast, -1);
	parse_str(&c, "rd.initdev.broadcast=1", NULL);
	ATF_CHECK_EQ(c.broadcast, 1);
	cmdline_free(&c);
	parse_str(&c, "rd.initdev.broadcast=0", NULL);
	ATF_CHECK_EQ(c.broadcast, 0);
	cmdline_free(&c);
	parse_str(&c, "rd.initdev.broadcast=2", NULL);
	ATF_CHECK_EQ(c.broadcast, -1);
	cmdline_free(&c);
}

ATF_TC_WITHOUT_HEAD(defaults);
ATF_TC_BODY(defaults, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	parse_str(&c, "", NULL);
	ATF_CHECK(!c.debug);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	ATF_CHECK_EQ(c.workers, 0);
	ATF_CHECK_EQ(c.handoff_timeout_sec, -1);
	ATF_CHECK_EQ(c.nblacklist, 0);
	ATF_CHECK_EQ(c.npre, 0);
	ATF_CHECK_EQ(cmdline_parse(&c, NULL, 0, NULL), 0);
	ATF_CHECK(!cmdline_blacklisted(&c, "floppy"));
	cmdline_free(&c);
}

ATF_TC_WITHOUT_HEAD(each_key_valid);
ATF_TC_BODY(each_key_valid, tc)
{
	struct capture cap;
	struct cmdline c;
	const char *out = parse_logged(&c, &cap,
		"rd.initdev.debug rd.initdev.timeout=30 rd.initdev.workers=3 "
		"rd.initdev.handoff_timeout=5 modprobe.blacklist=floppy "
		"rd.driver.blacklist=nouveau rd.driver.pre=virtio_pci");

	ATF_CHECK_STREQ(out, "");
	ATF_CHECK(c.debug);
	ATF_CHECK_EQ(c.timeout_sec, 30);
	ATF_CHECK_EQ(c.workers, 3);
	ATF_CHECK_EQ(c.handoff_timeout_sec, 5);
	check_list(c.blacklist, c.nblacklist, (const char *[]){ "floppy", "nouveau" }, 2);
	check_list(c.pre, c.npre, (const char *[]){ "virtio_pci" }, 1);
	ATF_CHECK(cmdline_blacklisted(&c, "floppy"));
	ATF_CHECK(cmdline_blacklisted(&c, "nouveau"));
	ATF_CHECK(!cmdline_blacklisted(&c, "virtio_pci"));
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(range_edges);
ATF_TC_BODY(range_edges, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	parse_str(&c, "rd.initdev.timeout=0 rd.initdev.workers=1 "
		      "rd.initdev.handoff_timeout=86400", NULL);
	ATF_CHECK_EQ(c.timeout_sec, 0);
	ATF_CHECK_EQ(c.workers, 1);
	ATF_CHECK_EQ(c.handoff_timeout_sec, CMDLINE_TIMEOUT_MAX);
	parse_str(&c, "rd.initdev.timeout=86400 rd.initdev.workers=64 "
		      "rd.initdev.handoff_timeout=0", NULL);
	ATF_CHECK_EQ(c.timeout_sec, CMDLINE_TIMEOUT_MAX);
	ATF_CHECK_EQ(c.workers, CMDLINE_WORKERS_MAX);
	ATF_CHECK_EQ(c.handoff_timeout_sec, 0);
	cmdline_free(&c);
}

ATF_TC_WITHOUT_HEAD(debug_values);
ATF_TC_BODY(debug_values, tc)
{
	struct capture cap;
	struct cmdline c;

	cmdline_init(&c);
	parse_str(&c, "rd.initdev.debug=1", NULL);
	ATF_CHECK(c.debug);
	parse_str(&c, "rd.initdev.debug=0", NULL);
	ATF_CHECK(!c.debug);
	parse_str(&c, "rd.initdev.debug=yes", NULL);
	ATF_CHECK(c.debug);
	parse_str(&c, "rd.initdev.debug=no", NULL);
	ATF_CHECK(!c.debug);
	/* the last one wins */
	parse_str(&c, "rd.initdev.debug rd.initdev.debug=no", NULL);
	ATF_CHECK(!c.debug);
	cmdline_free(&c);

	ATF_CHECK(strstr(parse_logged(&c, &cap, "rd.initdev.debug=maybe"),
			 "rd.initdev.debug=\"maybe\": not a boolean") != NULL);
	ATF_CHECK(!c.debug);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(handoff_flag);
ATF_TC_BODY(handoff_flag, tc)
{
	struct capture cap;
	struct cmdline c;

	/* on unless turned off; independent of rd.initdev.debug */
	cmdline_init(&c);
	ATF_CHECK(c.handoff);
	parse_str(&c, "rd.initdev.handoff=0 rd.initdev.debug", NULL);
	ATF_CHECK(!c.handoff);
	ATF_CHECK(c.debug);
	parse_str(&c, "rd.initdev.handoff=off", NULL);
	ATF_CHECK(!c.handoff);
	parse_str(&c, "rd.initdev.handoff", NULL);
	ATF_CHECK(c.handoff);
	cmdline_free(&c);

	ATF_CHECK(strstr(parse_logged(&c, &cap, "rd.initdev.handoff=0 rd.initdev.handoff=2"),
			 "rd.initdev.handoff=\"2\": not a boolean (0, 1, yes, no); keeping off") != NULL);
	ATF_CHECK(!c.handoff);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(later_scalars_override);
ATF_TC_BODY(later_scalars_override, tc)
{
	struct capture cap;
	struct cmdline c;
	const char *out = parse_logged(&c, &cap,
		"rd.initdev.timeout=5 rd.initdev.workers=2 rd.initdev.timeout=7 "
		"rd.initdev.workers=9 rd.initdev.workers=bad");

	ATF_CHECK_EQ(c.timeout_sec, 7);
	/* a bad later value keeps the earlier good one */
	ATF_CHECK_EQ(c.workers, 9);
	ATF_CHECK(strstr(out, "rd.initdev.workers=\"bad\"") != NULL);
	ATF_CHECK(strstr(out, "keeping the earlier value") != NULL);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(quoting);
ATF_TC_BODY(quoting, tc)
{
	struct capture cap;
	struct cmdline c;
	const char *out;

	cmdline_init(&c);
	parse_str(&c, "rd.initdev.timeout=\"12\" \"rd.initdev.workers=4\"", NULL);
	ATF_CHECK_EQ(c.timeout_sec, 12);
	ATF_CHECK_EQ(c.workers, 4);
	/* whitespace inside quotes does not split the word */
	parse_str(&c, "foo=\"x rd.initdev.workers=9\" \"bar rd.initdev.timeout=9\"", NULL);
	ATF_CHECK_EQ(c.workers, 4);
	ATF_CHECK_EQ(c.timeout_sec, 12);
	/* an unterminated quote runs to the end */
	parse_str(&c, "foo=\"abc rd.initdev.workers=5", NULL);
	ATF_CHECK_EQ(c.workers, 4);
	parse_str(&c, "rd.initdev.workers=\"7", NULL);
	ATF_CHECK_EQ(c.workers, 7);
	parse_str(&c, "rd.initdev.timeout=\"\t8\t\"", NULL);
	ATF_CHECK_EQ(c.timeout_sec, 12);
	parse_str(&c, "\"rd.initdev.debug\"", NULL);
	ATF_CHECK(c.debug);
	cmdline_free(&c);

	/* both quoting forms give the value "a b" */
	out = parse_logged(&c, &cap, "rd.initdev.timeout=\"a b\" \"rd.initdev.workers=a b\"");
	ATF_CHECK(strstr(out, "rd.initdev.timeout=\"a b\": not a number of seconds") != NULL);
	ATF_CHECK(strstr(out, "rd.initdev.workers=\"a b\": not a number of workers") != NULL);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	ATF_CHECK_EQ(c.workers, 0);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(whitespace_kinds);
ATF_TC_BODY(whitespace_kinds, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	parse_str(&c, "\n\trd.initdev.timeout=3\trd.initdev.workers=2\n"
		      "rd.driver.pre=a\r\vrd.driver.blacklist=b\n", NULL);
	ATF_CHECK_EQ(c.timeout_sec, 3);
	ATF_CHECK_EQ(c.workers, 2);
	check_list(c.pre, c.npre, (const char *[]){ "a" }, 1);
	check_list(c.blacklist, c.nblacklist, (const char *[]){ "b" }, 1);
	/* the kernel's isspace() counts Latin-1 NBSP, so the kernel splits there */
	parse_str(&c, "rd.initdev.timeout=4\xa0rd.initdev.workers=5", NULL);
	ATF_CHECK_EQ(c.timeout_sec, 4);
	ATF_CHECK_EQ(c.workers, 5);
	cmdline_free(&c);
}

ATF_TC_WITHOUT_HEAD(lists_merge);
ATF_TC_BODY(lists_merge, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	parse_str(&c, "modprobe.blacklist=a,b rd.driver.pre=p1 rd.driver.blacklist=c "
		      "modprobe.blacklist=d rd.driver.pre=p2,p3", NULL);
	check_list(c.blacklist, c.nblacklist, (const char *[]){ "a", "b", "c", "d" }, 4);
	check_list(c.pre, c.npre, (const char *[]){ "p1", "p2", "p3" }, 3);
	/* a second parse adds to what is there */
	parse_str(&c, "rd.driver.blacklist=e", NULL);
	check_list(c.blacklist, c.nblacklist, (const char *[]){ "a", "b", "c", "d", "e" }, 5);
	cmdline_free(&c);
	ATF_CHECK_EQ(c.nblacklist, 0);
	ATF_CHECK(c.blacklist == NULL);
	cmdline_free(&c); /* twice is harmless */
}

ATF_TC_WITHOUT_HEAD(lists_dedup);
ATF_TC_BODY(lists_dedup, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	parse_str(&c, "modprobe.blacklist=a,a,b rd.driver.blacklist=b,a "
		      "rd.driver.pre=c,a,b rd.driver.pre=a,d,c", NULL);
	check_list(c.blacklist, c.nblacklist, (const char *[]){ "a", "b" }, 2);
	/* order of first appearance */
	check_list(c.pre, c.npre, (const char *[]){ "c", "a", "b", "d" }, 4);
	cmdline_free(&c);
}

ATF_TC_WITHOUT_HEAD(dash_underscore);
ATF_TC_BODY(dash_underscore, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	parse_str(&c, "modprobe.blacklist=virtio-blk,snd_hda-intel,snd-hda_intel "
		      "rd.driver.pre=a-b,a_b", NULL);
	check_list(c.blacklist, c.nblacklist,
		   (const char *[]){ "virtio_blk", "snd_hda_intel" }, 2);
	check_list(c.pre, c.npre, (const char *[]){ "a_b" }, 1);
	ATF_CHECK(cmdline_blacklisted(&c, "virtio-blk"));
	ATF_CHECK(cmdline_blacklisted(&c, "virtio_blk"));
	ATF_CHECK(cmdline_blacklisted(&c, "snd-hda-intel"));
	ATF_CHECK(!cmdline_blacklisted(&c, "virtio_blk2"));
	ATF_CHECK(!cmdline_blacklisted(&c, "virtio"));
	ATF_CHECK(!cmdline_blacklisted(&c, ""));
	ATF_CHECK(!cmdline_blacklisted(&c, NULL));
	ATF_CHECK(!cmdline_blacklisted(&c, "virtio/blk"));
	cmdline_free(&c);
}

static void check_bad_timeout(const char *value)
{
	struct capture cap;
	struct cmdline c;
	char line[256], want[256];
	const char *out;

	snprintf(line, sizeof(line), "rd.initdev.timeout=%s rd.initdev.handoff_timeout=%s",
		 value, value);
	out = parse_logged(&c, &cap, line);
	ATF_CHECK_EQ_MSG(c.timeout_sec, -1, "value %s", value);
	ATF_CHECK_EQ_MSG(c.handoff_timeout_sec, -1, "value %s", value);
	snprintf(want, sizeof(want), "rd.initdev.timeout=\"%s\": not a number of seconds "
		 "(0..86400); keeping the default", value);
	ATF_CHECK_MSG(strstr(out, want) != NULL, "want '%s' in '%s'", want, out);
	snprintf(want, sizeof(want), "rd.initdev.handoff_timeout=\"%s\"", value);
	ATF_CHECK_MSG(strstr(out, want) != NULL, "want '%s' in '%s'", want, out);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(bad_numbers_keep_defaults);
ATF_TC_BODY(bad_numbers_keep_defaults, tc)
{
	static const char *const bad[] = {
		"-1", "12x", "99999999999999999999", "", "86401", "+5", "0x10", "1e3",
		"4294967296", "1.5",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_bad_timeout(bad[i]);
}

ATF_TC_WITHOUT_HEAD(bad_workers_keep_default);
ATF_TC_BODY(bad_workers_keep_default, tc)
{
	struct capture cap;
	struct cmdline c;
	const char *out = parse_logged(&c, &cap,
		"rd.initdev.workers=0 rd.initdev.workers=65 rd.initdev.workers=-3 "
		"rd.initdev.workers");

	ATF_CHECK_EQ(c.workers, 0);
	ATF_CHECK(strstr(out, "rd.initdev.workers=\"0\": not a number of workers (1..64); "
			      "keeping the default") != NULL);
	ATF_CHECK(strstr(out, "rd.initdev.workers=\"65\"") != NULL);
	ATF_CHECK(strstr(out, "rd.initdev.workers=\"-3\"") != NULL);
	ATF_CHECK(strstr(out, "rd.initdev.workers (no value)") != NULL);
	ATF_CHECK_EQ(count_of(out, "\n"), 4);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(bad_value_escaped);
ATF_TC_BODY(bad_value_escaped, tc)
{
	struct capture cap;
	struct cmdline c;
	const char *out = parse_logged(&c, &cap, "rd.initdev.timeout=1\x1b[2J\\\"x");

	ATF_CHECK(strstr(out, "rd.initdev.timeout=\"1\\x1b[2J\\x5c\\x22x\"") != NULL);
	ATF_CHECK(strchr(out, '\x1b') == NULL);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(unknown_keys);
ATF_TC_BODY(unknown_keys, tc)
{
	struct capture cap;
	struct cmdline c;
	const char *out = parse_logged(&c, &cap,
		"rd.udev.log_level=debug quiet foo=bar rd.initdev rd.initdevx=1 "
		"rd.initdev.foo=1 rd.initdev.Timeout=3 rd.initdev.workers=2");

	ATF_CHECK(strstr(out, "unknown option rd.initdev.foo ignored") != NULL);
	ATF_CHECK(strstr(out, "unknown option rd.initdev.Timeout ignored") != NULL);
	/* nothing about keys outside our namespace */
	ATF_CHECK_EQ(count_of(out, "\n"), 2);
	ATF_CHECK(strstr(out, "rd.udev") == NULL && strstr(out, "quiet") == NULL);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	ATF_CHECK_EQ(c.workers, 2);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(hostile_names);
ATF_TC_BODY(hostile_names, tc)
{
	char n64[65], n65[66], line[512];
	struct capture cap;
	struct cmdline c;
	const char *out;

	memset(n64, 'm', 64);
	n64[64] = '\0';
	memset(n65, 'x', 65);
	n65[65] = '\0';
	snprintf(line, sizeof(line),
		 "modprobe.blacklist=a/b,../x,%s,ok,bad\x01name,%s,..,a.b,good,,"
		 " rd.driver.pre=x\x7f,\xc3\xa9t\xc3\xa9,pre_ok,\"sp ace\"", n65, n64);
	out = parse_logged(&c, &cap, line);
	check_list(c.blacklist, c.nblacklist, (const char *[]){ "ok", n64, "good" }, 3);
	check_list(c.pre, c.npre, (const char *[]){ "pre_ok" }, 1);
	ATF_CHECK(strstr(out, "modprobe.blacklist: \"a/b\" is not a module name; skipped") != NULL);
	ATF_CHECK(strstr(out, "\"../x\"") != NULL);
	ATF_CHECK(strstr(out, n65) != NULL);
	ATF_CHECK(strstr(out, "\"bad\\x01name\"") != NULL);
	ATF_CHECK(strstr(out, "\"..\"") != NULL);
	ATF_CHECK(strstr(out, "\"a.b\"") != NULL);
	ATF_CHECK(strstr(out, "rd.driver.pre: \"\\x22sp ace\\x22\"") != NULL);
	ATF_CHECK(strstr(out, "\"x\\x7f\"") != NULL);
	ATF_CHECK(strstr(out, "\"\\xc3\\xa9t\\xc3\\xa9\"") != NULL);
	ATF_CHECK_EQ(count_of(out, "\n"), 9);
	/* no raw control or high bytes reach the log */
	for (const char *p = out; *p != '\0'; p++)
		ATF_CHECK(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(list_without_value);
ATF_TC_BODY(list_without_value, tc)
{
	struct capture cap;
	struct cmdline c;
	const char *out = parse_logged(&c, &cap, "modprobe.blacklist rd.driver.pre= rd.driver.blacklist=,");

	ATF_CHECK_EQ(c.nblacklist, 0);
	ATF_CHECK_EQ(c.npre, 0);
	ATF_CHECK(strstr(out, "modprobe.blacklist: no module list given") != NULL);
	ATF_CHECK_EQ(count_of(out, "\n"), 1);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(list_bounded);
ATF_TC_BODY(list_bounded, tc)
{
	char line[CMDLINE_MAX], want[16];
	struct capture cap;
	struct cmdline c;
	const char *out;
	size_t o = 0;

	/* 300 names over several words, so no word is near the size bound */
	for (int i = 0; i < 300; i++) {
		if (i % 50 == 0)
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%srd.driver.blacklist=",
					      i ? " " : "");
		else
			line[o++] = ',';
		o += (size_t)snprintf(line + o, sizeof(line) - o, "m%d", i);
	}
	ATF_REQUIRE(o < sizeof(line) - 40);
	o += (size_t)snprintf(line + o, sizeof(line) - o, " rd.driver.pre=m1,m299");
	out = parse_logged(&c, &cap, line);
	ATF_CHECK_EQ(c.nblacklist, CMDLINE_LIST_MAX);
	for (int i = 0; i < CMDLINE_LIST_MAX; i++) {
		snprintf(want, sizeof(want), "m%d", i);
		ATF_CHECK_STREQ(c.blacklist[i], want);
	}
	ATF_CHECK(!cmdline_blacklisted(&c, "m256"));
	ATF_CHECK(!cmdline_blacklisted(&c, "m299"));
	/* the other list has its own bound */
	ATF_CHECK_EQ(c.npre, 2);
	ATF_CHECK_EQ(count_of(out, "more than 256 modules"), 1);
	ATF_CHECK(strstr(out, "rd.driver.blacklist: more than 256 modules; ignoring m256") != NULL);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TC_WITHOUT_HEAD(warnings_bounded);
ATF_TC_BODY(warnings_bounded, tc)
{
	char line[2048];
	struct capture cap;
	struct cmdline c;
	const char *out;
	size_t o = 0;

	o += (size_t)snprintf(line, sizeof(line), "rd.driver.pre=");
	for (int i = 0; i < 100; i++)
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%sa/%d", i ? "," : "", i);
	out = parse_logged(&c, &cap, line);
	ATF_CHECK_EQ(c.npre, 0);
	ATF_CHECK(count_of(out, "is not a module name") < 100);
	ATF_CHECK(strstr(out, "more warnings about the kernel command line suppressed") != NULL);
	ATF_CHECK(count_of(out, "\n") < 30);
	cmdline_free(&c);
	capture_close(&cap);
}

static char *filled(size_t len)
{
	char *s = malloc(len);

	ATF_REQUIRE(s != NULL);
	memset(s, ' ', len);
	return s;
}

ATF_TC_WITHOUT_HEAD(size_bound);
ATF_TC_BODY(size_bound, tc)
{
	static const char inside[] = "rd.initdev.workers=5";
	static const char after[] = "rd.initdev.debug";
	static const char across[] = "rd.initdev.timeout=300";
	size_t len = CMDLINE_MAX + 1000;
	char *text = filled(len);
	struct capture cap;
	struct cmdline c;

	memcpy(text, inside, strlen(inside));
	/* the bound falls after "=30": that must not become 30 seconds */
	memcpy(text + CMDLINE_MAX - strlen(across) + 1, across, strlen(across));
	memcpy(text + CMDLINE_MAX + 100, after, strlen(after));
	cmdline_init(&c);
	capture_open(&cap);
	ATF_REQUIRE_EQ(cmdline_parse(&c, text, len, &cap.log), 0);
	ATF_CHECK_EQ(c.workers, 5);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	ATF_CHECK(!c.debug);
	ATF_CHECK(strstr(capture_read(&cap), "longer than 4096 bytes") != NULL);
	ATF_CHECK(strstr(cap.text, "rd.initdev.timeout") == NULL);
	/* the text IMPORT{cmdline} reads ends before the cut word too */
	ATF_CHECK_MSG(strstr(c.text, "rd.initdev.timeout") == NULL, "the cut word is in the text");
	ATF_CHECK(strstr(c.text, inside) != NULL);
	cmdline_free(&c);
	capture_close(&cap);
	free(text);
}

ATF_TC_WITHOUT_HEAD(size_bound_exact);
ATF_TC_BODY(size_bound_exact, tc)
{
	static const char last[] = "rd.initdev.timeout=300";
	char *text = filled(CMDLINE_MAX + 10);
	struct capture cap;
	struct cmdline c;

	/* a word that ends right at the bound is whole: applied */
	memcpy(text + CMDLINE_MAX - strlen(last), last, strlen(last));
	cmdline_init(&c);
	capture_open(&cap);
	ATF_REQUIRE_EQ(cmdline_parse(&c, text, CMDLINE_MAX, &cap.log), 0);
	ATF_CHECK_EQ(c.timeout_sec, 300);
	ATF_CHECK_STREQ(capture_read(&cap), "");
	cmdline_free(&c);
	capture_close(&cap);
	free(text);
}

ATF_TC_WITHOUT_HEAD(nul_ends_text);
ATF_TC_BODY(nul_ends_text, tc)
{
	static const char text[] = "rd.initdev.workers=2\0rd.initdev.timeout=9";
	char *big = filled(CMDLINE_MAX + 10);
	struct cmdline c;

	cmdline_init(&c);
	ATF_REQUIRE_EQ(cmdline_parse(&c, text, sizeof(text), NULL), 0);
	ATF_CHECK_EQ(c.workers, 2);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	/* a NUL inside the bound means nothing was cut */
	memcpy(big, "rd.initdev.timeout=4", 21);
	ATF_REQUIRE_EQ(cmdline_parse(&c, big, CMDLINE_MAX + 10, NULL), 0);
	ATF_CHECK_EQ(c.timeout_sec, 4);
	cmdline_free(&c);
	free(big);
}

ATF_TC_WITHOUT_HEAD(null_logger);
ATF_TC_BODY(null_logger, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	parse_str(&c, "rd.initdev.timeout=x rd.initdev.foo modprobe.blacklist=a/b,ok "
		      "rd.driver.pre", NULL);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	check_list(c.blacklist, c.nblacklist, (const char *[]){ "ok" }, 1);
	cmdline_free(&c);
}

static void write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(write(fd, text, len), (ssize_t)len);
	ATF_REQUIRE_EQ(close(fd), 0);
}

ATF_TC_WITHOUT_HEAD(load_file);
ATF_TC_BODY(load_file, tc)
{
	static const char text[] = "ro rd.initdev.workers=6 modprobe.blacklist=floppy\n";
	struct cmdline c;

	write_file("cmdline", text, strlen(text));
	cmdline_init(&c);
	ATF_REQUIRE_EQ(cmdline_load(&c, "cmdline", NULL), 0);
	ATF_CHECK_EQ(c.workers, 6);
	ATF_CHECK(cmdline_blacklisted(&c, "floppy"));
	cmdline_free(&c);
}

ATF_TC_WITHOUT_HEAD(load_bounded);
ATF_TC_BODY(load_bounded, tc)
{
	size_t len = CMDLINE_MAX + 1000;
	char *text = filled(len);
	struct capture cap;
	struct cmdline c;

	memcpy(text, "rd.initdev.workers=8", 20);
	memcpy(text + CMDLINE_MAX + 10, "rd.initdev.timeout=1", 20);
	write_file("cmdline", text, len);
	cmdline_init(&c);
	capture_open(&cap);
	ATF_REQUIRE_EQ(cmdline_load(&c, "cmdline", &cap.log), 0);
	ATF_CHECK_EQ(c.workers, 8);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	ATF_CHECK(strstr(capture_read(&cap), "longer than 4096 bytes") != NULL);
	cmdline_free(&c);
	capture_close(&cap);
	free(text);
}

ATF_TC_WITHOUT_HEAD(load_missing);
ATF_TC_BODY(load_missing, tc)
{
	struct cmdline c;

	cmdline_init(&c);
	ATF_CHECK_EQ(cmdline_load(&c, "does-not-exist", NULL), -ENOENT);
	ATF_CHECK_EQ(cmdline_load(&c, ".", NULL), -EISDIR);
	ATF_CHECK_EQ(c.workers, 0);
	cmdline_free(&c);
}

ATF_TC_WITHOUT_HEAD(realistic);
ATF_TC_BODY(realistic, tc)
{
	struct capture cap;
	struct cmdline c;
	const char *out = parse_logged(&c, &cap,
		"BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 "
		"root=UUID=0f2b6a4e-3c1d-4e5f-9a8b-7c6d5e4f3a2b ro quiet "
		"rd.driver.pre=virtio_pci,virtio-blk modprobe.blacklist=floppy "
		"rd.initdev.workers=3\n");

	ATF_CHECK_STREQ(out, "");
	check_list(c.pre, c.npre, (const char *[]){ "virtio_pci", "virtio_blk" }, 2);
	check_list(c.blacklist, c.nblacklist, (const char *[]){ "floppy" }, 1);
	ATF_CHECK_EQ(c.workers, 3);
	ATF_CHECK_EQ(c.timeout_sec, -1);
	ATF_CHECK_EQ(c.handoff_timeout_sec, -1);
	ATF_CHECK(!c.debug);
	cmdline_free(&c);
	capture_close(&cap);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, defaults);
	ATF_TP_ADD_TC(tp, broadcast_tristate);
	ATF_TP_ADD_TC(tp, each_key_valid);
	ATF_TP_ADD_TC(tp, range_edges);
	ATF_TP_ADD_TC(tp, debug_values);
	ATF_TP_ADD_TC(tp, handoff_flag);
	ATF_TP_ADD_TC(tp, later_scalars_override);
	ATF_TP_ADD_TC(tp, quoting);
	ATF_TP_ADD_TC(tp, whitespace_kinds);
	ATF_TP_ADD_TC(tp, lists_merge);
	ATF_TP_ADD_TC(tp, lists_dedup);
	ATF_TP_ADD_TC(tp, dash_underscore);
	ATF_TP_ADD_TC(tp, bad_numbers_keep_defaults);
	ATF_TP_ADD_TC(tp, bad_workers_keep_default);
	ATF_TP_ADD_TC(tp, bad_value_escaped);
	ATF_TP_ADD_TC(tp, unknown_keys);
	ATF_TP_ADD_TC(tp, hostile_names);
	ATF_TP_ADD_TC(tp, list_without_value);
	ATF_TP_ADD_TC(tp, list_bounded);
	ATF_TP_ADD_TC(tp, warnings_bounded);
	ATF_TP_ADD_TC(tp, size_bound);
	ATF_TP_ADD_TC(tp, size_bound_exact);
	ATF_TP_ADD_TC(tp, nul_ends_text);
	ATF_TP_ADD_TC(tp, null_logger);
	ATF_TP_ADD_TC(tp, load_file);
	ATF_TP_ADD_TC(tp, load_bounded);
	ATF_TP_ADD_TC(tp, load_missing);
	ATF_TP_ADD_TC(tp, realistic);
	return atf_no_error();
}
