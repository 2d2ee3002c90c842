/* SPDX-License-Identifier: MIT */
/*
 * initdev monitor: print the kernel's uevents as the gate accepts them, and,
 * on request, what it rejects and why. udevadm monitor --kernel with the
 * trust decision visible.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/escape.h"
#include "util/sigfd.h"
#include "gate/gate.h"

struct monitor {
	bool json;
	bool show_rejected;
	char line[UEVENT_MSG_MAX * 6 + 64]; /* worst case: every byte escaped */
};

static bool is_header_key(const char *kv)
{
	static const char *const keys[] = { "ACTION=", "DEVPATH=", "SUBSYSTEM=", "SEQNUM=" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strncmp(kv, keys[i], strlen(keys[i])) == 0)
			return true;
	return false;
}

static void print_text(struct monitor *m, const struct uevent *ev)
{
	char a[1024], b[512];

	printf("%llu %s %s (%s)", (unsigned long long)ev->seqnum,
	       uevent_action_name(ev->action),
	       escape_log(a, sizeof(a), ev->devpath, strlen(ev->devpath)),
	       escape_log(b, sizeof(b), ev->subsystem, strlen(ev->subsystem)));
	for (size_t i = 0; i < ev->nenv; i++)
		if (!is_header_key(ev->env[i]))
			printf(" %s", escape_log(m->line, sizeof(m->line), ev->env[i],
						 strlen(ev->env[i])));
	putchar('\n');
}

static void print_json(struct monitor *m, const struct uevent *ev)
{
	putchar('{');
	for (size_t i = 0; i < ev->nenv; i++) {
		const char *kv = ev->env[i], *eq = strchr(kv, '=');

		escape_json(m->line, sizeof(m->line), kv, (size_t)(eq - kv));
		printf("%s%s:", i ? "," : "", m->line);
		escape_json(m->line, sizeof(m->line), eq + 1, strlen(eq + 1));
		fputs(m->line, stdout);
	}
	puts("}");
}

static void on_event(void *userdata, const struct uevent *ev)
{
	struct monitor *m = userdata;

	if (m->json)
		print_json(m, ev);
	else
		print_text(m, ev);
	fflush(stdout);
}

static void on_reject(void *userdata, const struct uevent_raw *raw,
		      enum gate_verdict v, const char *why)
{
	struct monitor *m = userdata;

	if (!m->show_rejected)
		return;
	escape_log(m->line, sizeof(m->line), (const char *)raw->data,
		   raw->len < 256 ? raw->len : 256);
	fprintf(stderr, "rejected %s: %s; port=%u pid=%d uid=%d len=%zu \"%s\"\n",
		gate_verdict_name(v), why,
		raw->has_sender ? (unsigned int)raw->sender.nl_pid : 0,
		raw->has_creds ? (int)raw->creds.pid : -1,
		raw->has_creds ? (int)raw->creds.uid : -1, raw->len, m->line);
}

static void print_summary(const struct gate_stats *s)
{
	fprintf(stderr, "summary: %llu accepted, %llu rejected",
		(unsigned long long)s->accepted,
		(unsigned long long)gate_rejected_total(s));
	for (int v = GATE_ACCEPT + 1; v < GATE_VERDICT_COUNT; v++)
		fprintf(stderr, ", %s %llu", gate_verdict_name(v),
			(unsigned long long)s->rejected[v]);
	fprintf(stderr, ", overflows %llu\n", (unsigned long long)s->overflows);
}

static int monitor_loop(struct gate *g, struct monitor *m, int sfd)
{
	struct pollfd p[2] = { { g->fd, POLLIN, 0 }, { sfd, POLLIN, 0 } };

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return 0;
		int r = gate_read(g, on_event, m, 1024);

		if (r == -ENOBUFS)
			fprintf(stderr, "events were lost: the kernel dropped uevents "
				"(receive buffer overflow)\n");
		else if (r < 0)
			return r;
	}
}

static int parse_monitor_args(struct monitor *m, struct uevent_socket_options *o,
			      int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "show-rejected", no_argument, NULL, 'r' },
		{ "test-no-passcred", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jrh", opts, NULL)) != -1) {
		if (c == 'j')
			m->json = true;
		else if (c == 'r')
			m->show_rejected = true;
		else if (c == 'P')
			o->no_passcred = true;
		else {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: initdev monitor [--json] [--show-rejected]\n");
			return c == 'h' ? 0 : -1;
		}
	}
	return optind < argc ? -1 : 1;
}

int cmd_monitor(struct cli *cli, int argc, char **argv)
{
	struct monitor *m = calloc(1, sizeof(*m));
	struct uevent_socket_options o = { 0 };
	struct gate g;
	int r, sfd;

	if (!m)
		return EXIT_FAIL;
	r = parse_monitor_args(m, &o, argc, argv);
	if (r <= 0) {
		free(m);
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	}
	r = gate_open(&g, &cli->log, &o);
	if (r < 0) {
		log_errno(&cli->log, LOG_ERR, r, "cannot open uevent socket");
		free(m);
		return EXIT_FAIL;
	}
	g.on_reject = on_reject;
	g.userdata = m;
	sfd = sigfd_open(false);
	fprintf(stderr, "listening: port %u, receive buffer %d bytes%s\n",
		g.info.port, g.info.rcvbuf, o.no_passcred ? ", SO_PASSCRED off (test)" : "");
	r = sfd < 0 ? sfd : monitor_loop(&g, m, sfd);
	if (r < 0)
		log_errno(&cli->log, LOG_ERR, r, "monitor");
	print_summary(&g.stats);
	gate_close(&g);
	if (sfd >= 0)
		close(sfd);
	free(m);
	return r < 0 ? EXIT_FAIL : EXIT_OK;
}
