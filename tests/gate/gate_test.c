/* SPDX-License-Identifier: MIT */
/*
 * The gate against real netlink sockets: forged messages sent by a child
 * process, and real kernel events caused by writing to a harmless uevent file.
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "forge.h"
#include "gate/gate.h"

#define NULL_UEVENT "/sys/devices/virtual/mem/null/uevent"
#define NULL_DEVPATH "/devices/virtual/mem/null"
#define FORGED_DEVPATH "/devices/virtual/block/forged0"

struct seen {
	int forged_accepted;      /* must stay 0 */
	int null_accepted;        /* change events for mem/null */
	uint64_t null_seqnum;
	enum gate_verdict last_reject;
	int rejects;
	bool reject_mentions_null; /* rejected payload was the mem/null event */
	struct uevent_raw last_raw;
};

static void on_event(void *userdata, const struct uevent *ev)
{
	struct seen *s = userdata;

	if (strcmp(ev->devpath, FORGED_DEVPATH) == 0)
		s->forged_accepted++;
	if (strcmp(ev->devpath, NULL_DEVPATH) == 0 && ev->action == UEVENT_CHANGE) {
		s->null_accepted++;
		s->null_seqnum = ev->seqnum;
	}
}

static void on_reject(void *userdata, const struct uevent_raw *raw,
		      enum gate_verdict v, const char *why)
{
	struct seen *s = userdata;

	s->rejects++;
	s->last_reject = v;
	s->last_raw = *raw;
	s->reject_mentions_null = memmem(raw->data, raw->len, "change@" NULL_DEVPATH,
					 strlen("change@" NULL_DEVPATH)) != NULL;
}

static void open_gate(struct gate *g, struct logger *log, struct seen *s, bool passcred)
{
	struct uevent_socket_options o = { .no_passcred = !passcred };

	memset(s, 0, sizeof(*s));
	log_init(log, LOG_TARGET_STDERR, LOG_DEBUG);
	ATF_REQUIRE_EQ(gate_open(g, log, &o), 0);
	g->on_reject = on_reject;
	g->userdata = s;
}

/* Read until cond holds or 3 s pass. */
static bool pump(struct gate *g, struct seen *s, bool (*cond)(struct seen *))
{
	uint64_t end = now_monotonic_usec() + 3000000u;

	while (!cond(s) && now_monotonic_usec() < end) {
		struct pollfd p = { g->fd, POLLIN, 0 };

		if (poll(&p, 1, 100) > 0)
			ATF_REQUIRE(gate_read(g, on_event, s, 128) >= 0);
	}
	return cond(s);
}

static bool got_reject(struct seen *s) { return s->rejects > 0; }
static bool got_null(struct seen *s) { return s->null_accepted > 0; }
static bool got_null_reject(struct seen *s) { return s->reject_mentions_null; }

static void send_forged(const struct forge *f, size_t min_len)
{
	static char buf[16384];
	size_t len = forge_fake_add(buf, sizeof(buf), FORGED_DEVPATH, "forged0", min_len);
	pid_t pid = fork();
	int status;

	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(forge_send(f, buf, len) == 0 ? 0 : 1);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"the forging child could not send");
}

static void expect_forgery_rejected(const struct forge *f, size_t min_len,
				    enum gate_verdict want)
{
	struct logger log;
	struct gate g;
	struct seen s;
	struct forge fw = *f;

	open_gate(&g, &log, &s, true);
	if (fw.unicast)
		fw.dst_port = g.info.port;
	send_forged(&fw, min_len);
	ATF_REQUIRE_MSG(pump(&g, &s, got_reject), "forged message never arrived");
	ATF_CHECK_EQ_MSG(s.last_reject, want, "verdict %s, expected %s",
			 gate_verdict_name(s.last_reject), gate_verdict_name(want));
	ATF_CHECK_EQ(g.stats.rejected[want], 1);
	ATF_CHECK_EQ(s.forged_accepted, 0);
	if (f->creds)
		ATF_CHECK_EQ_MSG(s.last_raw.creds.pid, f->pid,
				 "claimed pid %d, seen %d", f->pid, s.last_raw.creds.pid);
	gate_close(&g);
}

ATF_TC_WITHOUT_HEAD(forged_unicast);
ATF_TC_BODY(forged_unicast, tc)
{
	struct forge f = { .unicast = true };

	expect_forgery_rejected(&f, 0, GATE_UNICAST);
}

ATF_TC_WITHOUT_HEAD(forged_multicast);
ATF_TC_BODY(forged_multicast, tc)
{
	struct forge f = { 0 };

	expect_forgery_rejected(&f, 0, GATE_FOREIGN_PORT);
}

/* Root may claim another process's pid (init's); never pid 0 (ESRCH). */
ATF_TC_WITHOUT_HEAD(forged_with_credentials);
ATF_TC_BODY(forged_with_credentials, tc)
{
	struct forge f = { .creds = true, .pid = 1, .uid = 0, .gid = 0 };

	expect_forgery_rejected(&f, 0, GATE_FOREIGN_PORT);
}

ATF_TC_WITHOUT_HEAD(forged_credentials_pid0_refused_by_kernel);
ATF_TC_BODY(forged_credentials_pid0_refused_by_kernel, tc)
{
	struct forge f = { .creds = true, .pid = 0, .uid = 0, .gid = 0 };
	char buf[512];
	size_t len = forge_fake_add(buf, sizeof(buf), FORGED_DEVPATH, "forged0", 0);

	/* this is why the credentials check cannot be forged: the kernel refuses */
	ATF_CHECK_EQ(forge_send(&f, buf, len), -ESRCH);
}

ATF_TC_WITHOUT_HEAD(forged_truncated);
ATF_TC_BODY(forged_truncated, tc)
{
	struct forge f = { 0 };

	expect_forgery_rejected(&f, UEVENT_MSG_MAX + 1000, GATE_TRUNCATED);
}

static uint64_t read_kernel_seqnum(void)
{
	char buf[32] = "";
	int fd = open("/sys/kernel/uevent_seqnum", O_RDONLY | O_CLOEXEC);

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	return strtoull(buf, NULL, 10);
}

static void trigger_null_change(void)
{
	int fd = open(NULL_UEVENT, O_WRONLY | O_CLOEXEC);

	ATF_REQUIRE_MSG(fd >= 0, "open %s: %s", NULL_UEVENT, strerror(errno));
	ATF_REQUIRE(write(fd, "change", 6) == 6);
	close(fd);
}

ATF_TC_WITHOUT_HEAD(kernel_event_accepted);
ATF_TC_BODY(kernel_event_accepted, tc)
{
	struct logger log;
	struct gate g;
	struct seen s;
	uint64_t before, after;

	open_gate(&g, &log, &s, true);
	before = read_kernel_seqnum();
	trigger_null_change();
	ATF_REQUIRE_MSG(pump(&g, &s, got_null), "kernel event never accepted");
	after = read_kernel_seqnum();
	ATF_CHECK_MSG(s.null_seqnum > before && s.null_seqnum <= after,
		      "SEQNUM %llu not in (%llu, %llu]", (unsigned long long)s.null_seqnum,
		      (unsigned long long)before, (unsigned long long)after);
	ATF_CHECK_EQ(g.stats.rejected[GATE_NO_CREDENTIALS], 0);
	gate_close(&g);
}

/* A genuine kernel event, read without SO_PASSCRED, proves nothing: rejected. */
ATF_TC_WITHOUT_HEAD(kernel_event_without_credentials);
ATF_TC_BODY(kernel_event_without_credentials, tc)
{
	struct logger log;
	struct gate g;
	struct seen s;

	open_gate(&g, &log, &s, false);
	trigger_null_change();
	ATF_REQUIRE_MSG(pump(&g, &s, got_null_reject), "kernel event never seen");
	ATF_CHECK_EQ(s.last_reject, GATE_NO_CREDENTIALS);
	ATF_CHECK_EQ(s.null_accepted, 0);
	gate_close(&g);
}

/*
 * Seen from a user namespace that maps no uid 0, the kernel's uid 0 reads as
 * the overflow uid: initdev cannot verify the sender and rejects.
 */
static int userns_child(int ready_w, int go_r)
{
	struct logger log;
	struct gate g;
	struct seen s;
	struct uevent_socket_options o = { 0 };
	char c = 0;

	if (unshare(CLONE_NEWUSER) < 0)
		return 77;
	memset(&s, 0, sizeof(s));
	log_init(&log, LOG_TARGET_STDERR, LOG_ERR);
	if (gate_open(&g, &log, &o) < 0)
		return 78;
	g.on_reject = on_reject;
	g.userdata = &s;
	if (write(ready_w, "r", 1) != 1 || read(go_r, &c, 1) != 1)
		return 79;
	uint64_t end = now_monotonic_usec() + 3000000u;

	while (!s.reject_mentions_null && now_monotonic_usec() < end) {
		struct pollfd p = { g.fd, POLLIN, 0 };

		if (poll(&p, 1, 100) > 0)
			(void)gate_read(&g, on_event, &s, 128);
	}
	if (!s.reject_mentions_null)
		return 80;
	return s.last_reject == GATE_FOREIGN_CREDENTIALS && s.null_accepted == 0 ? 0 : 81;
}

ATF_TC_WITHOUT_HEAD(kernel_event_from_unmapped_userns);
ATF_TC_BODY(kernel_event_from_unmapped_userns, tc)
{
	int ready[2], go[2], status;
	char c;
	pid_t pid;

	ATF_REQUIRE(pipe(ready) == 0 && pipe(go) == 0);
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(userns_child(ready[1], go[0]));
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
			atf_tc_skip("unshare(CLONE_NEWUSER) is not permitted here");
		atf_tc_fail("child failed before listening (status %d)", status);
	}
	trigger_null_change();
	ATF_REQUIRE(write(go[1], "g", 1) == 1);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			"child exit %d (80: event never seen, 81: wrong verdict)",
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

ATF_TC_WITHOUT_HEAD(receive_buffer_forced);
ATF_TC_BODY(receive_buffer_forced, tc)
{
	struct logger log;
	struct gate g;
	struct seen s;

	open_gate(&g, &log, &s, true);
	ATF_CHECK(g.info.forced);
	/* the kernel reports twice what was set */
	ATF_CHECK(g.info.rcvbuf >= UEVENT_RCVBUF_DEFAULT);
	ATF_CHECK(g.info.port != 0);
	gate_close(&g);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, forged_unicast);
	ATF_TP_ADD_TC(tp, forged_multicast);
	ATF_TP_ADD_TC(tp, forged_with_credentials);
	ATF_TP_ADD_TC(tp, forged_credentials_pid0_refused_by_kernel);
	ATF_TP_ADD_TC(tp, forged_truncated);
	ATF_TP_ADD_TC(tp, kernel_event_accepted);
	ATF_TP_ADD_TC(tp, kernel_event_without_credentials);
	ATF_TP_ADD_TC(tp, kernel_event_from_unmapped_userns);
	ATF_TP_ADD_TC(tp, receive_buffer_forced);
	return atf_no_error();
}
