/* SPDX-License-Identifier: MIT */
/*
 * Entry points for dracut's stock init: installed as `systemd-udevd` and
 * `udevadm` (symlinks to initdev), they implement exactly the calls
 * 99base/init.sh, dracut-lib.sh and fs-lib.sh make, with udevadm's exit
 * codes, on top of the initdev daemon. Anything else fails loudly.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/trigger-match.h"
#include "engine/cmdline.h"
#include "handlers/udev-db.h"
#include "util/control.h"
#include "util/number.h"
#include "util/sysdev.h"

#define SETTLE_DEFAULT_S 120   /* udevadm's default */
#define SETTLE_SLICE_MS 100    /* --exit-if-exists of a file whose directory cannot be watched */
#define TRIGGER_WAIT_S 30      /* for a daemon that is still starting (trigger_request) */
#define TRIGGER_SLICE_MS 50
#define TRIGGER_NAME_MAX 64    /* a subsystem name in --prioritized-subsystem */
#define TRIGGER_LIST_MAX 64    /* and how many */

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
 * Options are parsed as udevadm 252 parses them (getopt_long: long and
 * short forms, "--opt=V", "--opt V", "-oV"); an option udevadm has that
 * initdev does not implement, or anything udevadm would refuse, fails
 * loudly with udevadm's usage exit code, naming the whole call.
 */
static int next_option(int argc, char **argv, const char *shorts, const struct option *longs)
{
	opterr = 0; /* unsupported() names the call instead */
	return getopt_long(argc, argv, shorts, longs, NULL);
}

static void options_reset(void)
{
	optind = 0; /* glibc: start over, argv[0] is the command's name */
}

/*
 * udevadm settle [-t|--timeout=S] [-E|--exit-if-exists=F]...: 0 settled (or
 * F exists), 1 not. "Settled" is the root path's settle (engine.h) when a
 * root is awaited: dracut gets its root without waiting for unrelated
 * modules; `initdev settle` still waits for everything.
 */
static int settle(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "exit-if-exists", required_argument, NULL, 'E' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 },
	};
	char *files[16], buf[256];
	int nfiles = 0, timeout_ms = SETTLE_DEFAULT_S * 1000, c;

	options_reset();
	while ((c = next_option(argc, argv, "t:E:q", opts)) != -1) {
		if (c == 't' && (timeout_ms = seconds_ms(optarg)) >= 0)
			continue;
		if (c == 'E' && nfiles < 16) {
			files[nfiles++] = optarg;
			continue;
		}
		if (c != 'q')
			return unsupported(argc, argv);
	}
	if (optind < argc)
		return unsupported(argc, argv);
	if (any_exists(files, nfiles))
		return EXIT_OK;
	if (timeout_ms == 0) /* --timeout=0: only ask, never wait */
		return control_request(cli->run, "pending root", buf, sizeof(buf), 1000, NULL) > 0 &&
		       strncmp(buf, "OK settled", 10) == 0 ? EXIT_OK : EXIT_FAIL;
	return settle_wait(cli, files, nfiles, timeout_ms);
}

/*
 * --prioritized-subsystem=A,B,...: udevadm triggers those subsystems
 * first. initdev's coldplug has its own order (the root device's path
 * first, engine/rank.h), which serves the same end, so the list is only
 * checked: subsystem names, as sysfs spells them.
 */
static bool subsystem_list_ok(const char *list)
{
	size_t n = 0, items = 1;

	for (const char *p = list;; p++) {
		if (*p == ',' || *p == '\0') {
			if (n == 0 || n > TRIGGER_NAME_MAX || items > TRIGGER_LIST_MAX)
				return false;
			if (*p == '\0')
				return true;
			n = 0, items++;
		} else if (isalnum((unsigned char)*p) || strchr("_-.:", *p)) {
			n++;
		} else {
			return false;
		}
	}
}

/*
 * The coldplug request, once a daemon answers. Under systemd,
 * systemd-udev-trigger.service starts beside systemd-udevd.service, not
 * after it (udevd would find the events in the socket PID 1 made): the
 * request waits up to TRIGGER_WAIT_S for the daemon to listen.
 */
static int trigger_request(struct cli *cli)
{
	uint64_t end = now_monotonic_usec() + (uint64_t)TRIGGER_WAIT_S * 1000000u;
	char buf[256];
	bool connected;
	int r;

	for (;;) {
		r = control_request(cli->run, "coldplug", buf, sizeof(buf), 10000, &connected);
		if (connected || (r != -ENOENT && r != -ECONNREFUSED) ||
		    now_monotonic_usec() >= end)
			break;
		(void)poll(NULL, 0, TRIGGER_SLICE_MS);
	}
	if (!connected) {
		fprintf(stderr, "udevadm (initdev): trigger: no initdev daemon at %s after %d s\n",
			cli->run, TRIGGER_WAIT_S);
		return EXIT_FAIL;
	}
	if (r <= 0 || strncmp(buf, "OK", 2) != 0) {
		fprintf(stderr, "udevadm (initdev): trigger: the daemon did not coldplug: %s\n",
			r > 0 ? buf : strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/*
 * udevadm trigger -s|--subsystem-match=S -p|--property-match=KEY=VALUE
 * [-c|--action=change|add] [-v] [-n]: the matching devices' uevent files
 * get the action (trigger-match.h); what 64-btrfs.rules runs. 0 even when
 * nothing matched, as udevadm.
 */
static int trigger_matching(struct cli *cli, const struct trigger_match *m, bool verbose)
{
	unsigned int failed;
	int n = trigger_match_run(m, cli->sysfs, cli->udev_run, verbose ? stdout : NULL, &failed);

	if (n < 0) {
		fprintf(stderr, "udevadm (initdev): trigger: %s: %s\n", cli->sysfs, strerror(-n));
		return EXIT_FAIL;
	}
	if (failed)
		fprintf(stderr, "udevadm (initdev): trigger: %u devices could not be triggered\n",
			failed);
	return EXIT_OK;
}

/* One -s or -p word into m; false if it is not one trigger_match takes. */
static bool add_match(struct trigger_match *m, int c, const char *arg)
{
	if (c == 's' && m->nsubsystems < TRIGGER_MATCH_MAX && trigger_match_subsystem_ok(arg)) {
		m->subsystems[m->nsubsystems++] = arg;
		return true;
	}
	if (c == 'p' && m->nprops < TRIGGER_MATCH_MAX && trigger_match_property_ok(arg)) {
		m->props[m->nprops++] = arg;
		return true;
	}
	return false;
}

/*
 * udevadm trigger [-t|--type=devices|subsystems|all] [-c|--action=add]
 * [--prioritized-subsystem=LIST]: the daemon's coldplug (all = subsystems
 * and devices). With -s or -p: trigger_matching.
 */
static int trigger(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "action", required_argument, NULL, 'c' },
		{ "prioritized-subsystem", required_argument, NULL, 'P' },
		{ "subsystem-match", required_argument, NULL, 's' },
		{ "property-match", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ 0 },
	};
	struct trigger_match m = { .action = NULL };
	const char *type = "devices", *action = NULL;
	bool verbose = false;
	int c;

	options_reset();
	while ((c = next_option(argc, argv, "t:c:s:p:vn", opts)) != -1) {
		if (c == 't')
			type = optarg;
		else if (c == 'c')
			action = optarg;
		else if (c == 'v')
			verbose = true;
		else if (c == 'n')
			m.dry_run = true;
		else if ((c == 's' || c == 'p') && add_match(&m, c, optarg))
			continue;
		else if (c != 'P' || !subsystem_list_ok(optarg))
			return unsupported(argc, argv);
	}
	if (optind < argc || (strcmp(type, "devices") != 0 && m.nsubsystems + m.nprops > 0))
		return unsupported(argc, argv);
	if (m.nsubsystems + m.nprops > 0) {
		/* udev's default action is change; -p alone would walk every subsystem */
		m.action = action ? action : "change";
		if (m.nsubsystems == 0 ||
		    (strcmp(m.action, "change") != 0 && strcmp(m.action, "add") != 0))
			return unsupported(argc, argv);
		return trigger_matching(cli, &m, verbose);
	}
	if (!action || strcmp(action, "add") != 0 || verbose || m.dry_run)
		return unsupported(argc, argv);
	/* module, bus and driver objects need no trigger: see docs/populator.md */
	if (strcmp(type, "subsystems") == 0)
		return EXIT_OK;
	if (strcmp(type, "devices") != 0 && strcmp(type, "all") != 0)
		return unsupported(argc, argv);
	return trigger_request(cli);
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

/*
 * udevadm control: -e|--exit, -R|--reload, -p|--property=KEY=VALUE (any
 * number), carried out in their order as udevadm does; -t|--timeout=S is
 * taken (each request has its own bound).
 */
static int control(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "exit", no_argument, NULL, 'e' },
		{ "reload", no_argument, NULL, 'R' },
		{ "property", required_argument, NULL, 'p' },
		{ "env", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ 0 },
	};
	struct {
		int op;
		const char *arg;
	} actions[32]; /* the requested actions, in command-line order */
	const int max = (int)(sizeof(actions) / sizeof(actions[0]));
	int c, r = EXIT_OK, n = 0;

	/* everything is checked before anything is done */
	options_reset();
	while ((c = next_option(argc, argv, "eRp:t:", opts)) != -1) {
		if (c == '?' || c == ':' || n >= max || (c == 't' && seconds_ms(optarg) < 0))
			return unsupported(argc, argv);
		if (c != 't')
			actions[n].op = c, actions[n++].arg = optarg;
	}
	if (optind < argc || n == 0)
		return unsupported(argc, argv);
	for (int i = 0; i < n && r == EXIT_OK; i++)
		r = actions[i].op == 'e'   ? control_exit(cli)
		    : actions[i].op == 'R' ? control_reload(cli)
					   : control_property(cli, actions[i].arg);
	return r;
}

/* /dev/NAME (or NAME) as a path below --dev. */
static int node_path(struct cli *cli, const char *name, char *out, size_t size)
{
	const char *below = strncmp(name, "/dev/", 5) == 0 ? name + 5 : name[0] == '/' ? NULL : name;
	int n = below ? snprintf(out, size, "%s/%s", cli->dev, below) : snprintf(out, size, "%s", name);

	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* The devpath ("/devices/...") of the device whose node (or link to it) is name. */
static int devpath_of_node(struct cli *cli, const char *name, char *out, size_t size)
{
	char path[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (node_path(cli, name, path, sizeof(path)) < 0 || stat(path, &st) < 0)
		return -ENODEV;
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode))
		return -ENODEV;
	snprintf(link, sizeof(link), "%s/dev/%s/%u:%u", cli->sysfs,
		 S_ISBLK(st.st_mode) ? "block" : "char", major(st.st_rdev), minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -ENODEV;
	target[n] = '\0';
	/* "../../devices/..." from /sys/dev/block */
	const char *dev = strstr(target, "/devices/");

	if (!dev || (size_t)snprintf(out, size, "%s", dev) >= size)
		return -ENODEV;
	return 0;
}

/* /sys/DEVPATH (or DEVPATH) -> the name the daemon looks up: "block/MAJ:MIN". */
static int name_of_devpath(struct cli *cli, const char *path, char *out, size_t size)
{
	const char *devpath = strncmp(path, "/sys/", 5) == 0 ? path + 4 : path;
	char dev[32], sub[SYSDEV_NAME_MAX];
	struct sysdev_root root;
	unsigned int maj, min;
	int n, r;

	/* walked below the sysfs root, nothing followed (sysdev.h) */
	if (sysdev_root_open(&root, cli->sysfs) < 0)
		return -ENODEV;
	r = sysdev_attr(&root, devpath, "dev", dev, sizeof(dev));
	if (r >= 0 && sysdev_subsystem(&root, devpath, sub) < 0)
		sub[0] = '\0';
	sysdev_root_close(&root);
	if (r < 0 || number_parse_devnum(dev, &maj, &min) < 0)
		return -ENODEV;
	n = snprintf(out, size, "%s/%u:%u", strcmp(sub, "block") == 0 ? "block" : "char", maj, min);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* One KEY=VALUE line per property, as udevadm prints them (-x: KEY='VALUE', -P: a prefix). */
static void print_properties(const char *body, bool export, const char *prefix)
{
	for (const char *l = body; *l;) {
		size_t len = strcspn(l, "\n");
		const char *eq = memchr(l, '=', len);

		if (eq && export)
			printf("%s%.*s='%.*s'\n", prefix ? prefix : "", (int)(eq - l), l,
			       (int)(len - (size_t)(eq - l) - 1), eq + 1);
		else if (eq)
			printf("%.*s\n", (int)len, l);
		l += len + (l[len] == '\n');
	}
}

/* The value of KEY in the daemon's "KEY=VALUE\n..." reply, into out. */
static bool reply_value(const char *body, const char *key, char *out, size_t size)
{
	size_t k = strlen(key);

	for (const char *l = body; *l;) {
		size_t len = strcspn(l, "\n");

		if (len > k && strncmp(l, key, k) == 0 && l[k] == '=') {
			snprintf(out, size, "%.*s", (int)(len - k - 1), l + k + 1);
			return true;
		}
		l += len + (l[len] == '\n');
	}
	return false;
}

struct info_args {
	const char *name; /* -n, or a /dev/ argument */
	const char *path; /* -p, or a /sys/ argument */
	const char *query;
	bool export;
	const char *prefix;
	bool cleanup;
};

static int info_parse(int argc, char **argv, struct info_args *a)
{
	static const struct option opts[] = {
		{ "query", required_argument, NULL, 'q' },
		{ "name", required_argument, NULL, 'n' },
		{ "path", required_argument, NULL, 'p' },
		{ "export", no_argument, NULL, 'x' },
		{ "export-prefix", required_argument, NULL, 'P' },
		{ "cleanup-db", no_argument, NULL, 'c' },
		{ 0 },
	};
	int c;

	options_reset();
	while ((c = next_option(argc, argv, "q:n:p:xP:c", opts)) != -1) {
		switch (c) {
		case 'q': a->query = optarg; break;
		case 'n': a->name = optarg; break;
		case 'p': a->path = optarg; break;
		case 'x': a->export = true; break;
		case 'P': a->export = true, a->prefix = optarg; break;
		case 'c': a->cleanup = true; break;
		default: return -1;
		}
	}
	for (; optind < argc; optind++) { /* udevadm info [OPTIONS] [DEVPATH|FILE] */
		if (strncmp(argv[optind], "/sys/", 5) == 0 && !a->path)
			a->path = argv[optind];
		else if (strncmp(argv[optind], "/dev/", 5) == 0 && !a->name)
			a->name = argv[optind];
		else
			return -1;
	}
	return 0;
}

/*
 * udevadm info: -c|--cleanup-db (udev-db.h); -q|--query=property|env|path|name
 * of -n|--name=NODE or -p|--path=DEVPATH, -x|--export, -P|--export-prefix.
 * The properties are what the daemon knows (its native probe and what the
 * rules set); path and name come from the node and sysfs, as udevadm's.
 */
static int info(struct cli *cli, int argc, char **argv)
{
	static char buf[CONTROL_MSG_MAX];
	struct info_args a = { 0 };
	char name[PATH_MAX], req[PATH_MAX + 8], value[PATH_MAX];

	if (info_parse(argc, argv, &a) < 0)
		return unsupported(argc, argv);
	if (a.cleanup) {
		if (a.query || a.name || a.path)
			return unsupported(argc, argv);
		return udev_db_cleanup(cli->udev_run) < 0 ? EXIT_FAIL : EXIT_OK;
	}
	if (!a.query || (!a.name == !a.path))
		return unsupported(argc, argv);
	if (strcmp(a.query, "path") == 0 && a.name) {
		if (devpath_of_node(cli, a.name, value, sizeof(value)) < 0)
			goto not_found;
		puts(value);
		return EXIT_OK;
	}
	if (a.path ? name_of_devpath(cli, a.path, name, sizeof(name)) < 0
		   : (size_t)snprintf(name, sizeof(name), "%s", a.name) >= sizeof(name))
		goto not_found;
	snprintf(req, sizeof(req), "info %s", name);
	if (control_request(cli->run, req, buf, sizeof(buf), 10000, NULL) <= 0 ||
	    strncmp(buf, "OK\n", 3) != 0)
		goto not_found;
	if (strcmp(a.query, "property") == 0 || strcmp(a.query, "env") == 0) {
		print_properties(buf + 3, a.export, a.prefix);
		return EXIT_OK;
	}
	if (strcmp(a.query, "path") == 0 && reply_value(buf + 3, "DEVPATH", value, sizeof(value)))
		puts(value);
	else if (strcmp(a.query, "name") == 0 && reply_value(buf + 3, "DEVNAME", value, sizeof(value)))
		puts(strncmp(value, "/dev/", 5) == 0 ? value + 5 : value);
	else
		return unsupported(argc, argv);
	return EXIT_OK;
not_found:
	fprintf(stderr, "device node not found\n");
	return EXIT_FAIL;
}

int cmd_udevadm(struct cli *cli, int argc, char **argv)
{
	/* udevadm [-d|--debug] COMMAND ...: the log level is initdev's own */
	while (argc >= 2 && (strcmp(argv[1], "--debug") == 0 || strcmp(argv[1], "-d") == 0)) {
		argv[1] = argv[0];
		argc--, argv++;
	}
	if (argc >= 2 && strcmp(argv[1], "settle") == 0)
		return settle(cli, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "trigger") == 0)
		return trigger(cli, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "control") == 0)
		return control(cli, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "info") == 0)
		return info(cli, argc - 1, argv + 1);
	if (argc == 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
			  strcmp(argv[1], "version") == 0)) {
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
