/* SPDX-License-Identifier: MIT */
/*
 * Running rule programs: argv split as udev splits it (no shell), stdin
 * /dev/null, exactly the given environment, no inherited descriptors, the
 * exit status or signal, output bounded, and the kill at the deadline.
 */
#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "rules/exec.h"
#include "util/log.h"

static int split(const char *cmd, char **argv, char *buf, size_t size)
{
	return exec_split(cmd, buf, size, argv, EXEC_ARGS_MAX);
}

ATF_TC_WITHOUT_HEAD(split_like_udev);
ATF_TC_BODY(split_like_udev, tc)
{
	char buf[256], *argv[EXEC_ARGS_MAX];

	ATF_REQUIRE_EQ(split("  /bin/a  b\tc\n", argv, buf, sizeof(buf)), 3);
	ATF_CHECK_STREQ(argv[0], "/bin/a");
	ATF_CHECK_STREQ(argv[2], "c");
	ATF_CHECK(argv[3] == NULL);
	ATF_REQUIRE_EQ(split("sh -c 'echo \"$x\" y' \"two words\" a\"b c\"d ''", argv, buf,
			     sizeof(buf)),
		       6);
	ATF_CHECK_STREQ(argv[2], "echo \"$x\" y");
	ATF_CHECK_STREQ(argv[3], "two words");
	ATF_CHECK_STREQ(argv[4], "ab cd");
	ATF_CHECK_STREQ(argv[5], "");
	/* backslashes are kept; an unclosed quote runs to the end */
	ATF_REQUIRE_EQ(split("a\\ b 'c d", argv, buf, sizeof(buf)), 3);
	ATF_CHECK_STREQ(argv[0], "a\\");
	ATF_CHECK_STREQ(argv[2], "c d");
	ATF_CHECK_EQ(split("", argv, buf, sizeof(buf)), 0);
	ATF_CHECK_EQ(split("aaaaaaaa", argv, buf, 4), -E2BIG);
	{
		char *few[3];

		ATF_CHECK_EQ(exec_split("a b c", buf, sizeof(buf), few, 3), -E2BIG);
	}
}

static int run(const char *cmd, char *const *env, uint64_t timeout_usec, char *out, size_t size,
	       struct exec_status *st)
{
	char buf[1024], *argv[EXEC_ARGS_MAX];
	struct exec_opts o = { .out = out, .out_size = size };

	if (timeout_usec)
		o.deadline_usec = now_monotonic_usec() + timeout_usec;
	ATF_REQUIRE(exec_split(cmd, buf, sizeof(buf), argv, EXEC_ARGS_MAX) > 0);
	return exec_run(argv, env, &o, st);
}

ATF_TC_WITHOUT_HEAD(status_and_output);
ATF_TC_BODY(status_and_output, tc)
{
	char *env[] = { "DEVNAME=/dev/x", "ACTION=add", NULL };
	char out[64];
	struct exec_status st;

	ATF_REQUIRE_EQ(run("/bin/sh -c 'echo $DEVNAME $ACTION; exit 3'", env, 0, out, sizeof(out),
			   &st),
		       0);
	ATF_CHECK_EQ(st.exit_code, 3);
	ATF_CHECK_STREQ(out, "/dev/x add\n");
	/* the environment is exactly the properties */
	ATF_REQUIRE_EQ(run("/usr/bin/env", env, 0, out, sizeof(out), &st), 0);
	ATF_CHECK_STREQ(out, "DEVNAME=/dev/x\nACTION=add\n");
	ATF_REQUIRE_EQ(run("/bin/sh -c 'kill -TERM $$'", env, 0, out, sizeof(out), &st), 0);
	ATF_CHECK_EQ(st.signal, 15);
	ATF_CHECK_EQ(run("/nonexistent", env, 0, out, sizeof(out), &st), -ENOENT);
	/* stdin is /dev/null: cat ends at once */
	ATF_REQUIRE_EQ(run("/bin/cat", env, 5000000, out, sizeof(out), &st), 0);
	ATF_CHECK(!st.timed_out);
	ATF_CHECK_EQ(st.exit_code, 0);
	ATF_CHECK_STREQ(out, "");
	/* output past the buffer is cut and flagged */
	ATF_REQUIRE_EQ(run("/bin/sh -c 'head -c 100000 /dev/zero | tr -c x a'", env, 0, out,
			   sizeof(out), &st),
		       0);
	ATF_CHECK(st.truncated);
	ATF_CHECK_EQ(strlen(out), sizeof(out) - 1);
}

ATF_TC_WITHOUT_HEAD(no_inherited_fds);
ATF_TC_BODY(no_inherited_fds, tc)
{
	char *env[] = { NULL };
	char out[256];
	struct exec_status st;
	int fd = open("/dev/null", O_RDONLY); /* deliberately without O_CLOEXEC */

	ATF_REQUIRE(fd >= 3);
	ATF_REQUIRE_EQ(run("/bin/ls /proc/self/fd", env, 0, out, sizeof(out), &st), 0);
	/* ls itself opens one directory fd: 0 1 2 and that */
	ATF_CHECK_STREQ(out, "0\n1\n2\n3\n");
	close(fd);
}

ATF_TC_WITHOUT_HEAD(timeout_kills);
ATF_TC_BODY(timeout_kills, tc)
{
	char *env[] = { NULL };
	char out[16];
	struct exec_status st;
	uint64_t t0 = now_monotonic_usec();

	ATF_REQUIRE_EQ(run("/bin/sleep 30", env, 300000, out, sizeof(out), &st), 0);
	ATF_CHECK(st.timed_out);
	ATF_CHECK(now_monotonic_usec() - t0 < 5000000);
	/* a program that closes its output and lingers is still waited for, then killed */
	ATF_REQUIRE_EQ(run("/bin/sh -c 'exec >&- 2>&-; sleep 30'", env, 300000, out, sizeof(out),
			   &st),
		       0);
	ATF_CHECK(st.timed_out);
	/* a background child holding the pipe does not keep us once the program exited */
	t0 = now_monotonic_usec();
	ATF_REQUIRE_EQ(run("/bin/sh -c 'sleep 30 & echo started'", env, 10000000, out, sizeof(out),
			   &st),
		       0);
	ATF_CHECK(!st.timed_out);
	ATF_CHECK_EQ(st.exit_code, 0);
	ATF_CHECK(now_monotonic_usec() - t0 < 5000000);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, split_like_udev);
	ATF_TP_ADD_TC(tp, status_and_output);
	ATF_TP_ADD_TC(tp, no_inherited_fds);
	ATF_TP_ADD_TC(tp, timeout_kills);
	return atf_no_error();
}
