#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# udev's own rules test suite (udev-test.pl with its sysfs tree, Debian 12's
# systemd 252) passes whole through initdev's rules engine: every case, as
# udev-test.pl judges it, through tests/test-udev (the stand-in for
# systemd's test-udev: initdev's devnode, link table and rules handler) in
# private mount namespaces. The suite is fetched with apt-get source at test
# time (tests/rules/udev-suite.sh; kept in $INITDEV_UDEV_SUITE_CACHE, or in
# the build tree) and never committed (LGPL); without network the case is
# skipped with that reason.
#
# Cost: 90-380 s on a shared host. The Makefile lists it in UDEV_SUITE_TESTS,
# outside KYUA_SUITE=unit, so scripts/check runs it once: in the -Werror
# build's full suite, not in distcheck's or the sanitizer build's unit runs.

atf_test_case whole_suite
whole_suite_head() {
	atf_set descr "udev-test.pl (systemd 252): every case passes through initdev's rules engine"
	atf_set require.user root
	atf_set require.progs "perl python3 unshare apt-get dpkg-source"
	atf_set timeout 1800
}
whole_suite_body() {
	src=$(atf_get_srcdir)
	cache=${INITDEV_UDEV_SUITE_CACHE:-$src/udev-suite-cache}
	why=$(sh "$src/udev-suite.sh" fetch "$cache") || atf_skip "$why"
	echo "suite: $(cat "$cache/VERSION" 2>/dev/null)"
	rc=0
	sh "$src/udev-suite.sh" run "$cache" "$PWD/w" "$src/../test-udev" || rc=$?
	log=w/udev-test.log
	[ "$rc" = 77 ] && atf_skip "udev-test.pl skipped itself: $(grep -i skip "$log" | head -n 1)"
	# the suite's own verdict, and that it really ran (thousands of checks)
	last=$(grep 'errors occurred' "$log" | tail -n 1)
	set -- $(echo "$last" | sed -n 's|^\([0-9]*\) errors occurred\. \([0-9]*\)/\([0-9]*\) good results\.$|\1 \2 \3|p')
	if [ "$rc" != 0 ] || [ $# != 3 ] || [ "$1" != 0 ] || [ "$2" != "$3" ]; then
		grep -B8 -E 'error$|error,|failed with code' "$log" | grep -v 'as expected' | head -n 60
		atf_fail "udev-test.pl: exit $rc, '$last'"
	fi
	[ "$3" -ge 6000 ] || atf_fail "only $3 checks ran: the suite did not run whole"
	grep -c '^TEST [0-9]*: errors: 0' "$log" | sed 's/^/cases passed: /'
}

atf_init_test_cases() {
	atf_add_test_case whole_suite
}
