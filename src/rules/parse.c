/* SPDX-License-Identifier: MIT */
/*
 * From pairs to tokens: which keys take which operators and attributes,
 * exactly as udev 252 decides (a bad key drops its whole line; some
 * operators are only warned about and corrected), then the line's tokens
 * sorted by type and GOTOs resolved within the file.
 */
#include "rules/rules.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/lexer.h"
#include "rules/match.h"
#include "rules/subst.h"
#include "util/number.h"

struct pstate {
	struct rules *r;
	const char *file;
	unsigned int lineno;
	struct rules_line *line; /* the line being built (r->lines[r->nlines]) */
};

__attribute__((format(printf, 3, 4))) static void report(struct pstate *ps, int prio,
							 const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (prio <= LOG_ERR)
		ps->r->errors++;
	else if (prio == LOG_WARNING)
		ps->r->warnings++;
	if (ps->r->diag.fn)
		ps->r->diag.fn(ps->r->diag.u, prio, ps->file, ps->lineno, msg);
	else if (ps->r->log)
		log_msg(ps->r->log, prio, "%s:%u: %s", ps->file, ps->lineno, msg);
}

/*
 * A key initdev parses like udev but cannot carry out: an error for `rules
 * check` (a warning for keys that change nothing a block device gets).
 */
static void unsupported_prio(struct pstate *ps, const char *what, int prio)
{
	if (ps->r->check)
		report(ps, prio, "%s: not supported by initdev", what);
}

static void unsupported(struct pstate *ps, const char *what)
{
	unsupported_prio(ps, what, LOG_ERR);
}

static int invalid(struct pstate *ps, const char *key, const char *what)
{
	report(ps, LOG_ERR, "%s: invalid %s, line ignored", key, what);
	return -EINVAL;
}

static void check_format(struct pstate *ps, const char *key, const char *value, bool nonempty)
{
	const char *hint;
	size_t off;

	if (nonempty && !*value)
		report(ps, LOG_WARNING, "%s: empty value", key);
	else if (subst_check(value, &off, &hint) < 0)
		report(ps, LOG_WARNING, "%s: invalid value \"%s\" (char %zu: %s)", key, value,
		       off + 1, hint);
}

static struct rules_token *add_token(struct pstate *ps, enum rules_tk type, int op, char *value,
				     const char *attr)
{
	struct rules *r = ps->r;
	struct rules_token *t;

	if (r->ntokens == r->tokens_cap) {
		size_t cap = r->tokens_cap ? r->tokens_cap * 2 : 256;
		struct rules_token *v = realloc(r->tokens, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->tokens = v;
		r->tokens_cap = cap;
	}
	t = &r->tokens[r->ntokens++];
	*t = (struct rules_token){ .type = (uint8_t)type,
				   .op = (uint8_t)op,
				   .value = value,
				   .attr = attr };
	ps->line->n++;
	if (type < RTK_A_MIN && value)
		match_compile(t, value, type);
	if (type == RTK_M_ATTR || type == RTK_M_PARENTS_ATTR) {
		size_t len = strlen(t->value);

		/* "ATTR{x}==\"a \"" asks for the trailing blank; otherwise it is dropped */
		t->trim = len > 0 && !strchr(" \t\n\r\v\f", t->value[len - 1]);
		t->subst = attr[0] == '['        ? RST_SUBSYS
			   : strpbrk(attr, "%$") ? RST_FORMAT
						 : RST_PLAIN;
	}
	if (type == RTK_A_NAME)
		ps->line->type |= RLINE_NAME;
	else if (type == RTK_A_DEVLINK || (type >= RTK_A_OWNER && type <= RTK_A_MODE_ID))
		ps->line->type |= RLINE_DEVLINK;
	else if (type == RTK_A_STATIC_NODE)
		ps->line->type |= RLINE_STATIC_NODE;
	else if (type >= RTK_A_MIN || (type >= RTK_M_PROGRAM && type <= RTK_M_IMPORT_PARENT))
		ps->line->type |= RLINE_UPDATE;
	return t;
}

static int add(struct pstate *ps, enum rules_tk type, int op, char *value, const char *attr)
{
	return add_token(ps, type, op, value, attr) ? 1 : -ENOMEM;
}

static int add_num(struct pstate *ps, enum rules_tk type, int op, long num)
{
	struct rules_token *t = add_token(ps, type, op, NULL, NULL);

	if (!t)
		return -ENOMEM;
	t->num = num;
	return 1;
}

static bool is_match(int op)
{
	return op == ROP_MATCH || op == ROP_NOMATCH;
}

static bool in(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return true;
	return false;
}

int rules_parse_mode(const char *s, mode_t *mode)
{
	uint64_t v;
	int r = number_parse_octal(s + strspn(s, " \t\n\r"), 07777, &v);

	if (r == 0)
		*mode = (mode_t)v;
	return r;
}

static int parse_mode(const char *s, long *mode)
{
	mode_t m;
	int r = rules_parse_mode(s, &m);

	if (r == 0)
		*mode = (long)m;
	return r;
}

/* systemd's parse_uid: decimal, not the invalid 16- and 32-bit values. */
int rules_parse_id(const char *s, long *id)
{
	uint64_t v;

	if (number_parse_str(s, 0xfffffffeU, &v) < 0 || v == 0xffff)
		return -EINVAL;
	*id = (long)v;
	return 0;
}

/* systemd's safe_atoi (link_priority=-100): signed, so not util/number.h. */
static int parse_int(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || *end || *v < -2147483647L - 1 || *v > 2147483647L ? -EINVAL : 0;
}

static int log_level_parse(const char *s)
{
	static const char *const names[] = { "emerg",   "alert",  "crit", "err",
					     "warning", "notice", "info", "debug" };
	long v;

	for (int i = 0; i < 8; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return parse_int(s, &v) == 0 && v >= 0 && v <= 7 ? (int)v : -EINVAL;
}

/* A plain OWNER/GROUP name, resolved now (udev's early resolution). */
static long resolve_owner(struct pstate *ps, const char *name, bool group)
{
	char buf[4096];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;

	if (group ? getgrnam_r(name, &gr, buf, sizeof(buf), &grp) != 0 || !grp
		  : getpwnam_r(name, &pw, buf, sizeof(buf), &pwp) != 0 || !pwp) {
		report(ps, LOG_ERR, "%s: unknown %s '%s', ignoring", group ? "GROUP" : "OWNER",
		       group ? "group" : "user", name);
		return -1;
	}
	return group ? (long)grp->gr_gid : (long)pwp->pw_uid;
}

static int parse_owner(struct pstate *ps, const char *key, char *attr, int op, char *value,
		       bool group)
{
	long id;

	if (attr)
		return invalid(ps, key, "attribute");
	if (is_match(op) || op == ROP_REMOVE)
		return invalid(ps, key, "operator");
	if (op == ROP_ADD) {
		report(ps, LOG_WARNING, "%s key takes '=' or ':=' operator, assuming '='", key);
		op = ROP_ASSIGN;
	}
	if (rules_parse_id(value, &id) == 0 || !strpbrk(value, "%$"))
		return add_num(ps, group ? RTK_A_GROUP_ID : RTK_A_OWNER_ID, op,
			       rules_parse_id(value, &id) == 0 ? id : resolve_owner(ps, value, group));
	check_format(ps, key, value, true);
	return add(ps, group ? RTK_A_GROUP : RTK_A_OWNER, op, value, NULL);
}

static int parse_options(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	long v;

	if (attr)
		return invalid(ps, key, "attribute");
	if (is_match(op) || op == ROP_REMOVE)
		return invalid(ps, key, "operator");
	if (op == ROP_ADD)
		op = ROP_ASSIGN;
	if (!strcmp(value, "string_escape=none"))
		return add_num(ps, RTK_A_ESCAPE_NONE, op, 0);
	if (!strcmp(value, "string_escape=replace"))
		return add_num(ps, RTK_A_ESCAPE_REPLACE, op, 0);
	if (!strcmp(value, "db_persist"))
		return add_num(ps, RTK_A_DB_PERSIST, op, 0);
	if (!strcmp(value, "watch") || !strcmp(value, "nowatch"))
		return add_num(ps, RTK_A_WATCH, op, value[0] == 'w');
	if (!strncmp(value, "static_node=", 12)) {
		unsupported_prio(ps, "OPTIONS=\"static_node=\" (ignored)", LOG_WARNING);
		return add(ps, RTK_A_STATIC_NODE, op, value + 12, NULL);
	}
	if (!strncmp(value, "link_priority=", 14)) {
		if (parse_int(value + 14, &v) < 0) {
			report(ps, LOG_ERR, "failed to parse link priority '%s', line ignored",
			       value + 14);
			return -EINVAL;
		}
		return add_num(ps, RTK_A_LINK_PRIORITY, op, v);
	}
	if (!strncmp(value, "log_level=", 10)) {
		v = strcmp(value + 10, "reset") == 0 ? -1 : log_level_parse(value + 10);
		if (v < -1) {
			report(ps, LOG_ERR, "failed to parse log level '%s', line ignored",
			       value + 10);
			return -EINVAL;
		}
		return add_num(ps, RTK_A_LOG_LEVEL, op, v);
	}
	report(ps, LOG_WARNING, "invalid value for OPTIONS key, ignoring: '%s'", value);
	return 0;
}

static int parse_import(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	struct rules_token *t;
	int b;

	if (!attr || !*attr)
		return invalid(ps, key, "attribute");
	check_format(ps, key, value, true);
	if (op == ROP_REMOVE)
		return invalid(ps, key, "operator");
	if (!is_match(op))
		op = ROP_MATCH;
	if (!strcmp(attr, "file"))
		return add(ps, RTK_M_IMPORT_FILE, op, value, NULL);
	if (!strcmp(attr, "db"))
		return add(ps, RTK_M_IMPORT_DB, op, value, NULL);
	if (!strcmp(attr, "cmdline"))
		return add(ps, RTK_M_IMPORT_CMDLINE, op, value, NULL);
	if (!strcmp(attr, "parent"))
		return add(ps, RTK_M_IMPORT_PARENT, op, value, NULL);
	if (strcmp(attr, "program") != 0 && strcmp(attr, "builtin") != 0)
		return invalid(ps, key, "attribute");
	b = rules_builtin_lookup(value);
	if (b < 0 && attr[0] == 'p')
		return add(ps, RTK_M_IMPORT_PROGRAM, op, value, NULL);
	if (b < 0) {
		report(ps, LOG_ERR, "unknown builtin command: %s, line ignored", value);
		return -EINVAL;
	}
	if (!rules_builtin_supported(b))
		unsupported(ps, rules_builtin_name(b));
	t = add_token(ps, RTK_M_IMPORT_BUILTIN, op, value, NULL);
	if (!t)
		return -ENOMEM;
	t->num = b;
	return 1;
}

static int parse_run(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	struct rules_token *t;
	int b;

	if (is_match(op) || op == ROP_REMOVE)
		return invalid(ps, key, "operator");
	check_format(ps, key, value, true);
	if (!attr || !strcmp(attr, "program"))
		return add(ps, RTK_A_RUN_PROGRAM, op, value, NULL);
	if (strcmp(attr, "builtin") != 0)
		return invalid(ps, key, "attribute");
	b = rules_builtin_lookup(value);
	if (b < 0) {
		report(ps, LOG_ERR, "unknown builtin command '%s', line ignored", value);
		return -EINVAL;
	}
	if (!rules_builtin_supported(b))
		unsupported(ps, rules_builtin_name(b));
	t = add_token(ps, RTK_A_RUN_BUILTIN, op, value, NULL);
	if (!t)
		return -ENOMEM;
	t->num = b;
	return 1;
}

static int parse_goto_label(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	if (attr)
		return invalid(ps, key, "attribute");
	if (op != ROP_ASSIGN)
		return invalid(ps, key, "operator");
	if (key[0] == 'L') {
		ps->line->label = value;
		ps->line->type |= RLINE_LABEL;
		return 1;
	}
	if (ps->line->type & RLINE_GOTO) {
		report(ps, LOG_WARNING, "contains multiple GOTO keys, ignoring GOTO=\"%s\"", value);
		return 0;
	}
	ps->line->goto_label = value;
	ps->line->type |= RLINE_GOTO;
	return 1;
}

/* Keys that only match, with no attribute: ACTION, DEVPATH, KERNEL, ... */
static const struct {
	const char *key;
	enum rules_tk type;
} plain_matches[] = {
	{ "ACTION", RTK_M_ACTION },          { "DEVPATH", RTK_M_DEVPATH },
	{ "KERNEL", RTK_M_KERNEL },          { "DRIVER", RTK_M_DRIVER },
	{ "KERNELS", RTK_M_PARENTS_KERNEL }, { "SUBSYSTEMS", RTK_M_PARENTS_SUBSYSTEM },
	{ "DRIVERS", RTK_M_PARENTS_DRIVER }, { "TAGS", RTK_M_PARENTS_TAG },
	{ "RESULT", RTK_M_RESULT },          { "SUBSYSTEM", RTK_M_SUBSYSTEM },
};

static int parse_plain_match(struct pstate *ps, const char *key, char *attr, int op, char *value,
			     enum rules_tk type)
{
	if (attr)
		return invalid(ps, key, "attribute");
	if (!is_match(op))
		return invalid(ps, key, "operator");
	if (type == RTK_M_SUBSYSTEM && (!strcmp(value, "bus") || !strcmp(value, "class")))
		report(ps, LOG_WARNING, "\"%s\" must be specified as \"subsystem\"", value);
	return add(ps, type, op, value, NULL);
}

static int parse_env(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	static const char *const fixed[] = { "ACTION",  "DEVLINKS", "DEVNAME",   "DEVPATH",
					     "DEVTYPE", "DRIVER",   "IFINDEX",   "MAJOR",
					     "MINOR",   "SEQNUM",   "SUBSYSTEM", "TAGS",
					     NULL };

	if (!attr || !*attr)
		return invalid(ps, key, "attribute");
	if (op == ROP_REMOVE)
		return invalid(ps, key, "operator");
	if (op == ROP_ASSIGN_FINAL) {
		report(ps, LOG_WARNING,
		       "%s key takes '==', '!=', '=', or '+=' operator, assuming '='", key);
		op = ROP_ASSIGN;
	}
	if (is_match(op))
		return add(ps, RTK_M_ENV, op, value, attr);
	if (in(attr, fixed)) {
		report(ps, LOG_ERR, "invalid ENV attribute, '%s' cannot be set, line ignored",
		       attr);
		return -EINVAL;
	}
	check_format(ps, key, value, false);
	return add(ps, RTK_A_ENV, op, value, attr);
}

static int check_attr(struct pstate *ps, const char *key, const char *attr)
{
	const char *hint;
	size_t off;

	if (!attr || !*attr)
		return invalid(ps, key, "attribute");
	if (subst_check(attr, &off, &hint) < 0)
		report(ps, LOG_WARNING, "%s: invalid attribute \"%s\" (char %zu: %s)", key, attr,
		       off + 1, hint);
	return 0;
}

/* ATTR{} and SYSCTL{}: match, or write. */
static int parse_attr(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	bool sysctl = key[0] == 'S';

	if (check_attr(ps, key, attr) < 0)
		return -EINVAL;
	if (op == ROP_REMOVE)
		return invalid(ps, key, "operator");
	if (op == ROP_ADD || op == ROP_ASSIGN_FINAL) {
		report(ps, LOG_WARNING, "%s key takes '==', '!=', or '=' operator, assuming '='",
		       key);
		op = ROP_ASSIGN;
	}
	if (is_match(op))
		return add(ps, sysctl ? RTK_M_SYSCTL : RTK_M_ATTR, op, value, attr);
	check_format(ps, key, value, false);
	return add(ps, sysctl ? RTK_A_SYSCTL : RTK_A_ATTR, op, value, attr);
}

static int parse_attrs(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	if (check_attr(ps, key, attr) < 0)
		return -EINVAL;
	if (!is_match(op))
		return invalid(ps, key, "operator");
	if (!strncmp(attr, "device/", 7))
		report(ps, LOG_WARNING, "'device' link may not be available in future kernels");
	if (strstr(attr, "../"))
		report(ps, LOG_WARNING, "direct reference to parent sysfs directory");
	return add(ps, RTK_M_PARENTS_ATTR, op, value, attr);
}

static int parse_symlink_tag_name(struct pstate *ps, const char *key, char *attr, int op,
				  char *value)
{
	if (attr)
		return invalid(ps, key, "attribute");
	if (key[0] == 'S') { /* SYMLINK */
		if (op == ROP_REMOVE)
			return invalid(ps, key, "operator");
		if (is_match(op))
			return add(ps, RTK_M_DEVLINK, op, value, NULL);
		check_format(ps, key, value, false);
		return add(ps, RTK_A_DEVLINK, op, value, NULL);
	}
	if (key[0] == 'T') { /* TAG */
		if (op == ROP_ASSIGN_FINAL) {
			report(ps, LOG_WARNING,
			       "TAG key takes '==', '!=', '=', or '+=' operator, assuming '='");
			op = ROP_ASSIGN;
		}
		if (is_match(op))
			return add(ps, RTK_M_TAG, op, value, NULL);
		check_format(ps, key, value, true);
		return add(ps, RTK_A_TAG, op, value, NULL);
	}
	/* NAME */
	if (op == ROP_REMOVE)
		return invalid(ps, key, "operator");
	if (op == ROP_ADD) {
		report(ps, LOG_WARNING,
		       "NAME key takes '==', '!=', '=', or ':=' operator, assuming '='");
		op = ROP_ASSIGN;
	}
	if (is_match(op))
		return add(ps, RTK_M_NAME, op, value, NULL);
	if (!strcmp(value, "%k") || !*value) {
		report(ps, LOG_ERR, "ignoring NAME=\"%s\", as it will take no effect, line ignored",
		       value);
		return -EINVAL;
	}
	unsupported_prio(ps, "NAME= (renaming network interfaces; ignored)", LOG_WARNING);
	check_format(ps, key, value, false);
	return add(ps, RTK_A_NAME, op, value, NULL);
}

static int parse_misc(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	long mode;

	if (!strcmp(key, "CONST")) {
		if (!attr || (strcmp(attr, "arch") && strcmp(attr, "virt")))
			return invalid(ps, key, "attribute");
		if (!is_match(op))
			return invalid(ps, key, "operator");
		return add(ps, RTK_M_CONST, op, value, attr);
	}
	if (!strcmp(key, "TEST")) {
		mode = -1;
		if (attr && *attr && parse_mode(attr, &mode) < 0) {
			report(ps, LOG_ERR, "failed to parse mode '%s', line ignored", attr);
			return -EINVAL;
		}
		check_format(ps, key, value, true);
		if (!is_match(op))
			return invalid(ps, key, "operator");
		return add_token(ps, RTK_M_TEST, op, value, NULL)
			       ? (ps->r->tokens[ps->r->ntokens - 1].num = mode, 1)
			       : -ENOMEM;
	}
	if (!strcmp(key, "PROGRAM")) {
		if (attr)
			return invalid(ps, key, "attribute");
		check_format(ps, key, value, true);
		if (op == ROP_REMOVE)
			return invalid(ps, key, "operator");
		return add(ps, RTK_M_PROGRAM, is_match(op) ? op : ROP_MATCH, value, NULL);
	}
	if (!strcmp(key, "MODE")) {
		if (attr)
			return invalid(ps, key, "attribute");
		if (is_match(op) || op == ROP_REMOVE)
			return invalid(ps, key, "operator");
		if (op == ROP_ADD) {
			report(ps, LOG_WARNING,
			       "MODE key takes '=' or ':=' operator, assuming '='");
			op = ROP_ASSIGN;
		}
		if (parse_mode(value, &mode) == 0)
			return add_num(ps, RTK_A_MODE_ID, op, mode);
		check_format(ps, key, value, true);
		return add(ps, RTK_A_MODE, op, value, NULL);
	}
	/* SECLABEL */
	if (!attr || !*attr)
		return invalid(ps, key, "attribute");
	check_format(ps, key, value, true);
	if (is_match(op) || op == ROP_REMOVE)
		return invalid(ps, key, "operator");
	if (op == ROP_ASSIGN_FINAL)
		op = ROP_ASSIGN;
	unsupported_prio(ps, "SECLABEL{} (ignored)", LOG_WARNING);
	return add(ps, RTK_A_SECLABEL, op, value, attr);
}

/* One pair: 1 kept, 0 ignored (warned), -EINVAL (line dropped), -ENOMEM. */
static int parse_key(struct pstate *ps, const char *key, char *attr, int op, char *value)
{
	for (size_t i = 0; i < sizeof(plain_matches) / sizeof(plain_matches[0]); i++)
		if (!strcmp(key, plain_matches[i].key))
			return parse_plain_match(ps, key, attr, op, value, plain_matches[i].type);
	if (!strcmp(key, "SYMLINK") || !strcmp(key, "TAG") || !strcmp(key, "NAME"))
		return parse_symlink_tag_name(ps, key, attr, op, value);
	if (!strcmp(key, "ENV"))
		return parse_env(ps, key, attr, op, value);
	if (!strcmp(key, "ATTR") || !strcmp(key, "SYSCTL"))
		return parse_attr(ps, key, attr, op, value);
	if (!strcmp(key, "ATTRS"))
		return parse_attrs(ps, key, attr, op, value);
	if (!strcmp(key, "IMPORT"))
		return parse_import(ps, key, attr, op, value);
	if (!strcmp(key, "OPTIONS"))
		return parse_options(ps, key, attr, op, value);
	if (!strcmp(key, "OWNER") || !strcmp(key, "GROUP"))
		return parse_owner(ps, key, attr, op, value, key[0] == 'G');
	if (!strcmp(key, "RUN"))
		return parse_run(ps, key, attr, op, value);
	if (!strcmp(key, "GOTO") || !strcmp(key, "LABEL"))
		return parse_goto_label(ps, key, attr, op, value);
	if (!strcmp(key, "CONST") || !strcmp(key, "TEST") || !strcmp(key, "PROGRAM") ||
	    !strcmp(key, "MODE") || !strcmp(key, "SECLABEL"))
		return parse_misc(ps, key, attr, op, value);
	report(ps, LOG_ERR, "invalid key '%s', line ignored", key);
	return -EINVAL;
}

/* Stable sort of the line's tokens by type (udev evaluates them in that order). */
static void sort_tokens(struct rules_token *t, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct rules_token x = t[i];
		size_t j = i;

		for (; j > 0 && t[j - 1].type > x.type; j--)
			t[j] = t[j - 1];
		t[j] = x;
	}
}

static int keep_text(struct rules *r, char *text)
{
	if (r->ntexts == r->texts_cap) {
		size_t cap = r->texts_cap ? r->texts_cap * 2 : 64;
		char **v = realloc(r->texts, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->texts = v;
		r->texts_cap = cap;
	}
	r->texts[r->ntexts++] = text;
	return 0;
}

static int grow_lines(struct rules *r)
{
	if (r->nlines >= RULES_LINES_MAX)
		return -E2BIG;
	if (r->nlines == r->lines_cap) {
		size_t cap = r->lines_cap ? r->lines_cap * 2 : 128;
		struct rules_line *v = realloc(r->lines, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->lines = v;
		r->lines_cap = cap;
	}
	return 0;
}

/* Parse one logical line; it is kept only if every key is valid and it does something. */
static int parse_line(struct pstate *ps, const char *text)
{
	struct rules *r = ps->r;
	size_t len = strlen(text), tok0 = r->ntokens;
	char *buf, *p;
	int ret = 0;

	if ((ret = grow_lines(r)) < 0)
		return ret;
	buf = malloc(len + 2);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len + 1);
	buf[len + 1] = '\0';
	ps->line = &r->lines[r->nlines];
	*ps->line = (struct rules_line){ .file = (uint32_t)(r->nfiles - 1),
					 .lineno = ps->lineno,
					 .first = (uint32_t)tok0,
					 .goto_line = -1 };
	for (p = buf;;) {
		char *key, *attr, *value;
		const char *why = "";
		int op;

		ret = lexer_pair(&p, &key, &attr, &op, &value, &why);
		if (ret < 0)
			report(ps, LOG_ERR, "invalid key/value pair (%s), line ignored", why);
		if (ret <= 0)
			break;
		ret = parse_key(ps, key, attr, op, value);
		if (ret < 0)
			break;
	}
	if (ret == 0 && ps->line->type == 0) {
		report(ps, LOG_WARNING, "the line takes no effect, ignoring");
		ret = -EINVAL;
	}
	if (ret < 0 || (ret = keep_text(r, buf)) < 0) {
		r->ntokens = tok0;
		free(buf);
		return ret == -ENOMEM ? ret : 0;
	}
	if (ps->line->n > 0)
		sort_tokens(&r->tokens[tok0], ps->line->n);
	r->nlines++;
	return 0;
}

/* Link each GOTO to the first later LABEL of that name in the same file. */
static void resolve_gotos(struct pstate *ps, size_t first)
{
	struct rules *r = ps->r;

	for (size_t i = first; i < r->nlines; i++) {
		struct rules_line *l = &r->lines[i];

		if (!(l->type & RLINE_GOTO))
			continue;
		for (size_t j = i + 1; j < r->nlines; j++)
			if (r->lines[j].label && strcmp(r->lines[j].label, l->goto_label) == 0) {
				l->goto_line = (int32_t)j;
				break;
			}
		if (l->goto_line >= 0)
			continue;
		ps->lineno = l->lineno;
		report(ps, LOG_ERR, "GOTO=\"%s\" has no matching label, ignoring", l->goto_label);
		l->type &= (uint8_t)~RLINE_GOTO;
		l->goto_label = NULL;
		/* a line left doing nothing: its tokens no longer run */
		if ((l->type & ~RLINE_LABEL) == 0)
			l->n = 0;
	}
}

static int add_file(struct rules *r, const char *name)
{
	char **v, *d;

	if (r->nfiles >= RULES_FILES_MAX)
		return -E2BIG;
	v = realloc(r->files, (r->nfiles + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->files = v;
	d = strdup(name);
	if (!d)
		return -ENOMEM;
	r->files[r->nfiles++] = d;
	return 0;
}

int rules_parse_text(struct rules *r, const char *name, const char *text, size_t len)
{
	struct pstate ps = { .r = r, .file = name };
	size_t first = r->nlines;
	struct lexer lx;
	enum lexer_result lr;
	char *line;
	int ret;

	if ((ret = add_file(r, name)) < 0 || (ret = lexer_init(&lx, text, len)) < 0)
		return ret;
	ps.file = r->files[r->nfiles - 1];
	while ((lr = lexer_next(&lx, &line, &ps.lineno)) != LEXER_END) {
		if (lr == LEXER_PHYSICAL_TOO_LONG) {
			ps.lineno = lx.lineno;
			report(&ps, LOG_ERR, "line is too long, the rest of the file is ignored");
			lexer_fini(&lx);
			return 0; /* udev stops here, before resolving GOTOs */
		}
		if (lr == LEXER_TOO_LONG) {
			report(&ps, LOG_ERR, "line is too long, ignored");
			continue;
		}
		if ((ret = parse_line(&ps, line)) < 0)
			break;
	}
	lexer_fini(&lx);
	if (ret == 0)
		resolve_gotos(&ps, first);
	return ret;
}

void rules_init(struct rules *r, const struct logger *log, const struct rules_diag *diag)
{
	*r = (struct rules){ .log = log };
	if (diag)
		r->diag = *diag;
}

void rules_free(struct rules *r)
{
	for (size_t i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	for (size_t i = 0; i < r->ntexts; i++)
		free(r->texts[i]);
	free(r->files);
	free(r->texts);
	free(r->lines);
	free(r->tokens);
	rules_init(r, r->log, &r->diag);
}
