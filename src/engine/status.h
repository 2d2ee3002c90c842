/* SPDX-License-Identifier: MIT */
/* What `initdev status` prints, and RUN/status.json: counts, phase, time per phase. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

/* Format s into buf (always NUL-terminated). Returns the length needed:
 * the output is complete only if that is less than size. */
size_t status_format(const struct engine_stats *s, bool json, char *buf, size_t size);
