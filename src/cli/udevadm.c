/* SPDX-License-Identifier: MIT */
/*
 * Entry points for dracut's stock init: installed as `systemd-udevd` and
 * `udevadm` (symlinks to initdev), they implement exactly the calls
 * 99base/init.sh, dracut-lib.sh and fs-lib.sh make, with udevadm's exit
 * codes, on top of the initdev daemon. Anything else fails loudly.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cli/cli.h"
#include "engine/cmdline.h"
#include "util/control.h"
#include "util/number.h"

#define SETTLE_DEFAULT_S 120   /* udevadm's default */
#define SETTLE_SLICE_MS 100    /* --exit-if-exists of a file whose directory cannot be watched */

static int unsupported(int argc, char **argv)
{
	fprintf(stderr, "udevadm (initdev):");
	for (int i = 0; i < argc; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, ": not supported by initdev\n");
	return EXIT_USAGE;
}

static bool arg_is(const char *arg, const char *name, const char **value)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) != 0)
		return false;
	if (arg[n] == '\0') {
		*value = NULL;
		return true;
	}
	if (arg[n] != '=')
		return false;
	*value = arg + n + 1;
	return true;
}

static bool any_exists(char **files, int n)
{
	for (int i = 0; i < n; i++)
		if (access(files[i], F_OK) == 0)
			return true;
	return false;
}

/* Strict seconds (0..86400) as milliseconds; -1 if malformed. */
static int seconds_ms(const char *v)
{
	int s;

	return number_parse_int(v, 0, 86400, &s) == 0 ? s * 1000 : -1;
}

/*
 * Watch the directories of files for entries appearing (inotify): the
 * answer to --exit-if-exists comes with the event that makes a file, not
 * in slices. -1 if a directory cannot be watched (then poll in slices).
 */
/* The directory holding file, into dir; false if it does not fit. */
static bool parent_dir(const char *file, char *dir, size_t size)
{
	const char *slash = strrchr(file, '/');
	size_t len = !slash ? 0 : slash == file ? 1 : (size_t)(slash - file);

	if (len >= size)
		return false;
	if (!slash)
		snprintf(dir, size, ".");
	else
		snprintf(dir, size, "%.*s", (int)len, file);
	return true;
}

static int watch_files(char **files, int n)
{
	int fd = n ? inotify_init1(IN_CLOEXEC | IN_NONBLOCK) : -1;
	char dir[PATH_MAX];

	for (int i = 0; fd >= 0 && i < n; i++) {
		if (!parent_dir(files[i], dir, sizeof(dir)) ||
		    inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO | IN_ATTRIB) < 0) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

static void drain(int fd)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/*
 * Ask the daemon "settle root" and wait for its answer, or for one of the
 * files to exist, or for the timeout. An exit code.
 */
static int settle_wait(struct cli *cli, char **files, int nfiles, int timeout_ms)
{
	uint64_t end = now_monotonic_usec() + (uint64_t)timeout_ms * 1000u;
	int fd = control_connect(cli->run), in = -1, r = EXIT_FAIL;
	char buf[256];

	if (fd < 0 || control_send(fd, "settle root") < 0)
		goto out; /* no daemon: nothing can settle */
	in = watch_files(files, nfiles);
	for (;;) {
		uint64_t now = now_monotonic_usec();
		int left = now >= end ? 0 : (int)((end - now + 999) / 1000);
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { in, POLLIN, 0 } };

		if (any_exists(files, nfiles)) {
			r = EXIT_OK;
			break;
		}
		if (nfiles && in < 0 && left > SETTLE_SLICE_MS)
			left = SETTLE_SLICE_MS; /* unwatchable: look again in a while */
		if (poll(p, in >= 0 ? 2 : 1, left) < 0 && errno != EINTR)
			break;
		if (p[0].revents) {
			r = control_recv(fd, buf, sizeof(buf), 0) > 0 && strncmp(buf, "OK", 2) == 0 ?
			    EXIT_OK : EXIT_FAIL;
			break;
		}
		if (in >= 0 && p[1].revents)
			drain(in);
		if (now_monotonic_usec() >= end) {
			r = any_exists(files, nfiles) ? EXIT_OK : EXIT_FAIL;
			break;
		}
	}
out:
	if (in >= 0)
		close(in);
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * udevadm settle [--timeout=S] [--exit-if-exists=F]...: 0 settled (or F
 * exists), 1 not. "Settled" is the root path's settle (engine.h) when a
 * root is awaited: dracut gets its root without waiting for unrelated
 * modules; `initdev settle` still waits for everything.
 */
static int settle(struct cli *cli, int argc, char **argv)
{
	char *files[16], buf[256];
	int nfiles = 0, timeout_ms = SETTLE_DEFAULT_S * 1000;
	const char *v;

	for (int i = 1; i < argc; i++) {
		if (arg_is(argv[i], "--timeout", &v) && v) {
			timeout_ms = seconds_ms(v);
			if (timeout_ms < 0)
				return unsupported(argc, argv);
		} else if (arg_is(argv[i], "--exit-if-exists", &v) && v && nfiles < 16)
			files[nfiles++] = (char *)v;
		else if (strcmp(argv[i], "-q") && strcmp(argv[i], "--quiet"))
			return unsupported(argc, argv);
	}
	if (any_exists(files, nfiles))
		return EXIT_OK;
	if (timeout_ms == 0) /* --timeout=0: only ask, never wait */
		return control_request(cli->run, "pending root", buf, sizeof(buf), 1000, NULL) > 0 &&
		       strncmp(buf, "OK settled", 10) == 0 ? EXIT_OK : EXIT_FAIL;
	return settle_wait(cli, files, nfiles, timeout_ms);
}

/* udevadm trigger --type=subsystems|devices --action=add */
static int trigger(struct cli *cli, int argc, char **argv)
{
	const char *type = "devices", *action = "change", *v;
	char buf[256];

	for (int i = 1; i < argc; i++) {
		if (arg_is(argv[i], "--type", &v) && v)
			type = v;
		else if (arg_is(argv[i], "--action", &v) && v)
			action = v;
		else
			return unsupported(argc, argv);
	}
	if (strcmp(action, "add") != 0)
		return unsupported(argc, argv);
	/* module, bus and driver objects need no trigger: see docs/populator.md */
	if (strcmp(type, "subsystems") == 0)
		return EXIT_OK;
	if (strcmp(type, "devices") != 0)
		return unsupported(argc, argv);
	return control_request(cli->run, "coldplug", buf, sizeof(buf), 10000, NULL) > 0 &&
	       strncmp(buf, "OK", 2) == 0 ? EXIT_OK : EXIT_FAIL;
}

/*
 * init.sh calls `udevadm control --exit` just before switch_root, after
 * every hook: the last point where the daemon can hand its socket, and the
 * events queued in it, to the real root (docs/handoff.md). Unless
 * rd.initdev.handoff=0, it becomes the holder instead of exiting.
 */
static int control_exit(struct cli *cli)
{
	char *exit_args[] = { "exit", NULL }, *handoff_args[] = { "handoff", NULL };
	struct cmdline c;
	bool handoff;

	cmdline_init(&c);
	/* unreadable: the default (on); the daemon already warned about bad values */
	(void)cmdline_load(&c, cli->cmdline, NULL);
	handoff = c.handoff;
	cmdline_free(&c);
	if (handoff)
		return cmd_handoff(cli, 1, handoff_args);
	return cmd_exit(cli, 1, exit_args);
}

/* A global property every later event's rules see in ENV{} matches (dracut's udevproperty). */
static int control_property(struct cli *cli, const char *assignment)
{
	char req[1100], buf[64];

	if ((size_t)snprintf(req, sizeof(req), "property %s", assignment) >= sizeof(req) ||
	    !strchr(assignment, '=')) {
		fprintf(stderr, "udevadm control --property: expected KEY=VALUE\n");
		return EXIT_USAGE;
	}
	if (control_request(cli->run, req, buf, sizeof(buf), 10000, NULL) <= 0 ||
	    strncmp(buf, "OK", 2) != 0) {
		fprintf(stderr, "udevadm control --property: the daemon did not take it\n");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* The daemon parses the rules files again (hooks write rules at boot). */
static int control_reload(struct cli *cli)
{
	char buf[64];

	if (control_request(cli->run, "reload", buf, sizeof(buf), 10000, NULL) <= 0 ||
	    strncmp(buf, "OK", 2) != 0) {
		fprintf(stderr, "udevadm control --reload: the daemon did not reload\n");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int control(struct cli *cli, int argc, char **argv)
{
	const char *v;

	if (argc == 2 && strcmp(argv[1], "--exit") == 0)
		return control_exit(cli);
	if (argc == 2 && strcmp(argv[1], "--reload") == 0)
		return control_reload(cli);
	if (argc == 2 && (arg_is(argv[1], "--property", &v) || arg_is(argv[1], "-p", &v)) && v)
		return control_property(cli, v);
	return unsupported(argc, argv);
}

static int info(struct cli *cli, int argc, char **argv)
{
	static char buf[CONTROL_MSG_MAX];
	const char *name = NULL, *query = NULL, *v;
	char req[4200];

	if (argc == 2 && strcmp(argv[1], "--cleanup-db") == 0)
		return EXIT_OK; /* initdev keeps no udev database to clean */
	for (int i = 1; i < argc; i++) {
		if (arg_is(argv[i], "--query", &v) && v)
			query = v;
		else if (arg_is(argv[i], "--name", &v) && v)
			name = v;
		else
			return unsupported(argc, argv);
	}
	if (!name || !query || (strcmp(query, "property") && strcmp(query, "env")))
		return unsupported(argc, argv);
	snprintf(req, sizeof(req), "info %s", name);
	if (control_request(cli->run, req, buf, sizeof(buf), 10000, NULL) <= 0 || strncmp(buf, "OK\n", 3) != 0) {
		fprintf(stderr, "device node not found\n");
		return EXIT_FAIL;
	}
	fputs(buf + 3, stdout);
	return EXIT_OK;
}

int cmd_udevadm(struct cli *cli, int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "settle") == 0)
		return settle(cli, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "trigger") == 0)
		return trigger(cli, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "control") == 0)
		return control(cli, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "info") == 0)
		return info(cli, argc - 1, argv + 1);
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		puts("252"); /* the udev version whose interface this follows */
		return EXIT_OK;
	}
	return unsupported(argc, argv);
}

/* systemd-udevd --daemon [--resolve-names=...]: start the daemon, no coldplug. */
int cmd_systemd_udevd(struct cli *cli, int argc, char **argv)
{
	char *args[] = { "daemon", "--no-coldplug", NULL, NULL };
	const char *v;
	bool background = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--daemon") == 0 || strcmp(argv[i], "-d") == 0)
			background = true;
		else if (!(arg_is(argv[i], "--resolve-names", &v) && v) &&
			 strcmp(argv[i], "--debug") != 0)
			return unsupported(argc, argv);
	}
	if (!background)
		args[2] = "--foreground";
	return cmd_daemon(cli, background ? 2 : 3, args);
}
