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
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
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

/* A scratch sysfs and /dev; the engine is set up but not started. */
static void fx_init(struct fx *f, bool coldplug)
{
	memset(f, 0, sizeof(*f));
	fs_mkdir_p("sys/kernel");
	fs_write_file("sys/kernel/uevent_seqnum", "1000\n");
	fs_mkdir_p("dev");
	fs_mkdir_p("modules");
	cmdline_init(&f->cmdline);
	log_init(&f->log, LOG_TARGET_STDERR, LOG_DEBUG);
	f->cfg = (struct engine_config){ .sysfs = "sys", .dev = "dev", .rules_dirs = { "no-rules" },
					 .nrules_dirs = 1,
					 .modules_dir = "modules", .coldplug = coldplug,
					 .no_devtmpfs = true, .workers = 3 };
	f->seqnum = 1000;
	engine_init(&f->e, &f->cfg, &f->cmdline, &f->log);
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

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, settles_when_idle);
	ATF_TP_ADD_TC(tp, feed_makes_nodes);
	ATF_TP_ADD_TC(tp, coldplug_settles_on_last_reply);
	ATF_TP_ADD_TC(tp, related_events_in_order);
	ATF_TP_ADD_TC(tp, handler_failure_goes_on);
	ATF_TP_ADD_TC(tp, events_lost_rescans);
	return atf_no_error();
}
