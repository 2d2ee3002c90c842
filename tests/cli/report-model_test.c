/* SPDX-License-Identifier: MIT */
/* initdev report's model: triggers matched to events, pending work, modules, folding. */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"

#define HEAD "initdev-trace 1\nstart_monotonic_us 5\ncapacity 8192\ndropped 0\n"

struct fixture {
	struct trace_log log;
	struct report r;
};

static void build(struct fixture *f, const char *text)
{
	struct trace_error err;

	if (trace_log_parse(&f->log, text, strlen(text), &err) != 0)
		atf_tc_fail("bad fixture: %s", err.why);
	ATF_REQUIRE_EQ(report_build(&f->r, &f->log), 0);
}

static void done(struct fixture *f)
{
	report_free(&f->r);
	trace_log_free(&f->log);
}

static const struct report_device *device(const struct report *r, const char *devpath)
{
	for (size_t i = 0; i < r->ndev; i++)
		if (strcmp(r->dev[i].devpath, devpath) == 0)
			return &r->dev[i];
	atf_tc_fail("no device %s", devpath);
	return NULL;
}

ATF_TC_WITHOUT_HEAD(event_takes_the_latest_trigger_before_it);
ATF_TC_BODY(event_takes_the_latest_trigger_before_it, tc)
{
	struct fixture f;
	const struct report_device *d;

	build(&f, HEAD "phase 0 startup\nphase 2 settled\nphase 5 coldplug\ntrigger 10 /a\n"
		       "trigger 20 /a\nevent 30 1 add x /a\n"
		       "handled 35 1 main devnode=5 disk=10\nevent 50 2 change x /a\n"
		       "handled 50 2 worker devnode=1\nphase 60 settled\nphase 70 settling\n"
		       "phase 80 settled\nend 100\n");
	ATF_REQUIRE_EQ(f.r.ndev, 1);
	d = device(&f.r, "/a");
	ATF_REQUIRE_EQ(d->nev, 2);
	ATF_CHECK_EQ(d->ev[0].trigger->t, 20);
	ATF_CHECK(d->ev[1].trigger == NULL); /* a change nobody asked for */
	ATF_CHECK_EQ(d->ev[0].handled->seqnum, 1);
	ATF_CHECK_EQ(d->ev[1].handled->seqnum, 2);
	ATF_CHECK(!d->pending && !d->no_reply);
	ATF_CHECK_EQ(d->first, 20);
	ATF_CHECK_EQ(d->last, 51);
	ATF_CHECK_EQ(d->handling, 16);
	ATF_CHECK_STREQ(d->subsystem, "x");
	ATF_CHECK_STREQ(report_device_label(d), "a");
	/* time to settle: the first settle after coldplug began */
	ATF_CHECK(f.r.settled && f.r.coldplug);
	ATF_CHECK_EQ(f.r.coldplug_at, 5);
	ATF_CHECK_EQ(f.r.settled_at, 60);
	ATF_CHECK_STREQ(f.r.last_phase, "settled");
	ATF_CHECK_EQ(f.r.triggers, 2);
	done(&f);
}

ATF_TC_WITHOUT_HEAD(unanswered_and_unhandled_are_pending);
ATF_TC_BODY(unanswered_and_unhandled_are_pending, tc)
{
	struct fixture f;
	const struct report_device *a, *b, *c;

	build(&f, HEAD "trigger 10 /a\nevent 20 1 add x /b\ntrigger 30 /c\nevent 40 3 add x /c\n"
		       "handled 41 3 main devnode=1\ntrigger 50 /c\nhandled 60 99 main devnode=1\n"
		       "end 100\n");
	a = device(&f.r, "/a");
	b = device(&f.r, "/b");
	c = device(&f.r, "/c");
	ATF_CHECK(a->pending && a->no_reply_pending && a->nev == 0);
	ATF_CHECK_EQ(a->first, 10);
	ATF_CHECK_EQ(a->last, 100);
	ATF_CHECK(b->pending && b->ev[0].pending && !b->no_reply);
	ATF_CHECK(!b->ev[0].trigger);
	/* answered once, then triggered again without reply */
	ATF_CHECK(c->pending && c->no_reply_pending && !c->ev[0].pending);
	ATF_CHECK_EQ(c->no_reply->t, 50);
	ATF_CHECK_EQ(f.r.pending_triggers, 2);
	ATF_CHECK_EQ(f.r.pending_events, 1);
	ATF_CHECK_EQ(f.r.orphans, 1); /* handled 99 has no event */
	ATF_CHECK(!f.r.settled);
	done(&f);
}

ATF_TC_WITHOUT_HEAD(lost_middle_is_not_called_pending);
ATF_TC_BODY(lost_middle_is_not_called_pending, tc)
{
	struct fixture f;

	/* 16 slots: the first 4 records, then the ring; 84 lost between */
	build(&f, "initdev-trace 1\nstart_monotonic_us 1\ncapacity 16\ndropped 84\n"
		  "trigger 1 /a\nevent 2 1 add x /a\nhandled 3 1 main devnode=1\ntrigger 4 /b\n"
		  "trigger 90 /c\nevent 95 9 add x /c\nevent 96 10 add x /d\n"
		  "handled 97 10 main devnode=1\nend 100\n");
	ATF_CHECK_EQ(f.r.gap_from, 4);
	ATF_CHECK_EQ(f.r.gap_to, 90);
	ATF_CHECK(!device(&f.r, "/b")->pending); /* its event may be in the gap */
	ATF_CHECK(device(&f.r, "/c")->pending);  /* after the gap: really pending */
	ATF_CHECK(!device(&f.r, "/d")->pending);
	ATF_CHECK_EQ(f.r.pending_triggers, 0);
	ATF_CHECK_EQ(f.r.pending_events, 1);
	done(&f);
}

ATF_TC_WITHOUT_HEAD(modules_belong_to_their_event_device);
ATF_TC_BODY(modules_belong_to_their_event_device, tc)
{
	struct fixture f;

	build(&f,
	      HEAD "event 10 7 add pci /pci/a\nhandled 11 7 worker modload=90\n"
		   "module 12 80 7 loaded virtio_pci\nmodule 20 5 0 loaded ext4\n"
		   "module 30 9 1234 error:5 lost_one\nmodule 40 3 7 no-device other\nend 200\n");
	ATF_REQUIRE_EQ(f.r.nmod, 4);
	ATF_CHECK_STREQ(f.r.mod[0].dev->devpath, "/pci/a");
	ATF_CHECK(f.r.mod[1].dev == NULL); /* rd.driver.pre */
	ATF_CHECK(f.r.mod[2].dev == NULL); /* its event was not kept */
	ATF_CHECK_EQ(f.r.mod[2].e->result, -EIO);
	ATF_REQUIRE_EQ(f.r.nslow_mod, 4);
	ATF_CHECK_STREQ(f.r.mod[f.r.slow_mod[0]].e->name, "virtio_pci");
	ATF_CHECK_STREQ(f.r.mod[f.r.slow_mod[1]].e->name, "lost_one");
	ATF_CHECK_STREQ(f.r.mod[f.r.slow_mod[3]].e->name, "other");
	done(&f);
}

ATF_TC_WITHOUT_HEAD(fast_and_beyond_the_slowest_are_folded);
ATF_TC_BODY(fast_and_beyond_the_slowest_are_folded, tc)
{
	size_t size = 1 << 20, len = 0, rows = 0;
	char *text = malloc(size);
	struct fixture f;

	ATF_REQUIRE(text);
	len += (size_t)snprintf(text, size, HEAD);
	/* 150 slow devices (2..151 ms), 50 fast ones, one pending */
	for (int i = 0; i < 200; i++) {
		len += (size_t)snprintf(text + len, size - len,
					"event %d %d add %s /d/%d\n"
					"handled %d %d main disk=%d\n",
					i, i + 1, i < 150 ? "block" : "tty", i, i, i + 1,
					i < 150 ? 2000 + i * 1000 : 10);
	}
	len += (size_t)snprintf(text + len, size - len, "trigger 5 /p\nend 1000000\n");
	build(&f, text);
	free(text);
	ATF_REQUIRE_EQ(f.r.ndev, 201);
	for (size_t i = 0; i < f.r.ndev; i++)
		rows += f.r.dev[i].row;
	ATF_CHECK_EQ(rows, REPORT_DEVICE_ROWS);
	ATF_CHECK(device(&f.r, "/p")->row);      /* pending comes first */
	ATF_CHECK(device(&f.r, "/d/149")->row);  /* the slowest */
	ATF_CHECK(!device(&f.r, "/d/50")->row);  /* slow, but beyond the 100 slowest */
	ATF_CHECK(!device(&f.r, "/d/160")->row); /* fast */
	ATF_REQUIRE_EQ(f.r.nslow_dev, REPORT_TOP);
	ATF_CHECK_STREQ(f.r.dev[f.r.slow_dev[0]].devpath, "/d/149");
	ATF_CHECK_STREQ(f.r.dev[f.r.slow_dev[9]].devpath, "/d/140");
	done(&f);
}

ATF_TC_WITHOUT_HEAD(empty_trace);
ATF_TC_BODY(empty_trace, tc)
{
	struct fixture f;

	build(&f, HEAD "end 0\n");
	ATF_CHECK_EQ(f.r.ndev, 0);
	ATF_CHECK_EQ(f.r.nmod, 0);
	ATF_CHECK(!f.r.settled && f.r.last_phase == NULL);
	ATF_CHECK_EQ(report_write_svg(&f.r, "empty.svg"), 0);
	ATF_CHECK_EQ(report_write_svg(&f.r, "missing/empty.svg"), -ENOENT);
	done(&f);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, event_takes_the_latest_trigger_before_it);
	ATF_TP_ADD_TC(tp, unanswered_and_unhandled_are_pending);
	ATF_TP_ADD_TC(tp, lost_middle_is_not_called_pending);
	ATF_TP_ADD_TC(tp, modules_belong_to_their_event_device);
	ATF_TP_ADD_TC(tp, fast_and_beyond_the_slowest_are_folded);
	ATF_TP_ADD_TC(tp, empty_trace);
	return atf_no_error();
}
