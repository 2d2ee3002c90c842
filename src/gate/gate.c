/* SPDX-License-Identifier: MIT */
#include "gate/gate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/escape.h"

static int gate_alloc(struct gate *g, const struct logger *log)
{
	memset(g, 0, sizeof(*g));
	g->fd = -1;
	g->log = log;
	g->reject_rl = (struct ratelimit)RATELIMIT_INIT(5 * 1000000u, 10);
	g->batch = calloc(UEVENT_BATCH_MAX, sizeof(*g->batch));
	g->ev = calloc(1, sizeof(*g->ev));
	if (!g->batch || !g->ev) {
		gate_close(g);
		return -ENOMEM;
	}
	return 0;
}

static void report_buffer(struct gate *g, int wanted)
{
	if (wanted <= 0)
		wanted = UEVENT_RCVBUF_DEFAULT;
	/* the kernel doubles the value it stores; half of it is what we got */
	if (!g->info.forced && g->info.rcvbuf / 2 < wanted)
		log_msg(g->log, LOG_WARNING,
			"SO_RCVBUFFORCE refused; receive buffer is %d bytes, not %d: "
			"a large coldplug burst may overflow it (events are then "
			"recovered by rescanning)", g->info.rcvbuf, wanted);
	else
		log_msg(g->log, LOG_DEBUG, "uevent socket port %u, receive buffer %d bytes",
			g->info.port, g->info.rcvbuf);
}

int gate_open(struct gate *g, const struct logger *log,
	      const struct uevent_socket_options *opts)
{
	int r = gate_alloc(g, log);

	if (r < 0)
		return r;
	g->fd = uevent_socket_open(opts, &g->info);
	if (g->fd < 0) {
		r = g->fd;
		gate_close(g);
		return r;
	}
	report_buffer(g, opts->rcvbuf);
	return 0;
}

int gate_adopt(struct gate *g, const struct logger *log, int fd,
	       const struct uevent_socket_options *opts)
{
	int r = gate_alloc(g, log);

	g->fd = fd;
	if (r == 0)
		r = uevent_socket_adopt(fd, opts, &g->info);
	if (r < 0) {
		gate_close(g);
		return r;
	}
	report_buffer(g, opts->rcvbuf);
	return 0;
}

void gate_close(struct gate *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	free(g->batch);
	free(g->ev);
	g->batch = NULL;
	g->ev = NULL;
}

uint64_t gate_rejected_total(const struct gate_stats *s)
{
	uint64_t n = 0;

	for (int i = GATE_ACCEPT + 1; i < GATE_VERDICT_COUNT; i++)
		n += s->rejected[i];
	return n;
}

static void log_rejection(struct gate *g, const struct uevent_raw *raw,
			  enum gate_verdict v, const char *why)
{
	char preview[96];
	uint64_t dropped;

	if (!ratelimit_allow(&g->reject_rl, now_monotonic_usec(), &dropped))
		return;
	if (dropped)
		log_msg(g->log, LOG_WARNING, "%llu more rejections not logged",
			(unsigned long long)dropped);
	escape_log(preview, sizeof(preview), (const char *)raw->data,
		   raw->len < 64 ? raw->len : 64);
	log_msg(g->log, LOG_WARNING,
		"rejected uevent (%s): %s; sender port %u pid %d uid %d; \"%s\"",
		gate_verdict_name(v), why,
		raw->has_sender ? (unsigned int)raw->sender.nl_pid : 0,
		raw->has_creds ? (int)raw->creds.pid : -1,
		raw->has_creds ? (int)raw->creds.uid : -1, preview);
}

static void judge(struct gate *g, const struct uevent_raw *raw, bool lost,
		  gate_event_fn on_event, void *userdata)
{
	char why[256];
	enum gate_verdict v = gate_verify(raw, g->ev, why, sizeof(why));

	if (v == GATE_ACCEPT) {
		g->stats.accepted++;
		if (lost && g->discard_after_loss)
			g->stats.discarded++;
		else
			on_event(userdata, g->ev);
		return;
	}
	g->stats.rejected[v]++;
	log_rejection(g, raw, v, why);
	if (g->on_reject)
		g->on_reject(g->userdata, raw, v, why);
}

int gate_read(struct gate *g, gate_event_fn on_event, void *userdata,
	      unsigned int max_events)
{
	unsigned int left = max_events, taken = 0;
	bool lost = false;

	while (lost || left > 0) {
		size_t want = lost || left > UEVENT_BATCH_MAX ? UEVENT_BATCH_MAX : left;
		int n = uevent_socket_recv(g->fd, g->batch, want);

		if (n == -ENOBUFS) {
			g->stats.overflows++;
			log_msg(g->log, LOG_WARNING,
				"uevent socket overflowed: the kernel dropped events");
			/*
			 * Drain to empty before reporting: the kernel reports the
			 * next overflow only after the queue was empty once, so a
			 * rescan started earlier could lose events silently.
			 */
			lost = true;
			continue;
		}
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			judge(g, &g->batch[i], lost, on_event, userdata);
		taken += (unsigned int)n;
		if (!lost)
			left -= (unsigned int)n;
		if ((size_t)n < want)
			break;
	}
	return lost ? -ENOBUFS : (int)taken;
}
