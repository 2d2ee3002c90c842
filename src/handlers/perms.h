/* SPDX-License-Identifier: MIT */
/*
 * The optional permissions file (/etc/initdev/rules). One rule a line:
 *     SUBSYSTEM  DEVNAME-GLOB  OWNER  GROUP  MODE
 * e.g. "block sd* root disk 0660". SUBSYSTEM may be "*"; the glob is
 * fnmatch(3) against DEVNAME (relative to /dev, FNM_PATHNAME); OWNER and GROUP
 * are names or numbers, or "-" to leave as is; MODE is octal (<= 07777) or
 * "-". '#' starts a comment. The last matching rule wins. A bad line is
 * reported (file:line: what, why) and skipped; the others still apply.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/log.h"

#define PERMS_MAX 1024
#define PERMS_LINE_MAX 512

struct perm_rule {
	char *subsystem;  /* "*" matches any */
	char *glob;
	bool has_uid, has_gid, has_mode;
	uid_t uid;
	gid_t gid;
	mode_t mode;
	unsigned int line;
};

struct perms {
	struct perm_rule *v;
	size_t n;
	unsigned int errors; /* lines skipped */
};

/* Parse text; origin names it in messages. Returns 0 or -ENOMEM. */
int perms_parse(struct perms *r, const char *text, size_t len, const char *origin,
		const struct logger *log);
/* Load path; a missing file is no rules (0). Other errors -errno. */
int perms_load(struct perms *r, const char *path, const struct logger *log);
/* The rule that decides for this device, or NULL. */
const struct perm_rule *perms_match(const struct perms *r, const char *subsystem,
			       const char *devname);
void perms_free(struct perms *r);
