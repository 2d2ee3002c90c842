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
	ID="$ID --udev-run $PWD/udev --log-level info"
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

atf_test_case stopping_unheard_at_switch_root cleanup
stopping_unheard_at_switch_root_head() {
	atf_set descr "PID 1 switching root lets its notify socket go before the SIGTERM: the unheard STOPPING=1 is said at info, not as a warning; exit 0"
	atf_set require.user root
}
stopping_unheard_at_switch_root_body() {
	setup_service
	"$(pid1)" --kernel none --switch-root -- $DAEMON > out 2> err ||
		atf_fail "fake-pid1 failed: $(cat err)"
	expect out '^notify: READY=1' '^exit 0$'
	! grep -q STOPPING=1 out || atf_fail "STOPPING=1 reached a closed socket: $(cat out)"
	# STOPPING=1's, or a status change's sent between the close and the
	# SIGTERM (a busy machine): both said at info
	expect err 'cannot notify (\(stopping\|a status change\): nothing waits for it): Connection refused'
	# at the default level (notice), as a boot's console shows it: nothing
	"$(pid1)" --kernel none --switch-root -- $ID --log-level notice daemon --foreground \
		--no-coldplug --no-devtmpfs > out 2> err ||
		atf_fail "fake-pid1 failed: $(cat err)"
	expect out '^exit 0$'
	! grep -q 'cannot notify' err || atf_fail "said above info: $(cat err)"
}
stopping_unheard_at_switch_root_cleanup() { cleanup_root; }

atf_test_case sighup_reloads cleanup
sighup_reloads_head() {
	atf_set descr "SIGHUP (systemctl reload of systemd 257's Type=notify-reload unit): RELOADING=1 with MONOTONIC_USEC, the rules parsed again, READY=1; the daemon lives on"
	atf_set require.user root
}
sighup_reloads_body() {
	setup_service
	echo 'KERNEL=="null", SYMLINK+="hup-test"' > udev-rules/50-hup.rules
	"$(pid1)" --kernel none --hup --term -- $DAEMON > out 2> err ||
		atf_fail "fake-pid1 failed: $(cat err)"
	expect out '^notify: RELOADING=1|MONOTONIC_USEC=[0-9][0-9]*|STATUS=Reloading' \
		'^notify: STOPPING=1|STATUS=Stopping' '^exit 0$'
	expect err 'SIGHUP: reloading the udev rules'
	[ "$(grep -c 'READY=1' out)" = 2 ] || atf_fail "not READY=1 at start and after the reload: $(cat out)"
	# the reload's READY=1 comes after RELOADING=1
	grep -n 'RELOADING=1\|READY=1' out | tail -n 1 | grep -q READY=1 ||
		atf_fail "READY=1 does not end the reload: $(cat out)"
	[ "$(grep -c 'rules: 1 files' err)" = 2 ] ||
		atf_fail "the rules were not parsed again: $(grep 'rules:' err)"
}
sighup_reloads_cleanup() { cleanup_root; }

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

atf_test_case queued_kernel_events_handled cleanup
queued_kernel_events_handled_head() {
	atf_set descr "the kernel socket from PID 1 is read: an event queued in it before the daemon ran is handled"
	atf_set require.user root
}
queued_kernel_events_handled_body() {
	setup_service
	uuid=$(uniq_uuid)
	# only this run's change matches: its own SYNTH_UUID. A file the rule's
	# RUN makes, not a link: another process's next change of mem/null
	# (no SYNTH_UUID) would take a link away again, as udev does
	echo "ACTION==\"change\", KERNEL==\"null\", ENV{SYNTH_UUID}==\"$uuid\", RUN+=\"/bin/touch $PWD/queued-$uuid\"" \
		> udev-rules/50-queued.rules
	# the change is sent before the daemon runs: only PID 1's socket has it
	# (the daemon opening a socket of its own never sees it: fake-pid1 times out)
	"$(pid1)" --kernel uevent --trigger "/sys/devices/virtual/mem/null/uevent=change $uuid" \
		--term-after "queued-$uuid" --timeout 60 -- $DAEMON > out 2> err ||
		atf_fail "fake-pid1 failed: $(cat err)"
	expect out '^exit 0$'
	expect err 'LISTEN_FDS: kernel socket from PID 1'
	[ -e "queued-$uuid" ] || atf_fail "the queued change was not handled"
}
queued_kernel_events_handled_cleanup() { cleanup_root; }

atf_test_case refuses_bad_kernel_socket cleanup
refuses_bad_kernel_socket_head() {
	atf_set descr "a passed socket that is not NETLINK_KOBJECT_UEVENT on group 1 alone is refused: exit 1, a clear error, nothing left"
	atf_set require.user root
}
refuses_bad_kernel_socket_body() {
	setup_service
	for k in group2 groups12 unbound route tcp; do
		"$(pid1)" --kernel "$k" -- $DAEMON > out 2> err || atf_fail "fake-pid1 failed: $(cat err)"
		expect out '^exit 1$'
		expect err 'LISTEN_FDS: fd 3 is refused: '
		! grep -q READY=1 out || atf_fail "$k: READY=1 sent: $(cat out)"
		[ ! -e run/pid ] && [ ! -e udev/control ] || atf_fail "$k: state left behind"
	done
	expect err 'neither a SOCK_SEQPACKET control socket nor a netlink socket'
	# LISTEN_FDS names one more fd than passed: fd 4 is nothing
	"$(pid1)" --kernel uevent --fds 2 -- $DAEMON > out 2> err || atf_fail "fake-pid1 failed"
	expect out '^exit 1$'
	expect err 'LISTEN_FDS: fd 4 is refused: neither'
}
refuses_bad_kernel_socket_cleanup() { cleanup_root; }

atf_test_case listen_pid_other_ignored cleanup
listen_pid_other_ignored_head() {
	atf_set descr "LISTEN_PID naming another process: the fds are not ours (sd_listen_fds), the daemon opens its own socket"
	atf_set require.user root
}
listen_pid_other_ignored_body() {
	setup_service
	# a socket that would be refused if it were taken
	"$(pid1)" --kernel group2 --pid-other --term -- $DAEMON > out 2> err ||
		atf_fail "fake-pid1 failed: $(cat err)"
	expect out '^notify: READY=1' '^exit 0$'
	! grep -q 'LISTEN_FDS' err || atf_fail "took fds meant for another pid: $(cat err)"
}
listen_pid_other_ignored_cleanup() { cleanup_root; }

atf_test_case control_socket_taken cleanup
control_socket_taken_head() {
	atf_set descr "both sockets from PID 1: taken; PID 1's control socket path is left as it is"
	atf_set require.user root
}
control_socket_taken_body() {
	setup_service
	mkdir udev
	"$(pid1)" --kernel uevent --control "$PWD/udev/control" --term -- $DAEMON > out 2> err ||
		atf_fail "fake-pid1 failed: $(cat err)"
	expect out '^exit 0$'
	expect err 'LISTEN_FDS: kernel socket from PID 1, control socket from PID 1'
	[ -S udev/control ] || atf_fail "PID 1's control socket was replaced"
}
control_socket_taken_cleanup() { cleanup_root; }

atf_test_case udev_control_protocol cleanup
udev_control_protocol_head() {
	atf_set descr "udev's control protocol on PID 1's control socket: ping, ENV, reload, exit carried out; malformed messages hung up on, not carried out"
	atf_set require.user root
}
udev_control_protocol_body() {
	setup_service
	mkdir udev
	# a udev control client on this test's udev/control (atf_check runs programs)
	send="$(atf_get_srcdir)/../udev-ctrl-send $PWD/udev/control"
	uuid=$(uniq_uuid)
	echo "ACTION==\"change\", KERNEL==\"null\", ENV{SYNTH_UUID}==\"$uuid\", ENV{FROM_CTRL}==\"yes\", RUN+=\"/bin/touch $PWD/env-$uuid\"" \
		> udev-rules/50-env.rules
	"$(pid1)" --kernel uevent --control "$PWD/udev/control" --timeout 120 -- $DAEMON > out 2> err &
	p=$!
	wait_for grep -q READY=1 out || atf_fail "not ready: $(cat err)"
	atf_check -o inline:"hung up\n" $send ping end
	# each is hung up on at once; the exit behind it is never read
	for bad in bad-magic short long log=9; do
		atf_check -o inline:"hung up\n" $send "$bad" exit end
	done
	expect err 'refused (wrong magic)' 'refused (not the size of a udev control message)' \
		'refused (too long)' 'refused (log level out of range)'
	atf_check -o inline:"hung up\n" $send env=FROM_CTRL=yes reload children=4 end
	echo "change $uuid" > /sys/devices/virtual/mem/null/uevent
	# a file, not a link: another process's next change of mem/null would
	# take a link away again, as udev does
	wait_for test -e "env-$uuid" || atf_fail "the rules did not see ENV from udev control"
	atf_check -o inline:"hung up\n" $send exit end
	wait "$p"
	expect out '^notify: STOPPING=1|STATUS=Exiting' '^exit 0$'
}
udev_control_protocol_cleanup() { cleanup_root; }

# udevadm's own binary (systemd's, not a link to initdev), if installed
real_udevadm() {
	u=$(command -v udevadm) || return 0
	v=$("$u" --version 2> /dev/null)
	case "$v" in *[!0-9]* | "") return 0 ;; esac
	[ "$v" -ge 252 ] && echo "$u"
	true
}

atf_test_case real_udevadm_settle cleanup
real_udevadm_settle_head() {
	atf_set descr "systemd's own udevadm control --ping/--reload/--exit and settle against the daemon, in a private mount namespace (/run/udev its own)"
	atf_set require.user root
	atf_set require.progs unshare
}
real_udevadm_settle_body() {
	setup_service
	U=$(real_udevadm)
	[ -n "$U" ] || atf_skip "systemd's udevadm (>= 252) is not installed"
	uuid=$(uniq_uuid)
	# our change is held by its RUN until ./go exists: never settled before that
	echo "ACTION==\"change\", KERNEL==\"null\", ENV{SYNTH_UUID}==\"$uuid\", RUN+=\"/bin/touch $PWD/held-$uuid\", RUN+=\"/bin/sh -c 'until [ -e $PWD/go ]; do sleep 0.1; done'\"" \
		> udev-rules/50-held.rules
	# a tmpfs on /run in a private mount namespace: the host's /run/udev is not seen or touched
	cat > ns.sh << NS_END
mount -t tmpfs -o mode=0755 initdev-test-run /run || exit 77
mkdir /run/udev
"$(pid1)" --kernel uevent --control /run/udev/control --timeout 120 -- \
	$ID --udev-run /run/udev daemon --foreground --no-coldplug --no-devtmpfs > out 2> err &
p=\$!
i=0; until grep -q READY=1 out; do [ \$i -lt 100 ] || exit 10; sleep 0.1; i=\$((i + 1)); done
$U control --ping || exit 11
echo "change $uuid" > /sys/devices/virtual/mem/null/uevent
i=0; until [ -e /run/udev/queue ]; do [ \$i -lt 100 ] || exit 12; sleep 0.1; i=\$((i + 1)); done
$U settle --timeout 1 && exit 13
touch go
$U settle --timeout 60 || exit 14
$U control --reload || exit 16
$U control --exit || exit 17
wait \$p
NS_END
	unshare -m sh ns.sh
	rc=$?
	[ $rc != 77 ] || atf_skip "cannot mount a tmpfs on /run in a mount namespace"
	case $rc in
	0) ;;
	10) atf_fail "not ready: $(cat err)" ;;
	12) atf_fail "no /run/udev/queue while our change was held" ;;
	13) atf_fail "udevadm settle returned while our change was held" ;;
	*) atf_fail "step $rc failed: $(cat out err)" ;;
	esac
	# (udevadm settle's 0 says /run/udev/queue was gone; it may be back at
	# once for other processes' events)
	[ -e "held-$uuid" ] || atf_fail "our change was not handled"
	expect out '^exit 0$'
}
real_udevadm_settle_cleanup() { touch go; cleanup_root; }

atf_test_case term_finishes_or_gives_back cleanup
term_finishes_or_gives_back_head() {
	atf_set descr "SIGTERM with events in hand: nothing read is dropped (the running one finishes, the one waiting behind it goes back to the kernel); STOPPING=1, exit 0"
	atf_set require.user root
}
term_finishes_or_gives_back_body() {
	setup_service
	u1=$(uniq_uuid)
	u2=$(uniq_uuid)
	# u1 runs until ./go exists; u2, a change of the same device, waits behind it
	cat > udev-rules/50-held.rules << EOF
ACTION=="change", KERNEL=="null", ENV{SYNTH_UUID}=="$u1", RUN+="/bin/sh -c 'touch $PWD/running; until [ -e $PWD/go ]; do sleep 0.1; done; touch $PWD/finished'"
ACTION=="change", KERNEL=="null", ENV{SYNTH_UUID}=="$u2", RUN+="/bin/sh -c 'touch $PWD/ran-u2'"
EOF
	# both are queued in PID 1's socket before the daemon runs; SIGTERM once u1 runs
	"$(pid1)" --kernel uevent --trigger "/sys/devices/virtual/mem/null/uevent=change $u1" \
		--trigger "/sys/devices/virtual/mem/null/uevent=change $u2" --term-after running \
		--timeout 120 -- $ID --log-level debug daemon --foreground --no-coldplug \
		--no-devtmpfs > out 2> err &
	p=$!
	# before the fix the daemon dropped u2 and waited for u1 only
	wait_for grep -q "sent again.* $u2\$" err || atf_fail "u2 not given back: $(tail -n 5 err | tr "\n" " ")"
	touch go
	wait "$p"
	expect out '^notify: STOPPING=1|STATUS=Stopping' '^exit 0$'
	[ -e finished ] || atf_fail "the running event did not finish"
	[ ! -e ran-u2 ] || atf_fail "u2 ran here as well as going back to the kernel"
}
term_finishes_or_gives_back_cleanup() { touch go; cleanup_root; }

atf_init_test_cases() {
	atf_add_test_case ready_status_stopping
	atf_add_test_case stopping_unheard_at_switch_root
	atf_add_test_case sighup_reloads
	atf_add_test_case watchdog_pings
	atf_add_test_case bad_notify_socket_warns
	atf_add_test_case queued_kernel_events_handled
	atf_add_test_case refuses_bad_kernel_socket
	atf_add_test_case listen_pid_other_ignored
	atf_add_test_case control_socket_taken
	atf_add_test_case udev_control_protocol
	atf_add_test_case real_udevadm_settle
	atf_add_test_case term_finishes_or_gives_back
}
