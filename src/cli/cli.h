/* SPDX-License-Identifier: MIT */
/* What every subcommand receives from main: global options and the logger. */
#pragma once

#include "util/log.h"

/* Exit codes, fixed and documented in initdev(8). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,  /* timeout, or the operation failed */
	EXIT_USAGE = 2, /* bad command line */
};

#define CLI_RULES_DIRS_MAX 8

struct cli {
	struct logger log;
	const char *sysfs;   /* --sysfs, default /sys */
	const char *dev;     /* --dev, default /dev */
	const char *run;     /* --run, default /run/initdev */
	const char *cmdline; /* --cmdline, default /proc/cmdline */
	int log_level;       /* -1 if not given */
	/* --udev-rules DIR (repeatable, rising precedence); none: udev's directories */
	const char *rules_dirs[CLI_RULES_DIRS_MAX + 1];
	unsigned int nrules_dirs;
};

int cmd_monitor(struct cli *cli, int argc, char **argv);
int cmd_daemon(struct cli *cli, int argc, char **argv);
int cmd_coldplug(struct cli *cli, int argc, char **argv);
int cmd_settle(struct cli *cli, int argc, char **argv);
int cmd_status(struct cli *cli, int argc, char **argv);
int cmd_exit(struct cli *cli, int argc, char **argv);
int cmd_wait(struct cli *cli, int argc, char **argv);
int cmd_handoff(struct cli *cli, int argc, char **argv);
int cmd_rules(struct cli *cli, int argc, char **argv);
/* dracut compatibility, chosen by argv[0] */
int cmd_udevadm(struct cli *cli, int argc, char **argv);
int cmd_systemd_udevd(struct cli *cli, int argc, char **argv);
