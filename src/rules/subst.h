/* SPDX-License-Identifier: MIT */
/*
 * rules(7) substitutions: %k $kernel, %n $number, %p $devpath, %b $id,
 * %d $driver, %s{} $attr{} ($sysfs{}), %E{} $env{}, %M $major, %m $minor,
 * %c $result (%c{N}, %c{N+}), %P $parent, %D $name, %L $links, %r $root,
 * %S $sys, %N $devnode ($tempnode), %% and $$. Results are bounded by the
 * destination: *truncated says something did not fit.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "rules/rules.h"

/*
 * udev's strict check of a value (rules check): 0, or -EINVAL with the
 * offending offset and a hint.
 */
int subst_check(const char *value, size_t *offset, const char **hint);

/*
 * Expand src into dest (size > 0 bytes, always NUL-terminated). With
 * replace_ws each substituted piece has its whitespace squeezed to '_' (what
 * SYMLINK does). Returns the length written.
 */
size_t subst_apply(const struct rules_ctx *ctx, struct rules_event *ev, const char *src, char *dest,
		   size_t size, bool replace_ws, bool *truncated);
