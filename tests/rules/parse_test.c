/* SPDX-License-Identifier: MIT */
/*
 * The rules text layer and compiler: what udev 252 keeps, warns about and
 * drops (with file:line), continuations, comments, escapes, GOTO
 * resolution, the token order, and which files load in which order.
 */
#include <atf-c.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/lexer.h"
#include "rules/rules.h"

struct diags {
	char text[8192];
	unsigned int errors, warnings;
};

static void collect(void *u, int prio, const char *file, unsigned int line, const char *msg)
{
	struct diags *d = u;
	size_t n = strlen(d->text);

	if (prio <= LOG_ERR)
		d->errors++;
	else if (prio == LOG_WARNING)
		d->warnings++;
	snprintf(d->text + n, sizeof(d->text) - n, "%s:%u: %s\n", file, line, msg);
}

static void parse(struct rules *r, struct diags *d, const char *text)
{
	struct rules_diag diag = { collect, d };

	memset(d, 0, sizeof(*d));
	rules_init(r, NULL, &diag);
	ATF_REQUIRE_EQ(rules_parse_text(r, "t.rules", text, strlen(text)), 0);
}

static void parse_len(struct rules *r, struct diags *d, const char *text, size_t len)
{
	struct rules_diag diag = { collect, d };

	memset(d, 0, sizeof(*d));
	rules_init(r, NULL, &diag);
	ATF_REQUIRE_EQ(rules_parse_text(r, "t.rules", text, len), 0);
}

#define CHECK_DIAG(d, s) \
	ATF_CHECK_MSG(strstr((d).text, s) != NULL, "missing '%s' in:\n%s", s, (d).text)

ATF_TC_WITHOUT_HEAD(operators_by_key);
ATF_TC_BODY(operators_by_key, tc)
{
	/* each line is one verdict: kept (1) or dropped (0) */
	static const struct {
		const char *line;
		bool kept;
	} cases[] = {
		{ "ACTION==\"add\", ENV{X}=\"1\"", true },
		{ "ACTION=\"add\", ENV{X}=\"1\"", false },
		{ "ACTION{x}==\"add\", ENV{X}=\"1\"", false },
		{ "KERNEL!=\"sd*\", ENV{X}=\"1\"", true },
		{ "DEVPATH+=\"x\", ENV{X}=\"1\"", false },
		{ "SYMLINK-=\"x\"", false },
		{ "SYMLINK+=\"x\"", true },
		{ "ENV{X}-=\"1\"", false },
		{ "ENV{}=\"1\"", false },
		{ "ENV{DEVNAME}=\"x\"", false },
		{ "ENV{X}:=\"1\"", true }, /* warned, taken as = */
		{ "TAG-=\"x\"", true },
		{ "ATTR{x}=\"1\"", true },
		{ "ATTR{x}-=\"1\"", false },
		{ "ATTR{}==\"1\", ENV{X}=\"1\"", false },
		{ "ATTRS{x}=\"1\"", false },
		{ "SYSCTL{k}=\"1\"", true },
		{ "CONST{arch}==\"x86-64\", ENV{X}=\"1\"", true },
		{ "CONST{other}==\"x\", ENV{X}=\"1\"", false },
		{ "TEST{0644}==\"x\", ENV{X}=\"1\"", true },
		{ "TEST{9}==\"x\", ENV{X}=\"1\"", false },
		{ "TEST=\"x\", ENV{X}=\"1\"", false },
		{ "PROGRAM=\"x\"", true },
		{ "PROGRAM-=\"x\"", false },
		{ "IMPORT{program}=\"x\"", true },
		{ "IMPORT{program}==\"x\"", true },
		{ "IMPORT{nope}=\"x\"", false },
		{ "IMPORT{builtin}=\"nope\"", false },
		{ "IMPORT{builtin}=\"blkid\"", true },
		{ "IMPORT{builtin}=\"net_driver\"", true }, /* udev 257 */
		{ "RESULT=\"x\", ENV{X}=\"1\"", false },
		{ "OPTIONS==\"db_persist\"", false },
		{ "OPTIONS+=\"link_priority=x\"", false },
		{ "OPTIONS+=\"log_level=loud\"", false },
		{ "OPTIONS+=\"log_level=debug\"", true },
		{ "OWNER==\"root\"", false },
		{ "OWNER=\"0\"", true },
		{ "MODE=\"0660\"", true },
		{ "TEST{+755}==\"x\", ENV{X}=\"1\"", false }, /* systemd's parse_mode: no sign */
		{ "TEST{-0}==\"x\", ENV{X}=\"1\"", false },
		{ "TEST{0759}==\"x\", ENV{X}=\"1\"", false },
		{ "TEST{ 0755}==\"x\", ENV{X}=\"1\"", true }, /* leading blanks are skipped */
		{ "MODE-=\"0660\"", false },
		{ "RUN==\"x\"", false },
		{ "RUN{other}+=\"x\"", false },
		{ "RUN{builtin}+=\"kmod load\"", true },
		{ "RUN{builtin}+=\"nope\"", false },
		{ "GOTO==\"x\"", false },
		{ "LABEL+=\"x\"", false },
		{ "NAME=\"%k\"", false },
		{ "NAME=\"\"", false },
		{ "NAME-=\"x\"", false },
		{ "BOGUS==\"x\", ENV{X}=\"1\"", false },
		{ "KERNEL==\"x\"", false },             /* matches only: takes no effect */
		{ "KERNEL==\"x\" ENV{X}=\"1\"", true }, /* no comma: udev does not mind */
		{ "KERNEL==x, ENV{X}=\"1\"", false },   /* unquoted value */
		{ "KERNEL==\"x, ENV{X}=\"1\"", false }, /* the value runs to the next quote */
		{ "KERNEL==\"x\", ENV{X}=\"1", false },
		{ "KERNEL=~\"x\", ENV{X}=\"1\"", false },
		{ "ENV{X=\"1\"", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules r;
		struct diags d;

		parse(&r, &d, cases[i].line);
		ATF_CHECK_MSG((r.nlines == 1) == cases[i].kept, "%s: kept %zu lines (%s)",
			      cases[i].line, r.nlines, d.text);
		if (!cases[i].kept)
			ATF_CHECK_MSG(d.errors + d.warnings > 0, "%s: dropped silently",
				      cases[i].line);
		rules_free(&r);
	}
}

ATF_TC_WITHOUT_HEAD(continuation_and_comments);
ATF_TC_BODY(continuation_and_comments, tc)
{
	struct rules r;
	struct diags d;

	parse(&r, &d,
	      "# a comment\n"
	      "   # an indented comment\n"
	      "\n"
	      "KERNEL==\"a\", \\\n"
	      "# a comment inside a continuation\n"
	      "   ENV{X}=\"1\"\r\n"
	      "KERNEL==\"b\", ENV{Y}=\"1\"\rKERNEL==\"c\", ENV{Z}=\"1\"\n"
	      "KERNEL==\"d\", \\\n"
	      "\n"
	      "ENV{W}=\"1\"\n"
	      "KERNEL==\"e\", ENV{V}=\"1\" \\");
	ATF_REQUIRE_EQ(r.nlines, 4);
	ATF_CHECK_EQ(r.lines[0].lineno, 6); /* a continued line counts as its last line */
	ATF_CHECK_EQ(r.lines[0].n, 2);
	ATF_CHECK_EQ(r.lines[1].lineno, 7);
	ATF_CHECK_EQ(r.lines[2].lineno, 8);  /* a lone \r ends a line */
	ATF_CHECK_EQ(r.lines[3].lineno, 11); /* an empty line ends a continuation... */
	ATF_CHECK_EQ(d.warnings, 1);         /* ...so "KERNEL==d" alone takes no effect */
	ATF_CHECK_EQ(d.errors, 0);           /* a continuation at the end is dropped */
	rules_free(&r);
}

ATF_TC_WITHOUT_HEAD(nul_and_long_lines);
ATF_TC_BODY(nul_and_long_lines, tc)
{
	static char text[RULES_LINE_MAX * 3];
	struct rules r;
	struct diags d;
	size_t n;

	/* a NUL ends a line like a newline */
	parse_len(&r, &d, "ENV{A}=\"1\"\0ENV{B}=\"1\"\n", 22);
	ATF_CHECK_EQ(r.nlines, 2);
	rules_free(&r);

	/* a logical line past the bound is dropped, the next one kept */
	n = (size_t)sprintf(text, "ENV{A}=\"");
	for (int i = 0; i < 3; i++) {
		memset(text + n, 'x', RULES_LINE_MAX / 2);
		n += RULES_LINE_MAX / 2;
		n += (size_t)sprintf(text + n, "\\\n");
	}
	n += (size_t)sprintf(text + n, "\"\nENV{B}=\"1\"\n");
	parse_len(&r, &d, text, n);
	ATF_CHECK_EQ(r.nlines, 1);
	CHECK_DIAG(d, "t.rules:4: line is too long, ignored");
	rules_free(&r);

	/* one physical line past the bound: udev stops reading the file */
	memset(text, 'x', RULES_LINE_MAX + 10);
	n = RULES_LINE_MAX + 10;
	n += (size_t)sprintf(text + n, "\nENV{B}=\"1\"\n");
	parse_len(&r, &d, text, n);
	ATF_CHECK_EQ(r.nlines, 0);
	CHECK_DIAG(d, "the rest of the file is ignored");
	rules_free(&r);
}

ATF_TC_WITHOUT_HEAD(values_and_escapes);
ATF_TC_BODY(values_and_escapes, tc)
{
	struct rules r;
	struct diags d;

	parse(&r, &d,
	      "ENV{A}=\"q\\\"uote\\n\", ENV{B}=e\"t\\tab\\x41\\101\\u00e9\\\\\", "
	      "KERNEL==\"a|b||c\", ENV{C}=\"|\"");
	ATF_REQUIRE_EQ(r.nlines, 1);
	ATF_REQUIRE_EQ(r.lines[0].n, 4);
	/* sorted: KERNEL (a match) first */
	ATF_CHECK_EQ(r.tokens[0].type, RTK_M_KERNEL);
	ATF_CHECK_EQ(r.tokens[0].match, RMT_PLAIN_EMPTY);
	ATF_CHECK_STREQ(r.tokens[0].value, "a");
	ATF_CHECK_STREQ(r.tokens[0].value + 2, "b");
	ATF_CHECK_STREQ(r.tokens[0].value + 4, "c");
	ATF_CHECK_STREQ(r.tokens[1].value, "q\"uote\\n"); /* only \" is unescaped */
	ATF_CHECK_STREQ(r.tokens[2].value, "t\tabAA\xc3\xa9\\");
	ATF_CHECK_STREQ(r.tokens[3].value, "|"); /* assignments are not split */
	rules_free(&r);

	parse(&r, &d, "ENV{A}=e\"bad\\q\"");
	ATF_CHECK_EQ(r.nlines, 0);
	ATF_CHECK_EQ(d.errors, 1);
	rules_free(&r);
	parse(&r, &d, "ENV{A}=e\"nul\\x00\"");
	ATF_CHECK_EQ(r.nlines, 0);
	rules_free(&r);

	/* "?*" means non-empty: stored as != "" */
	parse(&r, &d, "ENV{A}==\"?*\", ENV{B}!=\"?*\", RUN+=\"x\"");
	ATF_CHECK_EQ(r.tokens[0].op, ROP_NOMATCH);
	ATF_CHECK_EQ(r.tokens[0].match, RMT_EMPTY);
	ATF_CHECK_EQ(r.tokens[1].op, ROP_MATCH);
	rules_free(&r);
}

ATF_TC_WITHOUT_HEAD(token_order);
ATF_TC_BODY(token_order, tc)
{
	struct rules r;
	struct diags d;

	parse(&r, &d,
	      "RUN+=\"r\", SYMLINK+=\"s\", ENV{E}=\"1\", PROGRAM=\"p\", ATTRS{a}==\"1\", "
	      "KERNEL==\"k\", ACTION==\"add\", ENV{M}==\"1\", OPTIONS+=\"string_escape=replace\"");
	ATF_REQUIRE_EQ(r.lines[0].n, 9);
	{
		static const enum rules_tk want[] = {
			RTK_M_ACTION,       RTK_M_KERNEL,  RTK_M_ENV,
			RTK_M_PARENTS_ATTR, RTK_M_PROGRAM, RTK_A_ESCAPE_REPLACE,
			RTK_A_ENV,          RTK_A_DEVLINK, RTK_A_RUN_PROGRAM,
		};

		for (size_t i = 0; i < 9; i++)
			ATF_CHECK_EQ_MSG(r.tokens[i].type, want[i], "token %zu", i);
	}
	ATF_CHECK_EQ(r.lines[0].type, RLINE_UPDATE | RLINE_DEVLINK);
	rules_free(&r);
}

ATF_TC_WITHOUT_HEAD(gotos);
ATF_TC_BODY(gotos, tc)
{
	struct rules r;
	struct diags d;

	parse(&r, &d,
	      "LABEL=\"back\"\n"
	      "KERNEL==\"a\", GOTO=\"end\"\n"
	      "KERNEL==\"b\", GOTO=\"back\"\n"
	      "GOTO=\"nowhere\"\n"
	      "KERNEL==\"c\", GOTO=\"one\", GOTO=\"two\"\n"
	      "LABEL=\"one\"\n"
	      "LABEL=\"end\"\n"
	      "LABEL=\"end\"\n");
	ATF_REQUIRE_EQ(r.nlines, 8);
	ATF_CHECK_EQ(r.lines[1].goto_line, 6);  /* the first later label of that name */
	ATF_CHECK_EQ(r.lines[2].goto_line, -1); /* never backwards */
	ATF_CHECK_EQ(r.lines[3].goto_line, -1);
	ATF_CHECK_EQ(r.lines[4].goto_line, 5); /* the first GOTO of a line counts */
	CHECK_DIAG(d, "t.rules:3: GOTO=\"back\" has no matching label");
	CHECK_DIAG(d, "t.rules:4: GOTO=\"nowhere\" has no matching label");
	CHECK_DIAG(d, "t.rules:5: contains multiple GOTO keys");
	ATF_CHECK_EQ(d.errors, 2);
	rules_free(&r);
}

ATF_TC_WITHOUT_HEAD(check_mode);
ATF_TC_BODY(check_mode, tc)
{
	struct rules_diag diag;
	struct rules r;
	struct diags d;
	const char *text = "IMPORT{builtin}=\"net_setup_link\"\n"
			   "IMPORT{program}=\"net_id --export\"\n"
			   "RUN{builtin}+=\"uaccess\"\n"
			   "IMPORT{builtin}=\"blkid\"\n"
			   "OPTIONS+=\"static_node=fuse\"\n"
			   "SUBSYSTEM==\"net\", IMPORT{builtin}=\"net_driver\"\n";

	/* udev runs these lines (the builtins then fail); check names them */
	parse(&r, &d, text);
	ATF_CHECK_EQ(r.nlines, 6);
	ATF_CHECK_EQ(d.errors, 0);
	rules_free(&r);
	memset(&d, 0, sizeof(d));
	diag = (struct rules_diag){ collect, &d };
	rules_init(&r, NULL, &diag);
	r.check = true;
	ATF_REQUIRE_EQ(rules_parse_text(&r, "t.rules", text, strlen(text)), 0);
	ATF_CHECK_EQ(d.errors, 3);
	CHECK_DIAG(d, "t.rules:1: net_setup_link: not supported by initdev");
	CHECK_DIAG(d, "t.rules:2: net_id: not supported by initdev");
	CHECK_DIAG(d, "t.rules:3: uaccess: not supported by initdev");
	rules_free(&r);
}

ATF_TC_WITHOUT_HEAD(builtin_lookup);
ATF_TC_BODY(builtin_lookup, tc)
{
	ATF_CHECK_EQ(rules_builtin_lookup("blkid"), RB_BLKID);
	ATF_CHECK_EQ(rules_builtin_lookup("  path_id --x"), RB_PATH_ID);
	ATF_CHECK_EQ(rules_builtin_lookup("kmod load"), RB_KMOD);
	ATF_CHECK_EQ(rules_builtin_lookup("blk"), RB_BLKID); /* udev's prefix quirk */
	ATF_CHECK_EQ(rules_builtin_lookup("/sbin/blkid"), -1);
	ATF_CHECK_EQ(rules_builtin_lookup("blkidx"), -1);
	ATF_CHECK(rules_builtin_supported(RB_BLKID));
	ATF_CHECK(!rules_builtin_supported(RB_NET_ID));
	/* what a systemd image's rules call */
	ATF_CHECK(rules_builtin_supported(RB_HWDB) && rules_builtin_supported(RB_USB_ID) &&
		  rules_builtin_supported(RB_INPUT_ID) && rules_builtin_supported(RB_BTRFS) &&
		  rules_builtin_supported(RB_KEYBOARD));
	/* udev 257's net_driver, before net_id as in 257: "net_" names it */
	ATF_CHECK_EQ(rules_builtin_lookup("net_driver"), RB_NET_DRIVER);
	ATF_CHECK_EQ(rules_builtin_lookup("net_id"), RB_NET_ID);
	ATF_CHECK_EQ(rules_builtin_lookup("net_"), RB_NET_DRIVER);
	ATF_CHECK(rules_builtin_supported(RB_NET_DRIVER));
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ATF_REQUIRE(f != NULL);
	fputs(text, f);
	fclose(f);
}

ATF_TC_WITHOUT_HEAD(directory_order);
ATF_TC_BODY(directory_order, tc)
{
	const char *dirs[] = { "lib", "run", "etc", NULL };
	struct rules r;

	ATF_REQUIRE_EQ(mkdir("lib", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("run", 0755), 0);
	ATF_REQUIRE_EQ(mkdir("etc", 0755), 0);
	put("lib/10-a.rules", "ENV{A}=\"lib\"\n");
	put("lib/20-b.rules", "ENV{B}=\"lib\"\n");
	put("lib/30-c.rules", "ENV{C}=\"lib\"\n");
	put("lib/40-empty.rules", "");
	put("lib/50-not-rules.txt", "ENV{X}=\"1\"\n");
	put("lib/.60-hidden.rules", "ENV{X}=\"1\"\n");
	put("run/20-b.rules", "ENV{B}=\"run\"\n");
	put("run/15-r.rules", "ENV{R}=\"run\"\n");
	put("etc/20-b.rules", "ENV{B}=\"etc\"\n");
	ATF_REQUIRE_EQ(symlink("/dev/null", "etc/30-c.rules"), 0);
	rules_init(&r, NULL, NULL);
	ATF_REQUIRE_EQ(rules_load_dirs(&r, dirs), 0);
	ATF_REQUIRE_EQ(r.nfiles, 3);
	ATF_CHECK_STREQ(r.files[0], "lib/10-a.rules");
	ATF_CHECK_STREQ(r.files[1], "run/15-r.rules");
	ATF_CHECK_STREQ(r.files[2], "etc/20-b.rules"); /* /etc beats /run beats /usr/lib */
	rules_free(&r);
}

/* A rules path that is no regular file is refused at once: a FIFO does not hang the load. */
ATF_TC_WITHOUT_HEAD(not_a_file);
ATF_TC_BODY(not_a_file, tc)
{
	struct rules r;

	ATF_REQUIRE_EQ(mkfifo("fifo.rules", 0600), 0);
	ATF_REQUIRE_EQ(mkdir("dir.rules", 0755), 0);
	rules_init(&r, NULL, NULL);
	ATF_CHECK_EQ(rules_parse_file(&r, "fifo.rules"), -EINVAL);
	ATF_CHECK_EQ(rules_parse_file(&r, "dir.rules"), -EISDIR);
	ATF_CHECK_EQ(rules_parse_file(&r, "missing.rules"), 0); /* gone meanwhile: nothing */
	rules_free(&r);
}

ATF_TC_WITHOUT_HEAD(lexer_pairs);
ATF_TC_BODY(lexer_pairs, tc)
{
	char line[] = " , KEY{a b}  ==  \"v\"OTHER+=\"w\",";
	char *p = line, *key, *attr, *value;
	const char *why;
	int op;

	ATF_REQUIRE_EQ(lexer_pair(&p, &key, &attr, &op, &value, &why), 1);
	ATF_CHECK_STREQ(key, "KEY");
	ATF_CHECK_STREQ(attr, "a b");
	ATF_CHECK_EQ(op, ROP_MATCH);
	ATF_CHECK_STREQ(value, "v");
	ATF_REQUIRE_EQ(lexer_pair(&p, &key, &attr, &op, &value, &why), 1);
	ATF_CHECK_STREQ(key, "OTHER");
	ATF_CHECK(attr == NULL);
	ATF_CHECK_EQ(op, ROP_ADD);
	ATF_CHECK_EQ(lexer_pair(&p, &key, &attr, &op, &value, &why), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, operators_by_key);
	ATF_TP_ADD_TC(tp, continuation_and_comments);
	ATF_TP_ADD_TC(tp, nul_and_long_lines);
	ATF_TP_ADD_TC(tp, values_and_escapes);
	ATF_TP_ADD_TC(tp, token_order);
	ATF_TP_ADD_TC(tp, gotos);
	ATF_TP_ADD_TC(tp, check_mode);
	ATF_TP_ADD_TC(tp, builtin_lookup);
	ATF_TP_ADD_TC(tp, directory_order);
	ATF_TP_ADD_TC(tp, not_a_file);
	ATF_TP_ADD_TC(tp, lexer_pairs);
	return atf_no_error();
}
