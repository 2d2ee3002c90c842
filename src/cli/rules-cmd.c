/* SPDX-License-Identifier: MIT */
/*
 * initdev rules check [FILE|DIR...]
 *     Parse rules files (default: udev's directories) and print every line
 *     initdev cannot run as "file:line: what: why". Exit 1 if there is one.
 * initdev rules test [--action ACTION] [--rules PATH]... [--timeout SEC]
 *                    [--no-native] DEVPATH
 *     Apply the rules to one device (a /sys path or a devpath) the way the
 *     daemon does - after its native block handling (ID_FS_*, /dev/disk
 *     links), unless --no-native - without running RUN; print properties and
 *     RUN list as `udevadm test` does, then owner/group/mode and the link
 *     priority when rules set them. --udev-db DIR reads the device's record
 *     and its parents' (IMPORT{parent}) from a udev database
 *     (/run/udev/data, rules/db-file.h), as `udevadm test` does: for
 *     comparing the two where udev runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "engine/cmdline.h"
#include "gate/uevent.h"
#include "handlers/disk.h"
#include "handlers/synth-event.h"
#include "rules/builtins.h"
#include "rules/db-file.h"
#include "rules/rules.h"
#include "rules/subst.h"
#include "rules/sysfs.h"
#include "util/escape.h"
#include "util/number.h"
#include "util/oneline.h"

#define PATHS_MAX 64

struct check_state {
	unsigned int errors;
};

static void print_diag(void *u, int prio, const char *file, unsigned int line, const char *msg)
{
	struct check_state *c = u;

	if (prio > LOG_WARNING)
		return;
	if (prio <= LOG_ERR)
		c->errors++;
	printf("%s:%u: %s%s\n", file, line, prio <= LOG_ERR ? "" : "warning: ", msg);
}

static int cmd_rules_check(struct cli *cli, int argc, char **argv)
{
	static const char *const dirs[] = RULES_DIRS_DEFAULT;
	struct check_state c = { 0 };
	struct rules_diag d = { print_diag, &c };
	struct rules r;
	int ret;

	rules_init(&r, &cli->log, &d);
	r.check = true;
	ret = argc > 1 ? rules_load_paths(&r, (const char *const *)argv + 1, (size_t)argc - 1)
		       : rules_load_dirs(&r, cli->nrules_dirs ? cli->rules_dirs : dirs);
	if (ret < 0)
		fprintf(stderr, "initdev rules check: %s\n", strerror(-ret));
	fflush(stdout);
	rules_free(&r);
	return ret < 0 || c.errors ? EXIT_FAIL : EXIT_OK;
}

/* "/sys/class/block/X" or "/devices/..." -> devpath. */
static int to_devpath(const char *sysfs, const char *arg, char *out, size_t size)
{
	char real[PATH_MAX], root[PATH_MAX], joined[PATH_MAX];
	size_t n;

	if (strncmp(arg, "/devices/", 9) == 0 && strncmp(sysfs, "/devices", 8) != 0)
		snprintf(joined, sizeof(joined), "%s%s", sysfs, arg);
	else
		snprintf(joined, sizeof(joined), "%s", arg);
	if (!realpath(joined, real) || !realpath(sysfs, root))
		return -errno;
	n = strlen(root);
	if (strncmp(real, root, n) != 0 || strncmp(real + n, "/devices/", 9) != 0)
		return -EINVAL;
	if (strlen(real + n) >= size)
		return -ENAMETOOLONG;
	strcpy(out, real + n);
	return 0;
}

/*
 * KEY=VALUE on one line (tests/rules/parity.sh reads them line by line): a
 * key or value with a line end is printed escaped (\x0a), not raw.
 */
static void print_prop(const struct prop *p)
{
	char k[RULES_LINE_MAX], v[RULES_LINE_MAX];

	if (oneline_ok(p->key) && oneline_ok(p->value))
		printf("%s=%s\n", p->key, p->value);
	else
		printf("%s=%s\n", escape_log(k, sizeof(k), p->key, strlen(p->key)),
		       escape_log(v, sizeof(v), p->value, strlen(p->value)));
}

static void print_event(const struct rules_ctx *ctx, struct rules_event *ev)
{
	char buf[RULES_LINE_MAX];
	bool trunc;

	for (size_t i = 0; i < ev->props.n; i++)
		print_prop(&ev->props.v[i]);
	/* udevadm test substitutes each RUN entry once more before printing it */
	for (size_t i = 0; i < ev->nrun; i++) {
		subst_apply(ctx, ev, ev->run[i].cmd, buf, sizeof(buf), false, &trunc);
		printf("run: '%s'\n", buf);
	}
	if (ev->uid != (uid_t)-1)
		printf("owner: %u\n", (unsigned int)ev->uid);
	if (ev->gid != (gid_t)-1)
		printf("group: %u\n", (unsigned int)ev->gid);
	if (rules_event_mode(ev) != (mode_t)-1)
		printf("mode: %04o\n", (unsigned int)rules_event_mode(ev));
	if (ev->link_priority)
		printf("link_priority: %d\n", ev->link_priority);
}

/* What the daemon's disk handler does before the rules: probe, name links. */
static int add_native(struct cli *cli, const struct props *env, struct rules_event *re)
{
	static char names[DISK_NAMES_MAX][LINK_NAME_MAX];
	static struct uevent ev;
	struct probe_result p;
	const char *name = rules_devname_rel(re->devname);
	char path[PATH_MAX];
	bool probed = false;
	size_t n;
	int fd, r = 0;

	if (strcmp(re->subsystem, "block") != 0 || !name || re->remove ||
	    synth_uevent(env, 1, &ev) < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", cli->dev, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd >= 0) {
		probed = probe_fd(fd, &p) == 0;
		close(fd);
	}
	if (probed)
		r = rules_blkid_props(re, &p);
	if (r == 0)
		r = rules_default_props(re);
	n = disk_link_names(cli->sysfs, &ev, probed ? &p : NULL, names);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		snprintf(path, sizeof(path), "/dev/disk/%s", names[i]);
		r = strv_add(&re->links, path);
	}
	return r < 0 ? r : rules_event_finish(re);
}

struct test_opts {
	const char *udev_db;
	bool native;
	const char *action;
	const char *paths[PATHS_MAX];
	size_t npaths;
	int timeout;
	const char *device;
};

static int test_args(int argc, char **argv, struct test_opts *o)
{
	static const struct option opts[] = {
		{ "action", required_argument, NULL, 'a' },
		{ "rules", required_argument, NULL, 'R' },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-native", no_argument, NULL, 'n' },
		{ "udev-db", required_argument, NULL, 'D' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a:", opts, NULL)) != -1) {
		if (c == 'a')
			o->action = optarg;
		else if (c == 'R' && o->npaths < PATHS_MAX)
			o->paths[o->npaths++] = optarg;
		else if (c == 'n')
			o->native = false;
		else if (c == 'D')
			o->udev_db = optarg;
		else if (c != 't' || number_parse_int(optarg, 1, CMDLINE_TIMEOUT_MAX, &o->timeout) < 0)
			return -1;
	}
	if (optind != argc - 1 || strlen(o->action) >= 16)
		return -1;
	o->device = argv[optind];
	return 0;
}

/* The event, joined with its record from --udev-db when there is one. */
static int init_event(struct rules_db_dir *db, const char *devpath, const char **pairs, size_t n,
		      struct rules_event *ev)
{
	struct rules_record rec = { 0 };
	bool have = db->dirfd >= 0 && rules_db_dir_get(db, devpath, &rec);
	int r = rules_event_init(ev, pairs, n, have ? &rec : NULL);

	if (have)
		rules_record_free(&rec);
	return r;
}

static int run_test(struct cli *cli, const struct test_opts *o, const struct sysdev_root *sys,
		    const struct rules *r, const char *cmdline)
{
	struct rules_builtins b = { .sysfs = cli->sysfs, .sys = sys, .dev = cli->dev, .log = &cli->log };
	struct hwdb hwdb;
	struct rules_ctx ctx = { .sys = sys,
				 .sysfs = cli->sysfs,
				 .cmdline = cmdline,
				 .deadline_usec = now_monotonic_usec() + (uint64_t)o->timeout * 1000000ULL,
				 .no_writes = true,
				 .builtin = rules_builtins_run,
				 .program = rules_builtins_program,
				 .u = &b,
				 .log = &cli->log };
	struct rules_db_dir db = { .dirfd = -1, .sys = sys };
	char devpath[SYSDEV_PATH_MAX];
	struct props env = PROPS_INIT;
	struct rules_event ev;
	const char **pairs = NULL;
	int ret = to_devpath(cli->sysfs, o->device, devpath, sizeof(devpath));

	/* the hwdb builtin's database, where udevadm test finds it */
	if (hwdb_open(&hwdb, hwdb_default_paths, NULL, NULL) == 0)
		b.hwdb = &hwdb;
	/* --udev-db: the device's record and its parents' (IMPORT{parent}) */
	if (ret == 0 && o->udev_db &&
	    (db.dirfd = open(o->udev_db, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		ret = -errno;
	if (db.dirfd >= 0) {
		ctx.record = rules_db_dir_get;
		ctx.record_u = &db;
	}
	if (ret == 0)
		ret = synth_env(sys, devpath, o->action, &env);
	if (ret == 0 && !(pairs = calloc(env.n + 1, sizeof(*pairs))))
		ret = -ENOMEM;
	for (size_t i = 0; ret == 0 && i < env.n; i++) {
		char *pair = malloc(strlen(env.v[i].key) + strlen(env.v[i].value) + 2);

		if (!pair) {
			ret = -ENOMEM;
			break;
		}
		sprintf(pair, "%s=%s", env.v[i].key, env.v[i].value);
		pairs[i] = pair;
	}
	if (ret == 0 && (ret = init_event(&db, devpath, pairs, env.n, &ev)) == 0) {
		ret = o->native ? add_native(cli, &env, &ev) : 0;
		ret = ret ?: rules_apply(r, &ctx, &ev);
		ret = ret ?: rules_event_finish(&ev);
		print_event(&ctx, &ev);
		rules_event_free(&ev);
	}
	if (ret < 0)
		fprintf(stderr, "initdev rules test: %s: %s\n", o->device, strerror(-ret));
	if (db.dirfd >= 0)
		close(db.dirfd);
	for (size_t i = 0; pairs && i < env.n; i++)
		free((char *)pairs[i]);
	free(pairs);
	props_clear(&env);
	hwdb_close(&hwdb);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

static int cmd_rules_test(struct cli *cli, int argc, char **argv)
{
	static const char *const dirs[] = RULES_DIRS_DEFAULT;
	struct test_opts o = { .native = true, .action = "add", .timeout = 180 };
	struct sysdev_root sys;
	struct cmdline c;
	struct rules r;
	int ret;

	if (test_args(argc, argv, &o) < 0) {
		fprintf(stderr, "usage: initdev rules test [--action ACTION] [--rules PATH]... [--udev-db DIR] "
				"[--timeout SEC (1..%d)] [--no-native] DEVPATH\n",
			CMDLINE_TIMEOUT_MAX);
		return EXIT_USAGE;
	}
	if ((ret = sysdev_root_open(&sys, cli->sysfs)) < 0) {
		fprintf(stderr, "initdev rules test: %s: %s\n", cli->sysfs, strerror(-ret));
		return EXIT_FAIL;
	}
	rules_init(&r, &cli->log, NULL);
	/* IMPORT{cmdline} sees the text the daemon's cmdline_load gives it (none if unreadable) */
	cmdline_init(&c);
	ret = o.npaths ? rules_load_paths(&r, o.paths, o.npaths)
		       : rules_load_dirs(&r, cli->nrules_dirs ? cli->rules_dirs : dirs);
	if (ret < 0)
		fprintf(stderr, "initdev rules test: loading rules: %s\n", strerror(-ret));
	else if (cmdline_load(&c, cli->cmdline, NULL) < 0)
		ret = run_test(cli, &o, &sys, &r, NULL) == EXIT_OK ? 0 : -1;
	else
		ret = run_test(cli, &o, &sys, &r, c.text) == EXIT_OK ? 0 : -1;
	cmdline_free(&c);
	rules_free(&r);
	sysdev_root_close(&sys);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

int cmd_rules(struct cli *cli, int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return cmd_rules_check(cli, argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "test") == 0)
		return cmd_rules_test(cli, argc - 1, argv + 1);
	fprintf(stderr, "usage: initdev rules check [FILE|DIR...]\n"
			"       initdev rules test [--action ACTION] [--rules PATH]... DEVPATH\n");
	return EXIT_USAGE;
}
