/* SPDX-License-Identifier: MIT */
/*
 * initdev wait SPEC: ask the running daemon, or, without one, run the engine
 * here until the device is there.
 */
#include "cli/daemon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_LOOK_MS 1000 /* --timeout 0: time for the daemon's answer */

static void print_devices(struct daemon *d)
{
	char *body;

	if (control_request(d->cli->run, "devices", d->reply, sizeof(d->reply), 5000, NULL) <= 0)
		return;
	body = strchr(d->reply, '\n');
	for (char *line = body ? strtok(body + 1, "\n") : NULL; line; line = strtok(NULL, "\n"))
		fprintf(stderr, "  %s\n", line);
}

/* With a running daemon: ask it. Returns an exit code, or -1 if there is none. */
static int wait_with_daemon(struct daemon *d)
{
	char req[WAIT_NAME_MAX + 8];
	bool connected;
	/* --timeout 0 is a look: the daemon answers at once if it is there */
	int r, timeout = d->timeout_sec ? d->timeout_sec * 1000 : WAIT_LOOK_MS;

	snprintf(req, sizeof(req), "wait %s", d->wait_name);
	r = control_request(d->cli->run, req, d->reply, sizeof(d->reply), timeout, &connected);
	if (!connected)
		return -1;
	if (r > 0 && strncmp(d->reply, "OK ", 3) == 0) {
		printf("%s/%s\n", d->cli->dev, d->reply + 3);
		return EXIT_OK;
	}
	daemon_print_not_found(d);
	print_devices(d);
	return EXIT_FAIL;
}

/* The options and the SPEC: 1 to go on, 0 after --help, -1 on a usage error. */
static int parse(struct daemon *d, int argc, char **argv)
{
	const char *why;
	int r = daemon_parse_args(d, argc, argv);

	if (r > 0 && !d->until_found[0]) {
		fprintf(stderr, "usage: initdev wait [--timeout S] /dev/PATH|UUID=|LABEL=|PARTUUID=|PARTLABEL=|MAJ:MIN\n");
		r = -1;
	}
	if (r > 0) {
		d->wait_spec = d->until_found;
		if (wait_spec_name(d->wait_spec, d->wait_name, sizeof(d->wait_name), &why) < 0) {
			fprintf(stderr, "initdev wait: bad spec: %s\n", why);
			r = -1;
		}
	}
	return r;
}

/* No --timeout: rd.initdev.timeout, else the default. */
static int default_timeout(struct cli *cli)
{
	struct cmdline c;
	int t;

	cmdline_init(&c);
	(void)cmdline_load(&c, cli->cmdline, NULL); /* the daemon run says what is wrong */
	t = c.timeout_sec >= 0 ? c.timeout_sec : DEFAULT_COLDPLUG_TIMEOUT;
	cmdline_free(&c);
	return t;
}

int cmd_wait(struct cli *cli, int argc, char **argv)
{
	struct daemon *d = malloc(sizeof(*d));
	int r;

	if (!d)
		return EXIT_FAIL;
	daemon_init(d, cli, true);
	d->until_found = "";
	r = parse(d, argc, argv);
	if (r <= 0) {
		cmdline_free(&d->cmdline);
		free(d);
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	}
	d->until_found = d->wait_name;
	if (d->timeout_sec < 0)
		d->timeout_sec = default_timeout(cli);
	r = wait_with_daemon(d);
	if (r < 0) /* no daemon: run the engine here until the device is there */
		r = daemon_run(d);
	else
		cmdline_free(&d->cmdline);
	if (r == EXIT_OK && d->found[0])
		printf("%s/%s\n", cli->dev, d->found);
	free(d);
	return r;
}
