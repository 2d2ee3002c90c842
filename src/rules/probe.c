/* SPDX-License-Identifier: MIT */
/*
 * The match keys that look beyond the event: TEST (a file exists, with a
 * mode), SYSCTL, CONST, PROGRAM (its output becomes RESULT) and IMPORT
 * {program,builtin,file,db,cmdline,parent}, which add properties.
 */
#include "rules/eval.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "names/udev-string.h"
#include "util/escape.h"
#include "rules/exec.h"
#include "rules/match.h"
#include "rules/subst.h"
#include "rules/sysfs.h"

static int op_result(const struct rules_token *t, bool ok)
{
	return t->op == (ok ? ROP_MATCH : ROP_NOMATCH);
}

/* udev's "/ * /" (no blanks) in a path: the first entry of that directory that has the rest. */
static int subst_subdir(char *path, size_t size)
{
	char *star = strstr(path, "/*/"), dir[RULES_PATH_MAX], cand[RULES_PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = -ENOENT;

	if (!star)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(star - path + 1), path);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(cand, sizeof(cand), "%s%s%s", dir, de->d_name, star + 2) >=
		    sizeof(cand))
			continue;
		if (access(cand, F_OK) == 0 && strlen(cand) < size) {
			strcpy(path, cand);
			r = 0;
			break;
		}
	}
	closedir(d);
	return r;
}

static int test_file(struct evstate *s, const struct rules_token *t)
{
	char buf[RULES_PATH_MAX], tmp[RULES_PATH_MAX];
	struct stat st;

	if (!ev_format(s, t->value, buf, sizeof(buf), "TEST path", true))
		return 0;
	if (buf[0] != '/' &&
	    rsys_subsys_kernel(s->ctx->sys, s->ctx->sysfs, buf, tmp, sizeof(tmp), false) == 0)
		snprintf(buf, sizeof(buf), "%s", tmp);
	else if (buf[0] != '/') {
		if ((size_t)snprintf(tmp, sizeof(tmp), "%s%s/%s", s->ctx->sysfs, s->ev->devpath,
				     buf) >= sizeof(tmp))
			return 0;
		snprintf(buf, sizeof(buf), "%s", tmp);
	}
	if (subst_subdir(buf, sizeof(buf)) < 0 || stat(buf, &st) < 0)
		return t->op == ROP_NOMATCH;
	if (t->num < 0)
		return t->op == ROP_MATCH;
	return op_result(t, (st.st_mode & (mode_t)t->num) != 0);
}

/* systemd's sysctl_normalize: "a.b/c" names use '.' as the separator. */
static bool sysctl_path(const struct rules_ctx *ctx, char *name, char *path, size_t size)
{
	size_t first = strcspn(name, "./");

	if (name[first] == '.')
		for (char *p = name; *p; p++)
			*p = *p == '.' ? '/' : *p == '/' ? '.' : *p;
	while (*name == '/')
		name++;
	if (!*name || strstr(name, "..") ||
	    (size_t)snprintf(path, size, "%s/%s", ctx->procsys ? ctx->procsys : "/proc/sys",
			     name) >= size)
		return false;
	return true;
}

static int read_small(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, out, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	out[n] = '\0';
	return (int)strlen(out);
}

static void strip(char *v)
{
	size_t n = strlen(v), i = strspn(v, " \t\n\r");

	while (n > i && strchr(" \t\n\r", v[n - 1]))
		n--;
	memmove(v, v + i, n - i);
	v[n - i] = '\0';
}

static int match_sysctl(struct evstate *s, const struct rules_token *t)
{
	char name[RULES_PATH_MAX], path[RULES_PATH_MAX + 64], v[SYSDEV_ATTR_MAX + 1] = "";

	if (!ev_format(s, t->attr, name, sizeof(name), "SYSCTL name", true) ||
	    !sysctl_path(s->ctx, name, path, sizeof(path)))
		return 0;
	if (read_small(path, v, sizeof(v)) < 0)
		v[0] = '\0';
	strip(v);
	return match_string(t, v);
}

/* systemd's architecture names for the machines initdev runs on. */
static const char *arch_name(void)
{
	static const struct {
		const char *uname, *name;
	} map[] = {
		{ "x86_64", "x86-64" }, { "i686", "x86" },         { "i586", "x86" },
		{ "i386", "x86" },      { "aarch64", "arm64" },    { "aarch64_be", "arm64-be" },
		{ "armv7l", "arm" },    { "ppc64le", "ppc64-le" }, { "ppc64", "ppc64" },
		{ "s390x", "s390x" },   { "riscv64", "riscv64" },  { "loongarch64", "loongarch64" },
		{ "mips64", "mips64" },
	};
	static __thread struct utsname u;

	if (uname(&u) < 0)
		return "";
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(u.machine, map[i].uname) == 0)
			return map[i].name;
	return u.machine;
}

/* KEY=VALUE lines of a program's output or a file, as udev imports them. */
static int import_line(struct evstate *s, char *line)
{
	char *key = line + strspn(line, " \t\n\r"), *val;
	size_t n;

	if (*key == '#' || *key == '\0')
		return 0;
	val = strchr(key, '=');
	if (!val)
		return 0;
	*val++ = '\0';
	strip(key);
	strip(val);
	if (!*key || !*val)
		return 0;
	n = strlen(val);
	if (val[0] == '"' || val[0] == '\'') {
		if (n == 1 || val[n - 1] != val[0])
			return 0;
		val[n - 1] = '\0';
		val++;
	}
	return props_set_rule(&s->ev->props, key, val) == -ENOMEM ? -ENOMEM : 0;
}

static int import_text(struct evstate *s, char *text)
{
	char *save = NULL;

	for (char *l = strtok_r(text, "\n\r", &save); l; l = strtok_r(NULL, "\n\r", &save)) {
		int r = import_line(s, l);

		if (r < 0)
			return r;
	}
	return 0;
}

static int import_program(struct evstate *s, const struct rules_token *t)
{
	char cmd[RULES_LINE_MAX], *out;
	bool trunc;
	int r;

	if (!ev_format(s, t->value, cmd, sizeof(cmd), "IMPORT command", true))
		return 0;
	out = malloc(RULES_LINE_MAX);
	if (!out)
		return -ENOMEM;
	r = ev_spawn(s, cmd, out, RULES_LINE_MAX, &trunc, true);
	if (r == 0)
		r = import_text(s, out);
	else
		r = r == -ENOMEM ? r : 1;
	free(out);
	return r < 0 ? r : op_result(t, r == 0);
}

static int run_program(struct evstate *s, const struct rules_token *t)
{
	char cmd[RULES_LINE_MAX], *out;
	bool trunc;
	int r;

	free(s->ev->program_result);
	s->ev->program_result = NULL;
	if (!ev_format(s, t->value, cmd, sizeof(cmd), "PROGRAM command", true))
		return 0;
	out = malloc(RULES_LINE_MAX);
	if (!out)
		return -ENOMEM;
	r = ev_spawn(s, cmd, out, RULES_LINE_MAX, &trunc, true);
	if (r != 0) {
		free(out);
		return r == -ENOMEM ? r : t->op == ROP_NOMATCH;
	}
	for (size_t n = strlen(out); n > 0 && out[n - 1] == '\n'; n--)
		out[n - 1] = '\0';
	ustr_replace_chars(out, USTR_ALLOW_INPUT);
	s->ev->program_result = out;
	return t->op == ROP_MATCH;
}

static int import_builtin(struct evstate *s, const struct rules_token *t)
{
	unsigned int mask = 1U << t->num;
	char cmd[RULES_LINE_MAX], words[RULES_LINE_MAX], *argv[EXEC_ARGS_MAX];
	int argc, r = -EOPNOTSUPP;

	if (rules_builtin_run_once((enum rules_builtin)t->num)) {
		if (s->ev->builtin_run & mask)
			return op_result(t, !(s->ev->builtin_ret & mask));
		s->ev->builtin_run |= mask;
	}
	if (!ev_format(s, t->value, cmd, sizeof(cmd), "builtin command", true))
		return 0;
	argc = exec_split(cmd, words, sizeof(words), argv, EXEC_ARGS_MAX);
	if (argc > 0 && s->ctx->builtin)
		r = s->ctx->builtin(s->ctx->u, s->ev, (enum rules_builtin)t->num, argc, argv);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		char e[EV_ESC_MAX];

		ev_log(s, LOG_DEBUG, "builtin '%s' failed: %s", ev_esc(e, cmd), errno_text(r));
		s->ev->builtin_ret |= mask;
	}
	return op_result(t, r >= 0);
}

static int import_file(struct evstate *s, const struct rules_token *t)
{
	char path[RULES_PATH_MAX], *text;
	int r;

	if (!ev_format(s, t->value, path, sizeof(path), "IMPORT file", true))
		return 0;
	text = malloc(RULES_LINE_MAX * 4);
	if (!text)
		return -ENOMEM;
	r = read_small(path, text, RULES_LINE_MAX * 4);
	if (r < 0) {
		char e[EV_ESC_MAX];

		free(text);
		if (r != -ENOENT)
			ev_log(s, LOG_ERR, "failed to open '%s': %s", ev_esc(e, path), errno_text(r));
		return r == -ENOENT ? t->op == ROP_NOMATCH : 0;
	}
	r = import_text(s, text);
	free(text);
	return r < 0 ? r : t->op == ROP_MATCH;
}

static int import_db(struct evstate *s, const struct rules_token *t)
{
	const char *v = props_get(&s->ev->old, t->value);

	if (!v)
		return t->op == ROP_NOMATCH;
	if (props_set_rule(&s->ev->props, t->value, v) == -ENOMEM)
		return -ENOMEM;
	return t->op == ROP_MATCH;
}

/* proc_cmdline_key_streq: '-' and '_' are the same. */
static bool cmdline_key_eq(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen && b[i]; i++)
		if (a[i] != b[i] && !((a[i] == '-' || a[i] == '_') && (b[i] == '-' || b[i] == '_')))
			return false;
	return i == alen && b[i] == '\0';
}

/* The last key=value (or bare key: "1") of the command line wins, as in udev. */
static int import_cmdline(struct evstate *s, const struct rules_token *t)
{
	const char *text = s->ctx->cmdline ? s->ctx->cmdline : "", *found = NULL;
	size_t len = strlen(text), max = len / 2 + 2; /* a word and a blank each */
	char **argv = malloc(max * sizeof(*argv) + len + 1);
	int n, r;

	if (!argv)
		return -ENOMEM;
	n = exec_split(text, (char *)(argv + max), len + 1, argv, max);
	for (int i = 0; i < n; i++) {
		char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);

		if (cmdline_key_eq(argv[i], klen, t->value))
			found = eq ? eq + 1 : "1";
	}
	r = found ? props_set_rule(&s->ev->props, t->value, found) : 0;
	free(argv);
	if (r == -ENOMEM)
		return r;
	return found ? t->op == ROP_MATCH : t->op == ROP_NOMATCH;
}

static int import_parent(struct evstate *s, const struct rules_token *t)
{
	char filter[RULES_PATH_MAX], parent[SYSDEV_PATH_MAX];
	struct props p = PROPS_INIT;
	struct rules_record rec = { 0 };
	int r = 0;

	if (!ev_format(s, t->value, filter, sizeof(filter), "IMPORT parent filter", true))
		return 0;
	if (sysdev_parent(s->ctx->sys, s->ev->devpath, parent, sizeof(parent)) < 0)
		return t->op == ROP_NOMATCH;
	r = rsys_uevent_props(s->ctx->sys, parent, &p);
	if (r == 0 && s->ctx->record && s->ctx->record(s->ctx->record_u, parent, &rec)) {
		r = props_copy(&p, &rec.props);
		rules_record_free(&rec);
	}
	for (size_t i = 0; r == 0 && i < p.n; i++)
		if (fnmatch(filter, p.v[i].key, 0) == 0)
			r = props_set_rule(&s->ev->props, p.v[i].key, p.v[i].value);
	props_clear(&p);
	return r == -ENOMEM ? r : t->op == ROP_MATCH;
}

int probe_token(struct evstate *s, const struct rules_token *t)
{
	switch (t->type) {
	case RTK_M_CONST:
		return match_string(t, strcmp(t->attr, "arch") == 0 ? arch_name()
				       : s->ctx->virt               ? s->ctx->virt
								    : "none");
	case RTK_M_SYSCTL: return match_sysctl(s, t);
	case RTK_M_TEST: return test_file(s, t);
	case RTK_M_PROGRAM: return run_program(s, t);
	case RTK_M_IMPORT_FILE: return import_file(s, t);
	case RTK_M_IMPORT_PROGRAM: return import_program(s, t);
	case RTK_M_IMPORT_BUILTIN: return import_builtin(s, t);
	case RTK_M_IMPORT_DB: return import_db(s, t);
	case RTK_M_IMPORT_CMDLINE: return import_cmdline(s, t);
	case RTK_M_IMPORT_PARENT: return import_parent(s, t);
	default: return 0;
	}
}

/* The environment of a program: every property as KEY=VALUE. */
static char **make_env(const struct props *p)
{
	size_t total = 0;
	char **env, *w;

	for (size_t i = 0; i < p->n; i++)
		total += strlen(p->v[i].key) + strlen(p->v[i].value) + 2;
	env = malloc((p->n + 1) * sizeof(char *) + total);
	if (!env)
		return NULL;
	w = (char *)(env + p->n + 1);
	for (size_t i = 0; i < p->n; i++) {
		env[i] = w;
		w += sprintf(w, "%s=%s", p->v[i].key, p->v[i].value) + 1;
	}
	env[p->n] = NULL;
	return env;
}

static void log_outcome(const struct evstate *s, const char *cmd, const struct exec_status *st,
			const char *err, bool accept_failure)
{
	char safe[512], e[EV_ESC_MAX];

	ev_esc(e, cmd);
	if (st->timed_out)
		ev_log(s, LOG_ERR, "'%s' timed out, killed", e);
	else if (st->signal)
		ev_log(s, LOG_ERR, "'%s' terminated by signal %d", e, st->signal);
	else if (st->exit_code)
		ev_log(s, accept_failure ? LOG_DEBUG : LOG_WARNING,
		       "'%s' failed with exit code %d%s%s", e, st->exit_code, err[0] ? ": " : "",
		       escape_log(safe, sizeof(safe), err, strlen(err)));
}

unsigned int rules_run_list(const struct rules_ctx *ctx, struct rules_event *ev)
{
	struct evstate s = { .ctx = ctx, .ev = ev };
	char words[RULES_LINE_MAX], *argv[EXEC_ARGS_MAX];
	unsigned int failed = 0;
	bool trunc;

	for (size_t i = 0; i < ev->nrun; i++) {
		struct rules_run *run = &ev->run[i];
		char e[EV_ESC_MAX];
		int r, argc;

		run->ok = false;
		if (ctx->deadline_usec && now_monotonic_usec() >= ctx->deadline_usec) {
			ev_log(&s, LOG_ERR, "'%s' not run: the event's time is up", ev_esc(e, run->cmd));
			failed++;
			continue;
		}
		if (run->builtin < 0) {
			run->ok = ev_spawn(&s, run->cmd, NULL, 0, &trunc, false) == 0;
			failed += !run->ok;
			continue;
		}
		argc = exec_split(run->cmd, words, sizeof(words), argv, EXEC_ARGS_MAX);
		r = argc > 0 && ctx->builtin
			    ? ctx->builtin(ctx->u, ev, (enum rules_builtin)run->builtin, argc, argv)
			    : -EINVAL;
		run->ok = r >= 0;
		if (r < 0) {
			ev_log(&s, LOG_DEBUG, "builtin '%s' failed: %s", ev_esc(e, run->cmd),
			       errno_text(r));
			failed++;
		}
	}
	return failed;
}

/*
 * udev runs a relative program from its helper directory (path_join, nothing
 * refused): here it must stay there (no ".." component) and its path must fit.
 */
static int helper_path(const char *libexec, const char *name, char *out, size_t size)
{
	for (const char *p = name; *p; p += strcspn(p, "/"), p += strspn(p, "/"))
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return -EPERM;
	if ((size_t)snprintf(out, size, "%s/%s", libexec, name) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * A helper initdev runs itself (rules_ctx.program), as udev would run the
 * program of that name from its helper directory: -ENOENT if argv[0] is
 * none of them.
 */
static int internal(const struct evstate *s, const char *cmd, int argc, char **argv, char *out,
		    size_t size)
{
	char sink[2048], e[EV_ESC_MAX];
	int r = s->ctx->program(s->ctx->u, s->ev, argc, argv, out ? out : sink,
				out ? size : sizeof(sink));

	if (r == -ENOENT)
		return r;
	if (r != 0)
		ev_log(s, LOG_DEBUG, "'%s' (run by initdev) failed with exit code %d",
		       ev_esc(e, cmd), r);
	return r < 0 ? 1 : r;
}

int ev_spawn(const struct evstate *s, const char *cmd, char *out, size_t size, bool *truncated,
	     bool accept_failure)
{
	char words[RULES_LINE_MAX], prog[RULES_PATH_MAX], err[256], *argv[EXEC_ARGS_MAX], **env;
	char e[EV_ESC_MAX];
	struct exec_opts o = { .deadline_usec = s->ctx->deadline_usec,
			       .out = out,
			       .out_size = size,
			       .err = err,
			       .err_size = sizeof(err) };
	struct exec_status st;
	int r;

	if (s->ctx->no_programs)
		return -EPERM;
	r = exec_split(cmd, words, sizeof(words), argv, EXEC_ARGS_MAX);

	if (r <= 0 || !argv[0][0]) {
		ev_log(s, LOG_ERR, "invalid command '%s'", ev_esc(e, cmd));
		return r < 0 ? r : -EINVAL;
	}
	if (argv[0][0] != '/' && s->ctx->program) {
		r = internal(s, cmd, r, argv, out, size);
		if (r != -ENOENT) {
			*truncated = false;
			return r;
		}
	}
	if (argv[0][0] != '/') {
		const char *dir = s->ctx->libexec ? s->ctx->libexec : "/usr/lib/udev";

		r = helper_path(dir, argv[0], prog, sizeof(prog));
		if (r < 0) {
			ev_log(s, LOG_ERR, "'%s' refused: %s", ev_esc(e, cmd),
			       r == -EPERM ? "a relative program name must not contain '..'"
					   : "the program's path is too long");
			return r;
		}
		argv[0] = prog;
	}
	env = ev_sync_lists(s->ev) == 0 ? make_env(&s->ev->props) : NULL;
	if (!env)
		return -ENOMEM;
	r = exec_run(argv, env, &o, &st);
	free(env);
	if (r < 0) {
		ev_log(s, LOG_WARNING, "failed to execute '%s': %s", ev_esc(e, cmd), errno_text(r));
		return r;
	}
	*truncated = st.truncated;
	ustr_trim_trailing(err);
	log_outcome(s, cmd, &st, err, accept_failure);
	return st.timed_out || st.signal ? 255 : st.exit_code;
}
