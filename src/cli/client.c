/* SPDX-License-Identifier: MIT */
/* initdev settle / status / exit: ask the running daemon over its control socket. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/control.h"
#include "handoff/handoff.h"
#include "util/log.h"
#include "util/number.h"

/* One request, one reply. Returns the reply length or -errno (reported). */
static int ask(struct cli *cli, const char *req, char *reply, size_t size, int timeout_ms)
{
	bool connected;
	int r = control_request(cli->run, req, reply, size, timeout_ms, &connected);

	if (!connected)
		fprintf(stderr, "initdev: no daemon at %s/control: %s\n", cli->run, errno_text(r));
	else if (r < 0 && r != -ETIMEDOUT)
		fprintf(stderr, "initdev: %s: %s\n", req, errno_text(r));
	else if (r > 0 && strncmp(reply, "ERR", 3) == 0) {
		fprintf(stderr, "initdev: %s: %s\n", req, reply + 4);
		return -EPERM;
	}
	return r;
}

static int parse_timeout(const char *arg, int *sec)
{
	if (number_parse_int(arg, 0, 86400, sec) == 0)
		return 0;
	fprintf(stderr, "initdev: --timeout %s: expected seconds (0..86400)\n", arg);
	return -1;
}

/* Parse "[--timeout S] [--json]"; returns 1 to go on, 0 for --help, -1 on error. */
static int parse_client_args(int argc, char **argv, const char *usage, int *timeout, bool *json)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 't' && timeout && parse_timeout(optarg, timeout) == 0)
			continue;
		if (c == 'j' && json) {
			*json = true;
			continue;
		}
		fprintf(c == 'h' ? stdout : stderr, "usage: initdev %s\n", usage);
		return c == 'h' ? 0 : -1;
	}
	if (optind < argc) {
		fprintf(stderr, "usage: initdev %s\n", usage);
		return -1;
	}
	return 1;
}

#define ARGS_OR_RETURN(r) do { if ((r) <= 0) return (r) == 0 ? EXIT_OK : EXIT_USAGE; } while (0)

int cmd_settle(struct cli *cli, int argc, char **argv)
{
	static char reply[CONTROL_MSG_MAX];
	int timeout = 180, r = parse_client_args(argc, argv, "settle [--timeout S]", &timeout, NULL);

	ARGS_OR_RETURN(r);
	r = ask(cli, "settle", reply, sizeof(reply), timeout * 1000);
	if (r > 0)
		return EXIT_OK;
	if (r != -ETIMEDOUT)
		return EXIT_FAIL;
	fprintf(stderr, "initdev: not settled after %d s; still pending:\n", timeout);
	if (ask(cli, "pending", reply, sizeof(reply), 5000) > 0) {
		char *body = strchr(reply, '\n');

		fputs(body ? body + 1 : "", stderr);
	}
	return EXIT_FAIL;
}

int cmd_status(struct cli *cli, int argc, char **argv)
{
	static char reply[CONTROL_MSG_MAX];
	bool json = false;
	int r = parse_client_args(argc, argv, "status [--json]", NULL, &json);

	ARGS_OR_RETURN(r);
	r = ask(cli, json ? "status json" : "status", reply, sizeof(reply), 10000);
	if (r <= 0)
		return EXIT_FAIL;
	fputs(reply + 3, stdout); /* after "OK\n" */
	return EXIT_OK;
}

static pid_t read_pid(const char *run_dir)
{
	char path[PATH_MAX];
	uint64_t pid;

	if ((size_t)snprintf(path, sizeof(path), "%s/pid", run_dir) >= sizeof(path) ||
	    number_read_file(path, INT32_MAX, &pid) < 0)
		return -1;
	return (pid_t)pid;
}

int cmd_exit(struct cli *cli, int argc, char **argv)
{
	char reply[256];
	int timeout = 10, r = parse_client_args(argc, argv, "exit [--timeout S]", &timeout, NULL);
	pid_t pid;

	ARGS_OR_RETURN(r);
	pid = read_pid(cli->run);
	if (ask(cli, "exit", reply, sizeof(reply), timeout * 1000) <= 0)
		return EXIT_FAIL;
	/* return only once the daemon is gone, so nothing is left behind */
	for (int i = 0; pid > 0 && i < timeout * 100; i++) {
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return EXIT_OK;
		usleep(10000);
	}
	if (pid > 0) {
		fprintf(stderr, "initdev: daemon %d still running after %d s\n", (int)pid, timeout);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Ask the daemon to become the holder; return once the holder serves. */
int cmd_handoff(struct cli *cli, int argc, char **argv)
{
	char reply[256];
	int timeout = 30, r = parse_client_args(argc, argv, "handoff [--timeout S]", &timeout, NULL);

	ARGS_OR_RETURN(r);
	if (ask(cli, "handoff", reply, sizeof(reply), timeout * 1000) <= 0)
		return EXIT_FAIL;
	r = handoff_wait_holder(cli->run, timeout * 1000);
	if (r < 0) {
		fprintf(stderr, "initdev: handoff: no holder at %s/handoff: %s\n", cli->run,
			errno_text(r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
