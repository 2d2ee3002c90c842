/* SPDX-License-Identifier: MIT */
/*
 * The engine without a socket: events are fed as the gate would hand them
 * over, coldplug writes its triggers into a fake sysfs (the test plays the
 * kernel and answers each trigger), nodes go to a scratch /dev (mknod:
 * root). Covers settling, ordering on worker threads, handler failures and
 * the rescan after lost events.
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/info.h"
#include "dm-sem.h"
#include "fake-sysfs.h"

struct fx {
	struct engine e;
	struct engine_config cfg;
	struct cmdline cmdline;
	struct logger log;
	uint64_t seqnum;
};

static void require_root(void)
{
	if (geteuid() != 0)
		atf_tc_skip("needs root (mknod)");
}

/* A scratch sysfs and /dev, udev rules from rules_dir; the engine is set up but not started. */
static void fx_init_rules(struct fx *f, bool coldplug, const char *rules_dir)
{
	memset(f, 0, sizeof(*f));
	fs_mkdir_p("sys/kernel");
	fs_write_file("sys/kernel/uevent_seqnum", "1000\n");
	fs_mkdir_p("dev");
	fs_mkdir_p("modules");
	cmdline_init(&f->cmdline);
	log_init(&f->log, LOG_TARGET_STDERR, LOG_DEBUG);
	f->cfg = (struct engine_config){ .sysfs = "sys", .dev = "dev", .rules_dirs = { rules_dir },
					 .nrules_dirs = 1,
					 .modules_dir = "modules", .coldplug = coldplug,
					 .no_devtmpfs = true, .workers = 3 };
	f->seqnum = 1000;
	engine_init(&f->e, &f->cfg, &f->cmdline, &f->log);
}

static void fx_init(struct fx *f, bool coldplug)
{
	fx_init_rules(f, coldplug, "no-rules");
}

static void fx_fini(struct fx *f)
{
	engine_close(&f->e);
	cmdline_free(&f->cmdline);
}

/* Feed "ACTION@DEVPATH" with SUBSYSTEM and extra "KEY=VALUE" strings (NULL-ended). */
static void feed(struct fx *f, const char *action, const char *devpath, const char *subsystem,
		 ...)
{
	static struct uevent ev;
	char buf[2048];
	int n = snprintf(buf, sizeof(buf), "%s@%s%cACTION=%s%cDEVPATH=%s%cSUBSYSTEM=%s%c"
			 "SEQNUM=%llu%c", action, devpath, 0, action, 0, devpath, 0, subsystem, 0,
			 (unsigned long long)++f->seqnum, 0);
	const char *kv;
	va_list ap;

	va_start(ap, subsystem);
	while ((kv = va_arg(ap, const char *)) != NULL)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%c", kv, 0);
	va_end(ap);
	ATF_REQUIRE_EQ(uevent_parse(&ev, buf, (size_t)n, NULL, 0), UEVENT_PARSE_OK);
	engine_feed(&f->e, &ev);
}

/* Run the main loop's work until settled (or fail after about 5 s). */
static void settle(struct fx *f)
{
	for (int i = 0; i < 500 && !engine_settled(&f->e); i++) {
		engine_on_done(&f->e);
		engine_step(&f->e);
		if (!engine_settled(&f->e))
			usleep(10000);
	}
	ATF_REQUIRE_MSG(engine_settled(&f->e), "not settled");
}

static bool is_node(const char *path, mode_t type)
{
	struct stat st;

	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

ATF_TC_WITHOUT_HEAD(settles_when_idle);
ATF_TC_BODY(settles_when_idle, tc)
{
	struct fx f;
	struct engine_stats s;

	fx_init(&f, false);
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	ATF_CHECK_EQ(engine_socket_fd(&f.e), -1);
	ATF_CHECK(!engine_settled(&f.e));
	settle(&f);
	engine_stats(&f.e, &s);
	ATF_CHECK_EQ(s.phase, PHASE_SETTLED);
	ATF_CHECK_EQ(s.handled, 0);
	ATF_CHECK_EQ(s.in_hand, 0);
	fx_fini(&f);
}

/* Nodes for added devices, gone with their remove; settle counts every event. */
ATF_TC_WITHOUT_HEAD(feed_makes_nodes);
ATF_TC_BODY(feed_makes_nodes, tc)
{
	struct fx f;
	struct engine_stats s;

	require_root();
	fx_init(&f, false);
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	feed(&f, "add", "/devices/virtual/mem/null", "mem", "DEVNAME=null", "MAJOR=1",
	     "MINOR=3", "DEVMODE=0666", NULL);
	feed(&f, "add", "/devices/virtual/mem/zero", "mem", "DEVNAME=zero", "MAJOR=1",
	     "MINOR=5", NULL);
	settle(&f);
	ATF_CHECK(is_node("dev/null", S_IFCHR));
	ATF_CHECK(is_node("dev/zero", S_IFCHR));
	ATF_CHECK(is_node("dev/char/1:3", S_IFLNK));
	feed(&f, "remove", "/devices/virtual/mem/zero", "mem", "DEVNAME=zero", "MAJOR=1",
	     "MINOR=5", NULL);
	ATF_CHECK(!engine_settled(&f.e)); /* an event unsettles */
	settle(&f);
	ATF_CHECK(!is_node("dev/zero", S_IFCHR));
	engine_stats(&f.e, &s);
	ATF_CHECK_EQ(s.handled, 3);
	ATF_CHECK_EQ(s.present, 1);
	ATF_CHECK_EQ(s.nodes, 1);
	ATF_CHECK_EQ(s.devnode.nodes_created, 2);
	fx_fini(&f);
}

/* The settle line is a notice once; later settles log it at info level. */
ATF_TC_WITHOUT_HEAD(settle_notice_once);
ATF_TC_BODY(settle_notice_once, tc)
{
	struct fx f;
	char buf[4096], *p = buf;
	int fd, count = 0;
	ssize_t n;

	require_root();
	fx_init(&f, false);
	fd = open("log.txt", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ATF_REQUIRE(fd >= 0);
	f.log.fd = fd;
	f.log.max_level = LOG_NOTICE;
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	for (int i = 0; i < 3; i++) {
		f.e.gate.stats.accepted++; /* as if the gate had passed it */
		feed(&f, "change", "/devices/virtual/mem/null", "mem", "DEVNAME=null", "MAJOR=1",
		     "MINOR=3", NULL);
		settle(&f);
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ATF_REQUIRE(n > 0);
	buf[n] = '\0';
	while ((p = strstr(p, "settled at kernel SEQNUM")) != NULL) {
		count++;
		p++;
	}
	ATF_CHECK_EQ_MSG(count, 1, "%d settle notices in: %s", count, buf);
	close(fd);
	f.log.fd = 2;
	fx_fini(&f);
}

/* Read the UUID coldplug wrote into sys<devpath>/uevent ("add UUID"). */
static bool trigger_uuid(const char *devpath, char uuid[64])
{
	char path[512], got[128];

	snprintf(path, sizeof(path), "sys%s/uevent", devpath);
	fs_read_file(path, got, sizeof(got));
	if (strncmp(got, "add ", 4) != 0 || strlen(got + 4) >= 64)
		return false;
	memcpy(uuid, got + 4, strlen(got + 4) + 1);
	fs_write_file(path, ""); /* answered */
	return true;
}

/* Play the kernel: answer every trigger written so far. Returns how many. */
static int answer_triggers(struct fx *f, int ndev)
{
	char devpath[64], uuid[64], kv[80];
	int n = 0;

	for (int i = 0; i < ndev; i++) {
		snprintf(devpath, sizeof(devpath), "/devices/virtual/test/t%d", i);
		if (!trigger_uuid(devpath, uuid))
			continue;
		snprintf(kv, sizeof(kv), "SYNTH_UUID=%s", uuid);
		feed(f, "add", devpath, "test", kv, NULL);
		n++;
	}
	return n;
}

/* Settled exactly when the last trigger's reply is handled, not before. */
ATF_TC_WITHOUT_HEAD(coldplug_settles_on_last_reply);
ATF_TC_BODY(coldplug_settles_on_last_reply, tc)
{
	enum { NDEV = 200 };
	struct fx f;
	struct engine_stats s;
	char devpath[64];
	int answered = 0;

	for (int i = 0; i < NDEV; i++) {
		snprintf(devpath, sizeof(devpath), "/devices/virtual/test/t%d", i);
		fs_mkdev(devpath, "class/test");
	}
	fx_init(&f, true);
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	/* paced: with no reply, writing stops once more than two batches wait */
	for (int i = 0; i < 4; i++)
		engine_step(&f.e);
	engine_stats(&f.e, &s);
	ATF_CHECK_EQ(s.awaiting_reply, 192);
	ATF_CHECK_EQ(s.triggers, 192);
	for (int round = 0; round < 100 && answered < NDEV; round++) {
		engine_step(&f.e);
		engine_stats(&f.e, &s);
		ATF_CHECK_MSG(s.awaiting_reply <= 192, "%zu awaiting", s.awaiting_reply);
		ATF_CHECK(!engine_settled(&f.e));
		answered += answer_triggers(&f, NDEV);
	}
	ATF_CHECK_EQ(answered, NDEV);
	settle(&f);
	engine_stats(&f.e, &s);
	ATF_CHECK_EQ(s.triggers, NDEV);
	ATF_CHECK_EQ(s.awaiting_reply, 0);
	ATF_CHECK_EQ(s.handled, NDEV);
	ATF_CHECK_EQ(s.present, NDEV);
	fx_fini(&f);
}

/* ---- a test handler: records the order it saw, may fail ---- */

struct probe {
	pthread_mutex_t lock;
	uint64_t seen[64];
	int n;
};

static bool probe_may_block(void *ctx, const struct uevent *ev)
{
	return true; /* every event through the worker threads */
}

static void probe_handle(void *ctx, const struct handler_call *call)
{
	struct probe *p = ctx;

	usleep(call->ev->seqnum % 3 * 2000); /* uneven work */
	pthread_mutex_lock(&p->lock);
	if (p->n < 64)
		p->seen[p->n++] = call->ev->seqnum;
	pthread_mutex_unlock(&p->lock);
}

static const struct handler_ops probe_ops = {
	.name = "probe", .may_block = probe_may_block, .handle = probe_handle,
};

static int position(const struct probe *p, uint64_t seqnum)
{
	for (int i = 0; i < p->n; i++)
		if (p->seen[i] == seqnum)
			return i;
	return -1;
}

/* A device's events, and a parent's and child's, in SEQNUM order on workers. */
ATF_TC_WITHOUT_HEAD(related_events_in_order);
ATF_TC_BODY(related_events_in_order, tc)
{
	struct probe p = { .lock = PTHREAD_MUTEX_INITIALIZER };
	const char *paths[] = { "/devices/a", "/devices/a/b", "/devices/c", "/devices/a/b/d" };
	struct fx f;

	fx_init(&f, false);
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	ATF_REQUIRE_EQ(handler_set_add(&f.e.handlers, &probe_ops, &p), 0);
	for (int round = 0; round < 4; round++)
		for (int i = 0; i < 4; i++)
			feed(&f, round ? "change" : "add", paths[i], "test", NULL);
	settle(&f);
	ATF_REQUIRE_EQ(p.n, 16);
	/* events 1001.. in feed order: (round, i) is 1001 + 4 * round + i */
	for (int a = 0; a < 16; a++)
		for (int b = a + 1; b < 16; b++) {
			const char *pa = paths[a % 4], *pb = paths[b % 4];
			bool related = strncmp(pa, pb, strlen(pa)) == 0 ||
				       strncmp(pb, pa, strlen(pb)) == 0;

			if (related)
				ATF_CHECK_MSG(position(&p, 1001 + a) < position(&p, 1001 + b),
					      "%s (%d) handled after %s (%d)", pa, 1001 + a, pb,
					      1001 + b);
		}
	fx_fini(&f);
}

/* A handler that fails does not stop the others, nor settle. */
ATF_TC_WITHOUT_HEAD(handler_failure_goes_on);
ATF_TC_BODY(handler_failure_goes_on, tc)
{
	struct probe p = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct fx f;
	struct engine_stats s;

	require_root();
	fx_init(&f, false);
	fs_write_file("dev/taken", "not a node\n"); /* devnode must refuse to replace it */
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	ATF_REQUIRE_EQ(handler_set_add(&f.e.handlers, &probe_ops, &p), 0);
	feed(&f, "add", "/devices/virtual/mem/taken", "mem", "DEVNAME=taken", "MAJOR=1",
	     "MINOR=7", NULL);
	feed(&f, "add", "/devices/virtual/mem/null", "mem", "DEVNAME=null", "MAJOR=1",
	     "MINOR=3", NULL);
	settle(&f);
	engine_stats(&f.e, &s);
	ATF_CHECK_EQ(s.devnode.errors, 1);
	ATF_CHECK(is_node("dev/null", S_IFCHR));
	ATF_CHECK_EQ(p.n, 2); /* the handler after devnode saw both events */
	ATF_CHECK_EQ(s.handled, 2);
	fx_fini(&f);
}

/* Lost events: stale nodes go, every device is triggered again, slower. */
ATF_TC_WITHOUT_HEAD(events_lost_rescans);
ATF_TC_BODY(events_lost_rescans, tc)
{
	struct fx f;
	struct engine_stats s;
	char uuid[64];

	require_root();
	fs_mkdev("/devices/virtual/test/t0", "class/test");
	fs_mkdev("/devices/virtual/mem/gone", "class/mem");
	fx_init(&f, false);
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	feed(&f, "add", "/devices/virtual/mem/gone", "mem", "DEVNAME=gone", "MAJOR=1",
	     "MINOR=9", NULL);
	settle(&f);
	ATF_REQUIRE(is_node("dev/gone", S_IFCHR));
	ATF_REQUIRE_EQ(system("rm -rf sys/devices/virtual/mem/gone"), 0);
	engine_events_lost(&f.e);
	ATF_CHECK(!is_node("dev/gone", S_IFCHR));
	ATF_CHECK(!engine_settled(&f.e));
	engine_step(&f.e);
	ATF_REQUIRE(trigger_uuid("/devices/virtual/test/t0", uuid));
	engine_stats(&f.e, &s);
	ATF_CHECK_EQ(s.rescans, 1);
	ATF_CHECK_EQ(s.present, 0);
	ATF_CHECK_EQ(s.triggers, 1);
	ATF_CHECK_EQ(f.e.coldplug.batch, 32);
	fx_fini(&f);
}

/*
 * A name only rules give (SYMLINK) is contested like a native one: a USB
 * disk that claimed it first loses it to an internal disk at the same
 * priority (trust-model.md, "Cloned UUIDs").
 */
ATF_TC_WITHOUT_HEAD(rules_link_removable_loses);
ATF_TC_BODY(rules_link_removable_loses, tc)
{
	struct fx f;
	char to[64] = "";

	require_root();
	fs_mkdir_p("rules");
	fs_write_file("rules/50-shared.rules", "SUBSYSTEM==\"block\", SYMLINK+=\"shared\"\n");
	fx_init_rules(&f, false, "rules");
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	feed(&f, "add", "/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/host6/target6:0:0/"
	     "6:0:0:0/block/sdx", "block", "DEVNAME=sdx", "DEVTYPE=disk", "MAJOR=8", "MINOR=240",
	     NULL);
	settle(&f);
	ATF_REQUIRE(readlink("dev/shared", to, sizeof(to) - 1) > 0);
	ATF_CHECK_STREQ(to, "sdx");
	memset(to, 0, sizeof(to));
	feed(&f, "add", "/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sdw",
	     "block", "DEVNAME=sdw", "DEVTYPE=disk", "MAJOR=8", "MINOR=224", NULL);
	settle(&f);
	ATF_REQUIRE(readlink("dev/shared", to, sizeof(to) - 1) > 0);
	ATF_CHECK_STREQ(to, "sdw");
	fx_fini(&f);
}

/*
 * udevadm info prints KEY=VALUE lines that dracut parses: a value with a
 * line break (a device-mapper name may hold one) must not add a line.
 */
ATF_TC_WITHOUT_HEAD(info_value_line_break);
ATF_TC_BODY(info_value_line_break, tc)
{
	struct fx f;
	char buf[4096];

	require_root();
	fs_mkdir_p("rules");
	fs_write_file("rules/50-dm.rules", "ENV{DM_NAME}==\"?*\", ENV{SEEN}=\"1\", ENV{COPY}=\"$env{DM_NAME}\"\n");
	fx_init_rules(&f, false, "rules");
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	feed(&f, "add", "/devices/virtual/block/dm-7", "block", "DEVNAME=dm-7", "DEVTYPE=disk",
	     "MAJOR=253", "MINOR=7", "DM_NAME=a\nID_FS_UUID=forged", NULL);
	settle(&f);
	ATF_REQUIRE(info_properties(&f.e, "dm-7", buf, sizeof(buf)) > 0);
	ATF_CHECK_MSG(strstr(buf, "SEEN=1\n") != NULL, "the rules did not run: %s", buf);
	ATF_CHECK_MSG(strstr(buf, "ID_FS_UUID=forged") == NULL, "a value added a line: %s", buf);
	fx_fini(&f);
}

/* Wait (about 10 s at most) for path to exist. */
static bool appears(const char *path)
{
	for (int i = 0; i < 1000; i++) {
		if (access(path, F_OK) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

/* A dm tool in dm_udev_wait: it took its own one off, waits for zero. Its pid. */
static pid_t cookie_waiter(const struct dm_sem *c)
{
	struct sembuf dec = { 0, -1, IPC_NOWAIT }, zero = { 0, 0, 0 };
	pid_t pid;

	ATF_REQUIRE(semop(c->semid, &dec, 1) == 0);
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(semop(c->semid, &zero, 1) == 0 ? 0 : 1);
	return pid;
}

/* Has the waiter returned (within about 10 s)? Killed if not. */
static bool waiter_done(pid_t pid)
{
	int status;

	for (int i = 0; i < 1000; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return false;
}

static void feed_cookie(struct fx *f, const char *action, const char *devpath,
			const struct dm_sem *c)
{
	char v[32];

	snprintf(v, sizeof(v), "DM_COOKIE=%u", c->value);
	feed(f, action, devpath, "block", v, NULL);
}

/*
 * The handoff's grace runs out with device-mapper cookies in hand: the
 * cookie of the running event (its worker abandoned), of an event kept
 * behind it, and of an event given back to the kernel (whose new event
 * carries none) are each released once, and a tool waiting on one
 * returns. The same device's remove, queued behind its running change, is
 * not handled beside it. The worker that finishes afterwards releases
 * nothing more.
 */
ATF_TC_WITHOUT_HEAD(give_back_cookies_and_order);
ATF_TC_BODY(give_back_cookies_and_order, tc)
{
	char cwd[1024], rules[4096], uevent[64], handled[256] = "";
	struct dm_sem run, kept, back;
	struct fx f;
	pid_t waiter;

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)));
	fs_mkdir_p("gb-rules");
	snprintf(rules, sizeof(rules),
		 "RUN+=\"/bin/sh -c 'echo $env{SEQNUM} >> %s/handled'\"\n"
		 "KERNEL==\"hold0\", ACTION==\"change\", RUN+=\"/bin/sh -c 'touch %s/started; "
		 "until [ -e %s/go ]; do sleep 0.02; done'\"\n", cwd, cwd, cwd);
	fs_write_file("gb-rules/50-test.rules", rules);
	fx_init_rules(&f, false, "gb-rules");
	f.e.cfg.workers = 1;
	fs_mkdev("/devices/virtual/block/hold0", "class/block");
	fs_mkdev("/devices/virtual/block/other0", "class/block");
	dm_sem_make(&run, 0x0040, 3); /* a second event of the same cookie is still to come */
	dm_sem_make(&kept, 0x0040, 2);
	dm_sem_make(&back, 0x0040, 2);
	waiter = cookie_waiter(&kept);
	ATF_REQUIRE_EQ(engine_start(&f.e), 0);
	feed_cookie(&f, "change", "/devices/virtual/block/hold0", &run);       /* 1001 */
	ATF_REQUIRE_MSG(appears("started"), "the worker did not start event 1001");
	feed_cookie(&f, "change", "/devices/virtual/block/hold0", &kept);      /* 1002 */
	feed_cookie(&f, "change", "/devices/virtual/block/other0", &back);     /* 1003 */
	feed(&f, "remove", "/devices/virtual/block/hold0", "block", NULL);      /* 1004 */
	ATF_REQUIRE_EQ(engine_in_hand(&f.e), 4);

	engine_give_back(&f.e);
	ATF_CHECK_EQ_MSG(dm_sem_val(&run), 2, "the running event's cookie: %d", dm_sem_val(&run));
	ATF_CHECK_EQ_MSG(dm_sem_val(&kept), 0, "the kept event's cookie: %d", dm_sem_val(&kept));
	ATF_CHECK_EQ_MSG(dm_sem_val(&back), 1, "the given-back event's cookie: %d",
			 dm_sem_val(&back));
	ATF_CHECK_MSG(waiter_done(waiter), "the tool still waits in dm_udev_wait");
	fs_read_file("sys/devices/virtual/block/other0/uevent", uevent, sizeof(uevent));
	ATF_CHECK_MSG(strncmp(uevent, "change", 6) == 0, "written: %s", uevent);
	fs_read_file("sys/devices/virtual/block/hold0/uevent", uevent, sizeof(uevent));
	ATF_CHECK_MSG(strncmp(uevent, "change", 6) == 0, "written: %s", uevent);
	ATF_CHECK_EQ(f.e.given_back, 2); /* 1003, and 1002 behind 1001: for the real root */
	ATF_CHECK_EQ(f.e.abandoned, 2);  /* 1001 running, the remove 1004 behind it */
	ATF_CHECK_EQ(f.e.kept, 1);
	ATF_CHECK_EQ(f.e.cookies_released, 3);
	fs_read_file("handled", handled, sizeof(handled));
	ATF_CHECK_STREQ_MSG(handled, "1001\n", "handled beside the running event: %s", handled);

	/* the abandoned worker ends (in a daemon: _exit) and releases nothing more */
	fs_write_file("go", "");
	fx_fini(&f);
	ATF_CHECK_EQ_MSG(dm_sem_val(&run), 2, "released twice: %d", dm_sem_val(&run));
	fs_read_file("handled", handled, sizeof(handled));
	ATF_CHECK_STREQ_MSG(handled, "1001\n", "a kept event was started: %s", handled);
	dm_sem_drop(&run);
	dm_sem_drop(&kept);
	dm_sem_drop(&back);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, give_back_cookies_and_order);
	ATF_TP_ADD_TC(tp, settles_when_idle);
	ATF_TP_ADD_TC(tp, settle_notice_once);
	ATF_TP_ADD_TC(tp, feed_makes_nodes);
	ATF_TP_ADD_TC(tp, coldplug_settles_on_last_reply);
	ATF_TP_ADD_TC(tp, related_events_in_order);
	ATF_TP_ADD_TC(tp, handler_failure_goes_on);
	ATF_TP_ADD_TC(tp, events_lost_rescans);
	ATF_TP_ADD_TC(tp, rules_link_removable_loses);
	ATF_TP_ADD_TC(tp, info_value_line_break);
	return atf_no_error();
}
