/* SPDX-License-Identifier: MIT */
/*
 * udev 252's rules language (rules(7)): files parsed once into a compiled
 * form (lines of typed tokens, GOTOs resolved to line indexes), then applied
 * to one device event at a time without re-reading any text.
 *
 * The library knows nothing of the engine. It takes an event (rules_event,
 * built from the kernel's KEY=VALUE list and the device's persisted record),
 * a context (sysfs root, kernel command line, builtins, the database of
 * other devices) and leaves its results in the event: properties, tags,
 * symlinks and their priority, owner/group/mode, the RUN list and options.
 * PROGRAM and IMPORT{program} run during rules_apply (bounded by the
 * context's deadline); RUN entries are only listed (rules_run_list runs them).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules/props.h"
#include "util/log.h"
#include "util/sysdev.h"

/* udev's buffers: a rules line, a path, a name or value */
#define RULES_LINE_MAX 16384
#define RULES_PATH_MAX 1024
#define RULES_NAME_MAX 512
#define RULES_FILES_MAX 4096
#define RULES_LINES_MAX 200000
#define RULES_RUN_MAX 256

/* Operators, in udev's order. */
enum rules_op {
	ROP_MATCH,        /* == */
	ROP_NOMATCH,      /* != */
	ROP_ADD,          /* += */
	ROP_REMOVE,       /* -= */
	ROP_ASSIGN,       /* = */
	ROP_ASSIGN_FINAL, /* := */
};

/*
 * Token types. The order is udev's: tokens of a line are evaluated sorted
 * by type (matches first, cheapest first; assignments after all matched).
 */
enum rules_tk {
	RTK_M_ACTION,
	RTK_M_DEVPATH,
	RTK_M_KERNEL,
	RTK_M_DEVLINK,
	RTK_M_NAME,
	RTK_M_ENV,
	RTK_M_CONST,
	RTK_M_TAG,
	RTK_M_SUBSYSTEM,
	RTK_M_DRIVER,
	RTK_M_ATTR,
	RTK_M_SYSCTL,
	RTK_M_PARENTS_KERNEL,
	RTK_M_PARENTS_SUBSYSTEM,
	RTK_M_PARENTS_DRIVER,
	RTK_M_PARENTS_ATTR,
	RTK_M_PARENTS_TAG,
	RTK_M_TEST,
	RTK_M_PROGRAM,
	RTK_M_IMPORT_FILE,
	RTK_M_IMPORT_PROGRAM,
	RTK_M_IMPORT_BUILTIN,
	RTK_M_IMPORT_DB,
	RTK_M_IMPORT_CMDLINE,
	RTK_M_IMPORT_PARENT,
	RTK_M_RESULT,
	RTK_A_ESCAPE_NONE,
	RTK_A_ESCAPE_REPLACE,
	RTK_A_DB_PERSIST,
	RTK_A_WATCH,
	RTK_A_LINK_PRIORITY,
	RTK_A_LOG_LEVEL,
	RTK_A_OWNER,
	RTK_A_GROUP,
	RTK_A_MODE,
	RTK_A_OWNER_ID,
	RTK_A_GROUP_ID,
	RTK_A_MODE_ID,
	RTK_A_TAG,
	RTK_A_STATIC_NODE,
	RTK_A_SECLABEL,
	RTK_A_ENV,
	RTK_A_NAME,
	RTK_A_DEVLINK,
	RTK_A_ATTR,
	RTK_A_SYSCTL,
	RTK_A_RUN_BUILTIN,
	RTK_A_RUN_PROGRAM,
	RTK_MAX,
};
#define RTK_A_MIN RTK_A_ESCAPE_NONE

/* How a match value compares (udev's MATCH_TYPE_*). */
enum rules_mt {
	RMT_EMPTY, /* "" (and "?*" with the operator flipped) */
	RMT_PLAIN,
	RMT_PLAIN_EMPTY, /* plain alternatives, one of them empty ("|foo") */
	RMT_GLOB,
	RMT_GLOB_EMPTY,
	RMT_SUBSYSTEM, /* SUBSYSTEM=="subsystem|bus|class" */
};

/* How an ATTR{} name is read (udev's SUBST_TYPE_*). */
enum rules_st {
	RST_PLAIN,
	RST_FORMAT, /* has % or $ */
	RST_SUBSYS, /* "[subsystem/kernel]attribute" */
};

/*
 * udev's builtins, in udev 257's order (252's and net_driver, new in 257:
 * the order decides which a prefix names); initdev provides some through
 * rules_ctx.builtin.
 */
enum rules_builtin {
	RB_BLKID,
	RB_BTRFS,
	RB_HWDB,
	RB_INPUT_ID,
	RB_KEYBOARD,
	RB_KMOD,
	RB_NET_DRIVER,
	RB_NET_ID,
	RB_NET_SETUP_LINK,
	RB_PATH_ID,
	RB_USB_ID,
	RB_UACCESS,
	RB_MAX,
};

const char *rules_builtin_name(enum rules_builtin b);
/* udev's lookup: the first word of cmd (as a prefix of a name); -1 if none. */
int rules_builtin_lookup(const char *cmd);
/* Builtins that run once per event (udev's run_once). */
bool rules_builtin_run_once(enum rules_builtin b);
/* The builtins initdev has (all of udev's but net_id, net_setup_link, uaccess). */
bool rules_builtin_supported(enum rules_builtin b);

struct rules_token {
	uint8_t type;      /* enum rules_tk */
	uint8_t op;        /* enum rules_op */
	uint8_t match;     /* enum rules_mt (matches) */
	uint8_t subst;     /* enum rules_st (ATTR names) */
	bool trim;         /* ATTR match: drop trailing whitespace of the value */
	const char *value; /* matches: alternatives, NUL-separated, "\0\0" at the end */
	const char *attr;  /* the {} part (ENV name, ATTR name, ...) or NULL */
	long num;          /* uid, gid, mode, priority, log level, watch, builtin */
};

/* What a line does (udev's LINE_HAS_*): lines that do nothing for an event are skipped. */
enum {
	RLINE_NAME = 1 << 0,
	RLINE_DEVLINK = 1 << 1, /* SYMLINK, OWNER, GROUP, MODE: only devices with a node */
	RLINE_STATIC_NODE = 1 << 2,
	RLINE_GOTO = 1 << 3,
	RLINE_LABEL = 1 << 4,
	RLINE_UPDATE = 1 << 5, /* other assignments, PROGRAM, IMPORT */
};

struct rules_line {
	uint32_t file;     /* index into rules.files */
	uint32_t lineno;   /* last physical line of a continued line */
	uint32_t first, n; /* tokens[first .. first + n) */
	uint8_t type;      /* RLINE_* */
	int32_t goto_line; /* index into rules.lines, or -1 */
	const char *label;
	const char *goto_label;
};

/* Diagnostics while parsing: what `initdev rules check` prints. */
struct rules_diag {
	void (*fn)(void *u, int prio, const char *file, unsigned int line, const char *msg);
	void *u;
};

struct rules {
	char **files; /* paths, in evaluation order */
	size_t nfiles;
	struct rules_line *lines;
	size_t nlines, lines_cap;
	struct rules_token *tokens;
	size_t ntokens, tokens_cap;
	char **texts; /* the unquoted line buffers tokens point into */
	size_t ntexts, texts_cap;
	unsigned int errors; /* lines (or keys) udev would not run */
	unsigned int warnings;
	bool check; /* also report what initdev does not support */
	const struct logger *log;
	struct rules_diag diag;
};

/* An empty rule set; log and diag may be NULL. */
void rules_init(struct rules *r, const struct logger *log, const struct rules_diag *diag);
void rules_free(struct rules *r);

/*
 * Parse one file's text (len bytes; NUL bytes end a line as in udev) and
 * append its lines. Problems are counted, reported and skipped as udev
 * skips them. Returns 0, or -ENOMEM / -E2BIG (a bound was hit).
 */
int rules_parse_text(struct rules *r, const char *name, const char *text, size_t len);
/* Read and parse path; 0 if it does not exist or is empty; -errno. */
int rules_parse_file(struct rules *r, const char *path);

/*
 * udev 252's directories (Debian builds it with split-usr: /lib too), in
 * rising precedence for a file name found in several.
 */
#define RULES_DIRS_DEFAULT                                                                   \
	{                                                                                    \
		"/lib/udev/rules.d", "/usr/lib/udev/rules.d", "/usr/local/lib/udev/rules.d", \
			"/run/udev/rules.d", "/etc/udev/rules.d", NULL                       \
	}

/*
 * Every "*.rules" file of dirs (NULL-terminated, rising precedence: the
 * later directory's file replaces a same-named earlier one; "/dev/null"
 * symlinks mask), in file name order. Returns 0 or -errno.
 */
int rules_load_dirs(struct rules *r, const char *const *dirs);
/* Load paths as given (files, or directories whose *.rules are read in order). */
int rules_load_paths(struct rules *r, const char *const *paths, size_t n);

/* ---- evaluation ---- */

struct rules_run {
	char *cmd;   /* substituted command line */
	int builtin; /* enum rules_builtin, or -1 for a program */
	bool ok;     /* rules_run_list ran it and it succeeded (exit 0) */
};

/* One device event and everything the rules decided for it. */
struct rules_event {
	char action[16];
	char devpath[SYSDEV_PATH_MAX];
	char sysname[SYSDEV_NAME_MAX];
	char subsystem[SYSDEV_NAME_MAX];
	char driver[SYSDEV_NAME_MAX]; /* from DRIVER=, else read from sysfs on use */
	bool driver_known;
	char devname[RULES_PATH_MAX]; /* "/dev/..." or "" */
	bool has_devnum;
	unsigned int major, minor;
	bool has_ifindex;
	bool remove;

	struct props props;       /* the device's properties, as udev's sd_device */
	struct props old;         /* persisted by earlier events (IMPORT{db}) */
	struct strv tags;         /* TAGS: old and new */
	struct strv current_tags; /* CURRENT_TAGS: set by this event */
	struct strv links;        /* "/dev/..." as SYMLINK gave them (checked by the caller) */
	int link_priority;

	uid_t uid; /* (uid_t)-1: not set */
	gid_t gid;
	mode_t mode; /* (mode_t)-1: not set */
	char *name;  /* NAME= (network interfaces only) */
	struct rules_run *run;
	size_t nrun;
	int watch; /* -1 unset, 0 nowatch, 1 watch */
	bool db_persist;
	int log_level;             /* -2 unset, -1 reset */
	uint64_t usec_initialized; /* monotonic usec of its first event (the record's I:), 0 unset */

	/* evaluation state */
	char *program_result;
	unsigned int builtin_run, builtin_ret;
	char parent[SYSDEV_PATH_MAX]; /* the device ATTRS/KERNELS... matched ("" none) */
	int esc;
	bool owner_final, group_final, mode_final, devlink_final, run_final, watch_final,
		name_final;
	unsigned int builtin_failed_logged;
	bool lists_stale; /* DEVLINKS/TAGS/CURRENT_TAGS not rebuilt since links or tags changed */
};

/* The database of other devices' records: IMPORT{parent}, TAGS. */
struct rules_record {
	struct props props; /* db-marked properties only */
	struct strv tags;
	struct strv links;
	int link_priority;
	bool persist;
	uint64_t usec_initialized; /* when the device's first event was handled; 0 unknown */
};

typedef int (*rules_builtin_fn)(void *u, struct rules_event *ev, enum rules_builtin b, int argc,
				char **argv);
/*
 * A udev helper program initdev runs itself (cdrom_id): its exit status,
 * out filled (NUL-terminated) as its stdout; -ENOENT: argv[0] is none of
 * them, run it as usual.
 */
typedef int (*rules_program_fn)(void *u, struct rules_event *ev, int argc, char **argv, char *out,
				size_t size);
/* Fills out with a copy of devpath's record; false if there is none. */
typedef bool (*rules_record_fn)(void *u, const char *devpath, struct rules_record *out);

struct rules_ctx {
	const struct sysdev_root *sys; /* the sysfs root (open) */
	const char *sysfs;             /* its path, for $sys, TEST and programs */
	const char *cmdline;           /* the kernel command line (IMPORT{cmdline}); NULL: none */
	const char *libexec; /* where a relative program is looked up; default /usr/lib/udev */
	const char *procsys; /* SYSCTL root; default /proc/sys */
	const char *virt;    /* CONST{virt}; NULL: "none" */
	const struct props
		*global;        /* udevadm control --property: ENV{} matches fall back to them */
	uint64_t deadline_usec; /* monotonic; PROGRAM/IMPORT killed then; 0: none */
	bool no_writes;         /* test mode: ATTR{}=/SYSCTL{}= are logged, not written */
	bool no_programs;       /* PROGRAM and IMPORT{program} fail without running (fuzzing) */
	rules_builtin_fn builtin;
	rules_program_fn program; /* relative program names run in-process; NULL: none */
	void *u; /* for builtin and program */
	rules_record_fn record;
	void *record_u; /* for record */
	const struct logger *log;
};

/*
 * Build an event from the kernel's KEY=VALUE list (ACTION, DEVPATH and
 * SUBSYSTEM required; DEVNAME is made absolute as udev shows it). old, if
 * not NULL, is the device's persisted record: on remove it is merged into
 * the properties (as udev reads the database then), otherwise it is kept
 * for IMPORT{db} and its tags carried over. Returns 0, -EINVAL, -ENOMEM.
 */
int rules_event_init(struct rules_event *ev, const char *const *env, size_t n,
		     const struct rules_record *old);
void rules_event_free(struct rules_event *ev);

/*
 * Apply the rules to ev. Returns 0; -ENOMEM or -E2BIG if the event's
 * bounds were hit (what was done so far stays).
 */
int rules_apply(const struct rules *r, const struct rules_ctx *ctx, struct rules_event *ev);

/*
 * Run ev's RUN list in order (after the event's own handlers): programs
 * with the event's properties as environment, killed at ctx->deadline_usec
 * (entries not started by then are skipped, logged); builtins through
 * ctx->builtin. Failures are logged with the exit status.
 * Returns how many failed.
 */
unsigned int rules_run_list(const struct rules_ctx *ctx, struct rules_event *ev);

/* The properties udev adds after the rules: DEVLINKS, TAGS, CURRENT_TAGS. */
int rules_event_finish(struct rules_event *ev);

/*
 * The mode udev gives ev's node: the rules' MODE, else the kernel's DEVMODE,
 * else 0660 if a group other than root's was set (rules' GROUP, else
 * DEVGID); (mode_t)-1 if none of these (the node keeps its mode).
 */
mode_t rules_event_mode(const struct rules_event *ev);

/* The persisted record of ev after its event (db-marked properties, tags, links). */
int rules_record_from_event(struct rules_record *rec, const struct rules_event *ev);
void rules_record_free(struct rules_record *rec);

/* A SYMLINK name (relative to /dev) initdev may create: normalized, inside /dev. */
bool rules_link_valid(const char *name);

/* systemd's parse_mode: blanks, then octal digits only, at most 07777. 0 or -EINVAL/-ERANGE. */
int rules_parse_mode(const char *s, mode_t *mode);

/*
 * systemd's parse_uid/parse_gid: digits only, at most 4294967294, not 65535
 * (the 16-bit -1). 0 or -EINVAL.
 */
int rules_parse_id(const char *s, long *id);

/* For "/dev/NAME" with NAME a valid name inside /dev: NAME. Otherwise NULL. */
const char *rules_devname_rel(const char *devname);
