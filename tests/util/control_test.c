/* SPDX-License-Identifier: MIT */
/* The control socket serves root only, whatever the file permissions say. */
#include <atf-c.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/control.h"

ATF_TC_WITHOUT_HEAD(run_dir_private);
ATF_TC_BODY(run_dir_private, tc)
{
	struct stat st;
	int fd = control_listen("run");

	ATF_REQUIRE(fd >= 0);
	ATF_REQUIRE_EQ(stat("run", &st), 0);
	ATF_CHECK_EQ(st.st_mode & 07777, 0700);
	ATF_REQUIRE_EQ(stat("run/control", &st), 0);
	ATF_CHECK(S_ISSOCK(st.st_mode));
	close(fd);
}

ATF_TC_WITHOUT_HEAD(root_peer_served);
ATF_TC_BODY(root_peer_served, tc)
{
	char buf[64], big[sizeof(buf) + 1];
	uid_t uid = 1;
	int lfd = control_listen("run"), c, s;

	ATF_REQUIRE(lfd >= 0);
	c = control_connect("run");
	ATF_REQUIRE(c >= 0);
	s = control_accept(lfd, &uid);
	ATF_REQUIRE(s >= 0);
	ATF_CHECK_EQ(uid, 0);
	ATF_REQUIRE_EQ(control_send(c, "ping"), 0);
	ATF_REQUIRE_EQ(control_recv(s, buf, sizeof(buf), 1000), 4);
	ATF_CHECK_STREQ(buf, "ping");
	/* one byte too long for the buffer: refused whole, never acted on cut */
	memset(big, 'x', sizeof(buf));
	big[sizeof(buf)] = '\0';
	ATF_REQUIRE_EQ(control_send(c, big), 0);
	ATF_CHECK_EQ(control_recv(s, buf, sizeof(buf), 1000), -EMSGSIZE);
	big[sizeof(buf) - 1] = '\0'; /* exactly fits */
	ATF_REQUIRE_EQ(control_send(c, big), 0);
	ATF_CHECK_EQ(control_recv(s, buf, sizeof(buf), 1000), (int)sizeof(buf) - 1);
	ATF_CHECK_EQ(control_recv(s, buf, sizeof(buf), 10), -ETIMEDOUT);
	close(c);
	ATF_CHECK_EQ(control_recv(s, buf, sizeof(buf), 1000), -ECONNRESET);
	close(s);
	close(lfd);
}

ATF_TC(non_root_peer_refused);
ATF_TC_HEAD(non_root_peer_refused, tc)
{
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(non_root_peer_refused, tc)
{
	char buf[128];
	uid_t uid = 0;
	int lfd = control_listen("run"), status;
	pid_t pid;

	ATF_REQUIRE(lfd >= 0);
	/* open the file permissions wide: only SO_PEERCRED stands in the way */
	ATF_REQUIRE_EQ(chmod("run", 0755), 0);
	ATF_REQUIRE_EQ(chmod("run/control", 0777), 0);
	pid = fork();
	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		int c;

		if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(10);
		c = control_connect("run");
		if (c < 0)
			_exit(11);
		(void)control_send(c, "status");
		if (control_recv(c, buf, sizeof(buf), 3000) < 0)
			_exit(12);
		_exit(strstr(buf, "ERR permission denied: uid 65534") ? 0 : 13);
	}
	usleep(100000);
	for (int i = 0; i < 100; i++) {
		int s = control_accept(lfd, &uid);

		if (s == -EAGAIN) {
			usleep(20000);
			continue;
		}
		ATF_REQUIRE(s >= 0);
		ATF_CHECK_EQ(uid, 65534);
		control_refuse(s, uid);
		break;
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child exit %d", WEXITSTATUS(status));
	close(lfd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, run_dir_private);
	ATF_TP_ADD_TC(tp, root_peer_served);
	ATF_TP_ADD_TC(tp, non_root_peer_refused);
	return atf_no_error();
}
