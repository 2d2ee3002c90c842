/* SPDX-License-Identifier: MIT */
/* initdev: parse global options, pick the subcommand, run it. */
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "handoff/handoff.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "dev"
#endif

static int run_adopt(struct cli *cli, int argc, char **argv)
{
	return cmd_adopt(argc, argv, cli->run, &cli->log);
}

struct command {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "daemon", cmd_daemon, "populate /dev and load modules, in the background" },
	{ "coldplug", cmd_coldplug, "populate /dev and load modules until settled, then exit" },
	{ "settle", cmd_settle, "wait until the daemon has settled" },
	{ "status", cmd_status, "print the daemon's counts and phase" },
	{ "exit", cmd_exit, "stop the daemon" },
	{ "wait", cmd_wait, "wait for a device: /dev/PATH, UUID=, LABEL=, PARTUUID=, PARTLABEL=, MAJ:MIN" },
	{ "monitor", cmd_monitor, "print kernel uevents the gate accepts (and rejects)" },
	{ "handoff", cmd_handoff, "before switch_root: keep the uevent socket for the real root" },
	{ "adopt", run_adopt, "in the real root: take the uevent socket and exec PROG with it" },
	{ "rules", cmd_rules, "check rules files, or test them on one device" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: initdev [--sysfs DIR] [--dev DIR] [--run DIR] [--cmdline FILE]\n"
		   "               [--udev-rules DIR]... [--log-level LEVEL]\n"
		   "               [--log-target stderr|kmsg] COMMAND [ARGS]\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "see initdev(8)\n");
}

static int parse_global(struct cli *cli, enum log_target *target, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "dev", required_argument, NULL, 'd' },
		{ "run", required_argument, NULL, 'r' },
		{ "cmdline", required_argument, NULL, 'c' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "log-target", required_argument, NULL, 't' },
		{ "udev-rules", required_argument, NULL, 'u' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 's': cli->sysfs = optarg; break;
		case 'd': cli->dev = optarg; break;
		case 'r': cli->run = optarg; break;
		case 'c': cli->cmdline = optarg; break;
		case 'u':
			if (cli->nrules_dirs >= CLI_RULES_DIRS_MAX) {
				fprintf(stderr, "initdev: at most %d --udev-rules\n", CLI_RULES_DIRS_MAX);
				return -1;
			}
			cli->rules_dirs[cli->nrules_dirs++] = optarg;
			break;
		case 'l':
			cli->log_level = log_level_from_name(optarg);
			if (cli->log_level < 0) {
				fprintf(stderr, "initdev: --log-level %s: expected err, "
					"warning, notice, info, debug or 0..7\n", optarg);
				return -1;
			}
			break;
		case 't':
			if (strcmp(optarg, "stderr") == 0)
				*target = LOG_TARGET_STDERR;
			else if (strcmp(optarg, "kmsg") == 0)
				*target = LOG_TARGET_KMSG;
			else {
				fprintf(stderr, "initdev: --log-target %s: expected stderr or kmsg\n", optarg);
				return -1;
			}
			break;
		case 'V': printf("initdev %s\n", PACKAGE_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return -1;
		}
	}
	return 1;
}

/* Installed as udevadm or systemd-udevd in a dracut image: act as those. */
static int run_as_udev(struct cli *cli, int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int r;

	if (strcmp(name, "udevadm") != 0 && strcmp(name, "systemd-udevd") != 0)
		return -1;
	/* udevadm has no --run: tests point both sides elsewhere with this */
	if (getenv("INITDEV_RUN_DIR"))
		cli->run = getenv("INITDEV_RUN_DIR");
	if (getenv("INITDEV_DEV_DIR"))
		cli->dev = getenv("INITDEV_DEV_DIR");
	if (getenv("INITDEV_CMDLINE"))
		cli->cmdline = getenv("INITDEV_CMDLINE");
	log_init(&cli->log, LOG_TARGET_AUTO, LOG_NOTICE);
	r = name[0] == 'u' ? cmd_udevadm(cli, argc, argv) : cmd_systemd_udevd(cli, argc, argv);
	log_close(&cli->log);
	return r;
}

int main(int argc, char **argv)
{
	struct cli cli = { .sysfs = "/sys", .dev = "/dev", .run = "/run/initdev",
			   .cmdline = "/proc/cmdline", .log_level = -1 };
	enum log_target target = LOG_TARGET_AUTO;
	int r;

	/* the holder that keeps the uevent socket across switch_root */
	if (argc > 0 && strcmp(argv[0], HANDOFF_HOLDER_ARGV0) == 0)
		return cmd_holder(argc, argv);
	r = argc > 0 ? run_as_udev(&cli, argc, argv) : -1;

	if (r >= 0)
		return r;
	r = parse_global(&cli, &target, argc, argv);

	if (r <= 0)
		return r == 0 ? EXIT_OK : EXIT_USAGE;
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	log_init(&cli.log, target, cli.log_level >= 0 ? cli.log_level : LOG_NOTICE);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) == 0) {
			r = commands[i].run(&cli, argc - optind, argv + optind);
			log_close(&cli.log);
			return r;
		}
	}
	fprintf(stderr, "initdev: unknown command '%s'\n", argv[optind]);
	usage(stderr);
	return EXIT_USAGE;
}
