/* SPDX-License-Identifier: MIT */
/*
 * Running PROGRAM, IMPORT{program} and RUN commands as udev 252 does: the
 * command line split into argv by udev's rules (blanks separate, single and
 * double quotes group and are removed, backslashes are kept, an unclosed
 * quote runs to the end; never a shell), a relative program looked up in
 * udev's helper directory, stdin /dev/null, the device's properties as the
 * whole environment, no other inherited fds. The child is killed (SIGKILL)
 * at the deadline.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXEC_ARGS_MAX 256

/*
 * Split cmd into argv (pointing into buf, size bytes; NULL-terminated, at
 * most max - 1 words). Returns the word count, -E2BIG if it does not fit.
 */
int exec_split(const char *cmd, char *buf, size_t size, char **argv, size_t max);

struct exec_opts {
	uint64_t deadline_usec; /* monotonic; 0: wait forever */
	char *out;              /* stdout captured here (NUL-terminated), or NULL: /dev/null */
	size_t out_size;
	char *err; /* the first bytes of stderr, for the log, or NULL */
	size_t err_size;
};

struct exec_status {
	int exit_code;  /* valid if !signaled && !timed_out */
	int signal;     /* killed by this signal (0: none) */
	bool timed_out; /* killed at the deadline */
	bool truncated; /* stdout did not fit */
	size_t out_len;
};

/*
 * Run argv[0] (absolute) with envp and wait for it. Returns 0 when it ran
 * (its outcome in *st), or -errno if it could not be started (exec's errno
 * included: -ENOENT for a missing program).
 */
int exec_run(char *const argv[], char *const envp[], const struct exec_opts *o,
	     struct exec_status *st);
