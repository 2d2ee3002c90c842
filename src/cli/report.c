/* SPDX-License-Identifier: MIT */
/*
 * initdev report [--svg FILE] [--json] [--trace FILE]: where the device
 * phase's time went. The trace comes from the running daemon (asked over
 * the control socket to write RUN/trace now), or from RUN/trace as the
 * daemon left it at its handoff or exit, or from --trace FILE.
 */
#include "cli/report.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/control.h"
#include "util/log.h"

struct options {
	const char *svg;
	const char *trace;
	bool json;
};

static int parse_args(struct options *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "svg", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "trace", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const char usage[] = "usage: initdev report [--svg FILE] [--json] [--trace FILE]\n";
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': o->svg = optarg; break;
		case 'j': o->json = true; break;
		case 't': o->trace = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return -1;
		}
	}
	if (optind < argc) {
		fputs(usage, stderr);
		return -1;
	}
	return 1;
}

/*
 * The trace's path: --trace, else RUN/trace, fresh from a running daemon if
 * there is one. 0, or -1 (said why).
 */
static int locate(const struct cli *cli, const struct options *o, char *path, size_t size)
{
	char reply[256];
	bool connected = false;
	int r;

	if (o->trace) {
		snprintf(path, size, "%s", o->trace);
		return 0;
	}
	if ((size_t)snprintf(path, size, "%s/" TRACE_FILE_NAME, cli->run) >= size) {
		fprintf(stderr, "initdev: %s: path too long\n", cli->run);
		return -1;
	}
	r = control_request(cli->run, "trace", reply, sizeof(reply), 10000, &connected);
	if (!connected)
		return 0; /* no daemon: the file it left, if any */
	if (r > 0 && strncmp(reply, "OK", 2) == 0)
		return 0;
	fprintf(stderr, "initdev: the daemon at %s/control did not write its trace: %s\n", cli->run,
		r < 0 ? errno_text(r) : reply);
	return -1;
}

static int load(const struct cli *cli, const struct options *o, struct trace_log *log, char *path,
		size_t size)
{
	struct trace_error err;
	int r;

	if (locate(cli, o, path, size) < 0)
		return -1;
	r = trace_log_load(log, path, &err);
	if (r == -EINVAL)
		fprintf(stderr, "initdev: %s: %s\n", path, err.why);
	else if (r == -ENOENT && !o->trace)
		fprintf(stderr, "initdev: no daemon at %s/control, and no trace at %s\n", cli->run,
			path);
	else if (r < 0)
		fprintf(stderr, "initdev: %s: %s\n", path, errno_text(r));
	return r < 0 ? -1 : 0;
}

/* ---- the text summary ---- */

static double ms(uint64_t us)
{
	return (double)us / 1000.0;
}

static void print_header(const struct report *r, const char *path, FILE *f)
{
	const struct trace_log *log = r->log;

	fprintf(f, "trace: %s (version %u), %zu records kept, %llu dropped (%llu slots)\n", path,
		log->version, log->n, (unsigned long long)log->dropped,
		(unsigned long long)log->capacity);
	if (log->dropped)
		fprintf(f,
			"  the middle of the run was lost: from %.3f ms to %.3f ms it is incomplete\n",
			ms(r->gap_from), ms(r->gap_to));
	if (log->log_dropped)
		fprintf(f, "log: %llu of the daemon's log lines were kept out of /dev/kmsg by its "
			"rate limit\n", (unsigned long long)log->log_dropped);
	fprintf(f, "time 0: the daemon's start, %.3f s after boot (CLOCK_MONOTONIC)\n",
		(double)log->start_monotonic_us / 1e6);
	fprintf(f, "phases:");
	for (unsigned int i = 0; i < log->nphases; i++)
		fprintf(f, "%s %s %.3f ms", i ? "," : "", log->phase[i].name, ms(log->phase[i].t));
	fprintf(f, "%s\n", log->nphases ? "" : " none");
	if (r->settled && r->coldplug)
		fprintf(f,
			"settled: %.3f ms after the daemon's start, %.3f ms after coldplug "
			"began\n",
			ms(r->settled_at), ms(r->settled_at - r->coldplug_at));
	else if (r->settled)
		fprintf(f, "settled: %.3f ms after the daemon's start (no coldplug)\n",
			ms(r->settled_at));
	else
		fprintf(f, "settled: not by the end of the trace\n");
	fprintf(f, "end of the trace: %.3f ms (phase %s)\n", ms(log->end),
		r->last_phase ? r->last_phase : "unknown");
}

static void print_counts(const struct report *r, FILE *f)
{
	size_t worker = 0, events = 0, loaded = 0, failed = 0;

	for (size_t i = 0; i < r->nevents; i++) {
		events++;
		worker += r->events[i].handled && r->events[i].handled->worker;
	}
	for (size_t i = 0; i < r->nmod; i++) {
		loaded += r->mod[i].e->result == 0;
		failed += r->mod[i].e->result < 0 && r->mod[i].e->result != -EEXIST &&
			  r->mod[i].e->result != -ENODEV;
	}
	fprintf(f,
		"devices: %zu (%zu events, %zu triggers written; %zu events handled on "
		"worker threads)\n",
		r->ndev, events, r->triggers, worker);
	fprintf(f, "modules: %zu insertions, %zu loaded, %zu failed\n", r->nmod, loaded, failed);
	if (r->orphans)
		fprintf(f, "handled events whose event record was lost: %zu\n", r->orphans);
}

static void print_modules(const struct report *r, FILE *f)
{
	char buf[TRACE_RESULT_MAX];

	if (r->nslow_mod == 0)
		return;
	fprintf(f, "\nslowest module insertions (dependencies included):\n");
	for (size_t i = 0; i < r->nslow_mod; i++) {
		const struct report_module *m = &r->mod[r->slow_mod[i]];

		const char *result = trace_module_result(m->e->result, buf);

		if (strncmp(result, "error:", 6) == 0)
			fprintf(f, "  %10.3f ms  %s  failed: %s", ms(m->e->dur), m->e->name,
				errno_text(m->e->result));
		else
			fprintf(f, "  %10.3f ms  %s  %s", ms(m->e->dur), m->e->name, result);
		if (m->dev)
			fprintf(f, "  for %s (event %llu)", m->dev->devpath,
				(unsigned long long)m->e->seqnum);
		else if (m->e->seqnum == 0)
			fprintf(f, "  (rd.driver.pre)");
		fputc('\n', f);
	}
}

/* "disk 12.345 ms, devnode 0.012 ms": a device's time per handler. */
static void print_handlers(const struct report *r, const struct report_device *d, FILE *f)
{
	uint64_t sum[TRACE_HANDLERS_MAX] = { 0 };
	bool first = true;

	for (size_t i = 0; i < d->nev; i++)
		for (unsigned int h = 0; d->ev[i].handled && h < d->ev[i].handled->nh; h++)
			sum[h] += d->ev[i].handled->hdur[h];
	for (unsigned int h = 0; h < r->log->nhandlers; h++) {
		if (sum[h] == 0)
			continue;
		fprintf(f, "%s%s %.3f ms", first ? "" : ", ", r->log->handler[h], ms(sum[h]));
		first = false;
	}
}

static void print_devices(const struct report *r, FILE *f)
{
	if (r->nslow_dev == 0)
		return;
	fprintf(f, "\nslowest devices (time in handlers, by handler):\n");
	for (size_t i = 0; i < r->nslow_dev; i++) {
		const struct report_device *d = &r->dev[r->slow_dev[i]];

		fprintf(f, "  %10.3f ms  %s (%s): ", ms(d->handling), report_device_label(d),
			d->subsystem);
		print_handlers(r, d, f);
		fprintf(f, "; from %.3f ms (trigger or event), done %.3f ms later\n      %s\n",
			ms(d->first), ms(d->last - d->first), d->devpath);
	}
}

static void print_pending(const struct report *r, FILE *f)
{
	fprintf(f, "\npending at the end (%.3f ms):%s\n", ms(r->log->end),
		r->pending_triggers + r->pending_events ? "" : " nothing");
	for (size_t i = 0; i < r->ndev; i++) {
		const struct report_device *d = &r->dev[i];

		if (!d->pending)
			continue;
		if (d->no_reply_pending)
			fprintf(f, "  no reply to the trigger written at %.3f ms: %s\n",
				ms(d->no_reply->t), d->devpath);
		for (size_t k = 0; k < d->nev; k++)
			if (d->ev[k].pending)
				fprintf(f, "  not handled: event %llu %s received at %.3f ms: %s\n",
					(unsigned long long)d->ev[k].ev->seqnum,
					d->ev[k].ev->action, ms(d->ev[k].ev->t), d->devpath);
	}
}

static void print_summary(const struct report *r, const char *path, FILE *f)
{
	print_header(r, path, f);
	print_counts(r, f);
	print_modules(r, f);
	print_devices(r, f);
	print_pending(r, f);
}

int cmd_report(struct cli *cli, int argc, char **argv)
{
	struct options o = { 0 };
	struct trace_log log;
	struct report r;
	char path[PATH_MAX];
	int e = parse_args(&o, argc, argv);

	if (e <= 0)
		return e == 0 ? EXIT_OK : EXIT_USAGE;
	if (load(cli, &o, &log, path, sizeof(path)) < 0)
		return EXIT_FAIL;
	if (report_build(&r, &log) < 0) {
		fprintf(stderr, "initdev: %s: out of memory\n", path);
		trace_log_free(&log);
		return EXIT_FAIL;
	}
	if (o.json)
		report_print_json(&r, stdout);
	else
		print_summary(&r, path, stdout);
	e = o.svg ? report_write_svg(&r, o.svg) : 0;
	if (e < 0)
		fprintf(stderr, "initdev: %s: %s\n", o.svg, errno_text(e));
	else if (o.svg && !o.json)
		printf("\ntimeline: %s\n", o.svg);
	report_free(&r);
	trace_log_free(&log);
	return e < 0 ? EXIT_FAIL : EXIT_OK;
}
