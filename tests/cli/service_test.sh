#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The daemon as systemd-udevd.service starts it (Type=notify, socket
# activation), with tests/fake-pid1 in PID 1's place: the notifications it
# sends, the sockets it takes and the ones it refuses. Only harmless parts
# of the host: a private tmpfs /dev, no coldplug (the trigger service's
# job), a kernel socket that only listens.

. "$(dirname "$0")/../host-lib.sh"

pid1() { echo "$(atf_get_srcdir)/../fake-pid1"; }

# setup_service: setup_root, and what systemd-udevd (no arguments) runs with
# every root private: no devtmpfs, no host rules, no coldplug (the trigger
# service's job)
setup_service() {
	setup_root
	ID="$ID --udev-run $PWD/udev"
	DAEMON="$ID daemon --foreground --no-coldplug --no-devtmpfs"
}

# out FILE PATTERN...: each pattern matches a line of FILE, else fail with it
expect() {
	f=$1; shift
	for p in "$@"; do
		grep -q -- "$p" "$f" || atf_fail "no '$p' in $f: $(cat "$f"; cat err 2>/dev/null)"
	done
}

atf_test_case ready_status_stopping cleanup
ready_status_stopping_head() {
	atf_set descr "under a fake PID 1: READY=1 with a status once started, STOPPING=1 on SIGTERM, exit 0, all from the main pid"
	atf_set require.user root
}
ready_status_stopping_body() {
	setup_service
	"$(pid1)" --kernel none --term -- $DAEMON > out 2> err ||
		atf_fail "fake-pid1 failed: $(cat err)"
	expect out '^notify: READY=1|STATUS=Processing kernel events: ' \
		'^notify: STOPPING=1|STATUS=Stopping' '^exit 0$'
	! grep -q from-other-pid out || atf_fail "a notification not from the main pid: $(cat out)"
	[ "$(grep -c READY=1 out)" = 1 ] || atf_fail "READY=1 not once: $(cat out)"
	[ ! -e run/pid ] || atf_fail "the daemon left its state"
}
ready_status_stopping_cleanup() { cleanup_root; }

atf_test_case watchdog_pings cleanup
watchdog_pings_head() {
	atf_set descr "WATCHDOG_USEC set: WATCHDOG=1 keeps coming while the daemon idles"
	atf_set require.user root
}
watchdog_pings_body() {
	setup_service
	# SIGTERM only after three pings: a daemon that never pings times out here
	"$(pid1)" --kernel none --watchdog 200000 --watchdogs 3 --term --timeout 60 \
		-- $DAEMON > out 2> err || atf_fail "fake-pid1 failed: $(cat err)"
	expect out '^notify: WATCHDOG=1$' '^exit 0$'
	[ "$(grep -c WATCHDOG=1 out)" -ge 3 ] || atf_fail "fewer than 3 pings: $(cat out)"
}
watchdog_pings_cleanup() { cleanup_root; }

atf_test_case bad_notify_socket_warns cleanup
bad_notify_socket_warns_head() {
	atf_set descr "a malformed NOTIFY_SOCKET or WATCHDOG_USEC is said on stderr; the daemon still serves"
	atf_set require.user root
}
bad_notify_socket_warns_body() {
	setup_service
	NOTIFY_SOCKET=relative $ID daemon --no-coldplug --no-devtmpfs 2> err ||
		atf_fail "did not start: $(cat err)"
	expect err "NOTIFY_SOCKET is neither"
	atf_check -s exit:0 $ID exit
	NOTIFY_SOCKET=@x WATCHDOG_USEC=5s $ID daemon --no-coldplug --no-devtmpfs 2> err ||
		atf_fail "did not start: $(cat err)"
	expect err "WATCHDOG_USEC is not"
	atf_check -s exit:0 $ID exit
}
bad_notify_socket_warns_cleanup() { cleanup_root; }

atf_init_test_cases() {
	atf_add_test_case ready_status_stopping
	atf_add_test_case watchdog_pings
	atf_add_test_case bad_notify_socket_warns
}
