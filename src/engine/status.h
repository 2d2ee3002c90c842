/* SPDX-License-Identifier: MIT */
/* What `initdev status` prints: counts, phase, time per phase. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

/* Format into buf (always NUL-terminated). Returns the length needed. */
size_t status_format(struct engine *e, bool json, char *buf, size_t size);
