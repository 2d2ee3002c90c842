/* SPDX-License-Identifier: MIT */
/*
 * device-mapper cookies: parsed from the event, released on a real SysV
 * semaphore as `dmsetup udevcomplete` releases it, and, through the rules
 * handler, released exactly once per event: by the rules' RUN when it ran
 * and succeeded, by the handler when an earlier rule failed, the event's
 * time ran out before the RUN, the RUN failed, or no rules ran at all.
 */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dm-sem.h"
#include "fake-sysfs.h"
#include "handlers/dm-cookie.h"
#include "handlers/set.h"

static void parse(struct uevent *ev, const char *payload, size_t len)
{
	ATF_REQUIRE_EQ(uevent_parse(ev, payload, len, NULL, 0), UEVENT_PARSE_OK);
}

/* A dm change event, DM_COOKIE=cookie (NULL: none). */
static void dm_event(struct uevent *ev, const char *cookie)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "change@/devices/virtual/block/dm-0%cACTION=change%c"
			 "DEVPATH=/devices/virtual/block/dm-0%cSUBSYSTEM=block%cSEQNUM=7%c"
			 "MAJOR=254%cMINOR=0%cDEVNAME=dm-0%cDEVTYPE=disk%cDM_NAME=x%c",
			 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

	if (cookie)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "DM_COOKIE=%s%c", cookie, 0);
	parse(ev, buf, (size_t)n);
}

ATF_TC_WITHOUT_HEAD(cookie_from_event);
ATF_TC_BODY(cookie_from_event, tc)
{
	static struct uevent ev;
	uint32_t c = 0;

	dm_event(&ev, "4194537");
	ATF_REQUIRE(dm_cookie_of(&ev, &c));
	ATF_CHECK_EQ(c, 4194537u);
	ATF_CHECK(dm_cookie_waits(c)); /* 0x4000e9: flags 0x40, base 0xe9 */
	ATF_CHECK(!dm_cookie_waits(0x00400000u)); /* flags only */
	dm_event(&ev, NULL);
	ATF_CHECK(!dm_cookie_of(&ev, &c));
	const char *bad[] = { "", "12x", "-1", "4294967296", " 5", "0x10" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dm_event(&ev, bad[i]);
		ATF_CHECK_MSG(!dm_cookie_of(&ev, &c), "'%s' taken", bad[i]);
	}
}

ATF_TC(release_decrements_once);
ATF_TC_HEAD(release_decrements_once, tc)
{
	atf_tc_set_md_var(tc, "descr", "release takes one off the cookie's semaphore, whatever the "
			  "flags, never waits, and says when there is nothing to release");
}
ATF_TC_BODY(release_decrements_once, tc)
{
	struct dm_sem c;

	dm_sem_make(&c, 0x0061, 2);
	ATF_CHECK_EQ(dm_cookie_release(c.value), 0);
	ATF_CHECK_EQ(dm_sem_val(&c), 1);
	ATF_CHECK_EQ(dm_cookie_release(c.value & 0xFFFF), 0); /* same semaphore without flags */
	ATF_CHECK_EQ(dm_sem_val(&c), 0);
	ATF_CHECK_EQ(dm_cookie_release(c.value), -EAGAIN); /* already zero: no wait */
	ATF_CHECK_EQ(dm_cookie_release(0x00610000u), 0);   /* flags only: nothing to do */
	dm_sem_drop(&c);
	ATF_CHECK_EQ(dm_cookie_release(c.value), -ENOENT);
}

ATF_TC_WITHOUT_HEAD(released_by_run_list);
ATF_TC_BODY(released_by_run_list, tc)
{
	struct rules_run runs[] = {
		{ .cmd = "/sbin/dmsetup udevcomplete 42", .builtin = -1, .ok = false },
		{ .cmd = "/bin/true dmsetup udevcomplete", .builtin = -1, .ok = true },
		{ .cmd = "dmsetup --verbose udevcomplete_all", .builtin = -1, .ok = true },
		{ .cmd = "/usr/sbin/dmsetup -v udevcomplete 42", .builtin = -1, .ok = true },
	};
	struct rules_event ev = { .run = runs, .nrun = 3 };

	ATF_CHECK(!dm_cookie_released_by(&ev)); /* failed, not dmsetup, another command */
	ev.nrun = 4;
	ATF_CHECK(dm_cookie_released_by(&ev));
}

ATF_TC_WITHOUT_HEAD(releases_moved_last);
ATF_TC_BODY(releases_moved_last, tc)
{
	struct rules_run runs[] = {
		{ .cmd = "/sbin/dmsetup udevcomplete 1", .builtin = -1 },
		{ .cmd = "/bin/a", .builtin = -1 },
		{ .cmd = "dmsetup udevcomplete 2", .builtin = 0 }, /* a builtin: not a program */
		{ .cmd = "/usr/sbin/dmsetup -v udevcomplete 3", .builtin = -1 },
		{ .cmd = "/bin/b", .builtin = -1 },
	};
	struct rules_event ev = { .run = runs, .nrun = 5 };
	const char *want[] = { "/bin/a", "dmsetup udevcomplete 2", "/bin/b",
			       "/sbin/dmsetup udevcomplete 1", "/usr/sbin/dmsetup -v udevcomplete 3" };

	ATF_CHECK_EQ(dm_cookie_releases_last(&ev), 2);
	for (size_t i = 0; i < 5; i++)
		ATF_CHECK_STREQ(runs[i].cmd, want[i]);
	ATF_CHECK_EQ(dm_cookie_releases_last(&ev), 2); /* already last: unchanged */
	for (size_t i = 0; i < 5; i++)
		ATF_CHECK_STREQ(runs[i].cmd, want[i]);
}

/* A dm event carrying c's cookie (one static event: each call replaces the last). */
static const struct uevent *ev_of(const struct dm_sem *c)
{
	static struct uevent ev;
	char v[16];

	snprintf(v, sizeof(v), "%u", c->value);
	dm_event(&ev, v);
	return &ev;
}

static bool rules_released(void *u)
{
	int *calls = u;

	(*calls)++;
	return false; /* as a udevcomplete that failed: the book releases */
}

/*
 * Each noted cookie is released once whoever gets there first: the event's
 * own end, the handoff giving it back, or the handoff closing the book; an
 * end after the close releases nothing (nor runs the rules' releases).
 */
ATF_TC_WITHOUT_HEAD(book_releases_once);
ATF_TC_BODY(book_releases_once, tc)
{
	static struct uevent ev;
	struct dm_cookie_book b;
	struct dm_sem done, back, open, late;
	int err, calls = 0;

	dm_sem_make(&done, 0, 5);
	dm_sem_make(&back, 0, 5);
	dm_sem_make(&open, 0, 5);
	dm_sem_make(&late, 0, 5);
	dm_cookie_book_init(&b);
	ATF_REQUIRE_EQ(dm_cookie_book_note(&b, ev_of(&done)), 0);
	ATF_CHECK_EQ(dm_cookie_book_end(&b, ev_of(&done), rules_released, &calls, &err), DM_COOKIE_BY_US);
	ATF_CHECK_EQ(calls, 1);
	ATF_REQUIRE_EQ(dm_cookie_book_note(&b, ev_of(&back)), 0);
	ATF_CHECK_EQ(dm_cookie_book_give_back(&b, ev_of(&back), &err), DM_COOKIE_BY_US);
	ATF_REQUIRE_EQ(dm_cookie_book_note(&b, ev_of(&open)), 0);
	ATF_CHECK_EQ(b.n, 1);
	ATF_CHECK_EQ(dm_cookie_book_close(&b, NULL, NULL), 1);
	ATF_CHECK_EQ(dm_cookie_book_end(&b, ev_of(&open), rules_released, &calls, &err),
		     DM_COOKIE_HANDED_OFF);
	ATF_CHECK_EQ(calls, 1);
	/* not noted (no engine, or noted after the close): its own end releases it */
	ATF_CHECK_EQ(dm_cookie_book_note(&b, ev_of(&late)), 0);
	ATF_CHECK_EQ(dm_cookie_book_end(&b, ev_of(&late), NULL, NULL, &err), DM_COOKIE_BY_US);
	dm_event(&ev, NULL);
	ATF_CHECK_EQ(dm_cookie_book_note(&b, &ev), 0);
	ATF_CHECK_EQ(b.n, 0);
	ATF_CHECK_EQ(dm_cookie_book_end(&b, &ev, NULL, NULL, &err), DM_COOKIE_NONE);
	ATF_CHECK_EQ(dm_sem_val(&done), 4);
	ATF_CHECK_EQ(dm_sem_val(&back), 4);
	ATF_CHECK_EQ(dm_sem_val(&open), 4);
	ATF_CHECK_EQ(dm_sem_val(&late), 4);
	dm_cookie_book_fini(&b);
	dm_sem_drop(&done);
	dm_sem_drop(&back);
	dm_sem_drop(&open);
	dm_sem_drop(&late);
}

/* ---- through the rules handler ---- */

struct hfx {
	struct handler_set hs;
	struct logger log;
	const char *dirs[2];
	struct dm_sem c;
	char cwd[1024];
};

/* A fake dmsetup in DIR that logs its arguments to DIR.calls and exits with code. */
static void fake_dmsetup(struct hfx *f, const char *dir, int code)
{
	char path[2048], text[2048];

	fs_mkdir_p(dir);
	snprintf(path, sizeof(path), "%s/dmsetup", dir);
	snprintf(text, sizeof(text), "#!/bin/sh\necho \"$@\" >> %s/%s.calls\nexit %d\n", f->cwd,
		 dir, code);
	fs_write_file(path, text);
	ATF_REQUIRE(chmod(path, 0755) == 0);
}

/* The handler set on a scratch sysfs and /dev with rules (NULL: no rules file). */
static void hfx_start(struct hfx *f, const char *rules)
{
	struct handler_set_config cfg = { .sysfs = "sys", .dev = "dev", .rules_dirs = f->dirs,
					  .modules_dir = "modules", .event_timeout = 1 };

	memset(f, 0, sizeof(*f));
	ATF_REQUIRE(getcwd(f->cwd, sizeof(f->cwd)));
	fs_mkdir_p("dev");
	fs_mkdir_p("modules");
	fs_mkdir_p("rules");
	if (access("sys/devices/virtual/block/dm-0", F_OK) != 0)
		fs_mkdev("/devices/virtual/block/dm-0", "class/block");
	if (rules)
		fs_write_file("rules/95-test.rules", rules);
	f->dirs[0] = "rules";
	log_init(&f->log, LOG_TARGET_STDERR, LOG_DEBUG);
	ATF_REQUIRE_EQ(handler_set_init(&f->hs, &cfg, &f->log), 0);
	dm_sem_make(&f->c, 0x0060, 2);
}

static void hfx_event(struct hfx *f)
{
	static struct uevent ev;
	char v[16];

	snprintf(v, sizeof(v), "%u", f->c.value);
	dm_event(&ev, v);
	handler_set_run(&f->hs, NULL, &ev);
}

static void hfx_stop(struct hfx *f)
{
	handler_set_fini(&f->hs);
	dm_sem_drop(&f->c);
}

static bool calls_say(const char *file, const char *want)
{
	char buf[256] = "";
	FILE *fp = fopen(file, "re");

	if (fp) {
		if (!fgets(buf, sizeof(buf), fp))
			buf[0] = '\0';
		fclose(fp);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return strcmp(buf, want) == 0;
}

#define NOTIFY_OK "ENV{DM_COOKIE}==\"?*\", RUN+=\"%s/ok/dmsetup udevcomplete $env{DM_COOKIE}\"\n"

ATF_TC(rules_release_after_failed_rules);
ATF_TC_HEAD(rules_release_after_failed_rules, tc)
{
	atf_tc_set_md_var(tc, "descr", "an IMPORT{program} and a PROGRAM that fail earlier do not keep "
			  "the rules' dmsetup udevcomplete from running; the handler then leaves the "
			  "cookie alone (released once)");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(rules_release_after_failed_rules, tc)
{
	struct hfx f;
	char rules[4096], cwd[1024], want[32];

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)));
	snprintf(rules, sizeof(rules),
		 "ENV{DM_COOKIE}==\"?*\", IMPORT{program}=\"/bin/sh -c 'echo X=1; exit 3'\"\n"
		 "ENV{DM_COOKIE}==\"?*\", PROGRAM==\"/bin/false\", GOTO=\"never\"\n"
		 "ENV{DM_COOKIE}==\"?*\", RUN+=\"/bin/sh -c 'exit 9'\"\n" NOTIFY_OK
		 "LABEL=\"never\"\n", cwd);
	hfx_start(&f, rules);
	fake_dmsetup(&f, "ok", 0);
	hfx_event(&f);
	snprintf(want, sizeof(want), "udevcomplete %u", f.c.value);
	ATF_CHECK_MSG(calls_say("ok.calls", want), "the rules' dmsetup did not run with the cookie");
	ATF_CHECK_EQ(dm_sem_val(&f.c), 2); /* the fake does not decrement; initdev did not either */
	hfx_stop(&f);
}

ATF_TC(handler_releases_when_rules_cannot);
ATF_TC_HEAD(handler_releases_when_rules_cannot, tc)
{
	atf_tc_set_md_var(tc, "descr", "the handler releases the cookie once when the rules' RUN "
			  "failed, was skipped after the event's time ran out, or when no rules ran");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "60");
}
ATF_TC_BODY(handler_releases_when_rules_cannot, tc)
{
	struct hfx f;
	char rules[4096], cwd[1024];

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)));
	/* the RUN fails */
	snprintf(rules, sizeof(rules),
		 "ENV{DM_COOKIE}==\"?*\", RUN+=\"%s/bad/dmsetup udevcomplete $env{DM_COOKIE}\"\n",
		 cwd);
	hfx_start(&f, rules);
	fake_dmsetup(&f, "bad", 1);
	hfx_event(&f);
	ATF_CHECK_EQ(dm_sem_val(&f.c), 1);
	hfx_stop(&f);
	/* a PROGRAM takes the event's whole time (1 s): the RUN is never started */
	snprintf(rules, sizeof(rules), "ENV{DM_COOKIE}==\"?*\", PROGRAM==\"/bin/sleep 5\"\n" NOTIFY_OK,
		 cwd);
	unlink("ok.calls");
	hfx_start(&f, rules);
	fake_dmsetup(&f, "ok", 0);
	hfx_event(&f);
	ATF_CHECK_MSG(access("ok.calls", F_OK) != 0, "the RUN ran after the event's time was up");
	ATF_CHECK_EQ(dm_sem_val(&f.c), 1);
	hfx_stop(&f);
	/* no rules at all */
	unlink("rules/95-test.rules");
	hfx_start(&f, NULL);
	hfx_event(&f);
	ATF_CHECK_EQ(dm_sem_val(&f.c), 1);
	/* an event without a cookie touches nothing */
	{
		static struct uevent ev;

		dm_event(&ev, NULL);
		handler_set_run(&f.hs, NULL, &ev);
		ATF_CHECK_EQ(dm_sem_val(&f.c), 1);
	}
	hfx_stop(&f);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, cookie_from_event);
	ATF_TP_ADD_TC(tp, release_decrements_once);
	ATF_TP_ADD_TC(tp, released_by_run_list);
	ATF_TP_ADD_TC(tp, releases_moved_last);
	ATF_TP_ADD_TC(tp, book_releases_once);
	ATF_TP_ADD_TC(tp, rules_release_after_failed_rules);
	ATF_TP_ADD_TC(tp, handler_releases_when_rules_cannot);
	return atf_no_error();
}
