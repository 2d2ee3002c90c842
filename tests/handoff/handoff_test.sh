#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The socket handoff against the real kernel: a holder keeps a bound uevent
# socket, events queue in it, `adopt` hands it to a stand-in for udevd
# (handoff-helper report), which must find every queued event there.
# Events come only from writing "change" to /sys/devices/virtual/mem/null/uevent.
# NEVER run a real device manager here.

# every body starts with setup_vars: HP is the helper, RUN the holder's run dir
setup_vars() {
	HP="$(atf_get_srcdir)/../handoff-helper"
	RUN="$PWD/run"
}
NULL_UEVENT=/sys/devices/virtual/mem/null/uevent

# start_holder [HOLD ARGS]: a holder on ./run; its pid in holder.pid
start_holder() {
	mkdir -p -m 0700 "$RUN"
	"$HP" hold --run "$RUN" "$@" > hold.out 2> holder.log &
	echo $! > holder.pid
	i=0
	while ! [ -S "$RUN/handoff" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	[ -S "$RUN/handoff" ] || atf_fail "holder did not come up: $(cat holder.log)"
	HOLDER=$(cat holder.pid)
	SOCK_INO=$(sed -n 's/^sock_ino=//p' hold.out)
}

# two harmless events; SEQ0 is the kernel's counter before, SEQ1 after
make_events() {
	SEQ0=$(cat /sys/kernel/uevent_seqnum)
	echo change > $NULL_UEVENT
	echo change > $NULL_UEVENT
	SEQ1=$(cat /sys/kernel/uevent_seqnum)
}

# the stand-in must have received both mem/null events, with credentials
check_events() {
	for s in $(seq $((SEQ0 + 1)) $SEQ1); do
		grep -q "^event=$s " "$1" || atf_fail "SEQNUM $s not received: $(cat "$1")"
	done
	n=$(grep -c "^event=.* change@/devices/virtual/mem/null creds=0:0 " "$1")
	[ "$n" -ge 2 ] || atf_fail "mem/null events missing or without credentials: $(cat "$1")"
}

# wait_exit PID SECONDS: the holder's exit status (it is our child)
wait_exit() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 20)) ]; do sleep 0.05; i=$((i + 1)); done
	kill -0 "$1" 2>/dev/null && atf_fail "holder $1 still running after $2 s"
	wait "$1"
}

# wait_log PATTERN: the holder logs PATTERN within 5 s (it logs after the peer left)
wait_log() {
	for _ in $(seq 50); do
		grep -q "$1" holder.log && return 0
		sleep 0.1
	done
	return 1
}

cleanup_holder() {
	[ -f holder.pid ] && kill -9 "$(cat holder.pid)" 2>/dev/null
	[ -f rundir ] && rm -rf "$(cat rundir)"
	true
}

atf_test_case handed_over cleanup
handed_over_head() {
	atf_set descr "queued events reach the adopting program on fd 3, with credentials"
	atf_set require.user root
}
handed_over_body() {
	setup_vars
	echo marker > marker
	# an inherited fd the holder must close; without SO_PASSCRED and with
	# a small buffer, so adopt must be the one to set both
	start_holder --timeout 60 --no-passcred --rcvbuf 65536 9< marker
	[ "$(tr '\0' '\n' < /proc/$HOLDER/cmdline | head -1)" = @initdev-holder ] ||
		atf_fail "argv[0] is not @initdev-holder"
	[ "$(readlink /proc/$HOLDER/cwd)" = / ] || atf_fail "holder cwd not /"
	for f in /proc/$HOLDER/fd/*; do
		[ "$(readlink "$f")" = "$PWD/marker" ] && atf_fail "holder kept $f open"
	done
	make_events
	atf_check -s exit:0 -e match:'uevent socket as fd 3, LISTEN_FDS=1' -o save:out \
		"$HP" --run "$RUN" adopt -- "$HP" report
	check_events out
	grep -qx 'listen_fds=1' out || atf_fail "LISTEN_FDS: $(cat out)"
	grep -qx 'listen_pid=self' out || atf_fail "LISTEN_PID is not the program's pid"
	grep -qx 'listen_fdnames=systemd-udevd-kernel.socket' out || atf_fail "LISTEN_FDNAMES"
	grep -qx 'open_fds= 0 1 2 3' out || atf_fail "other fds left open: $(grep open_fds out)"
	grep -q "^fd3=netlink:raw:15 passcred=1 .* ino=$SOCK_INO$" out ||
		atf_fail "fd 3 is not the held socket with SO_PASSCRED: $(grep ^fd3 out)"
	rcvbuf=$(sed -n 's/^fd3=.* rcvbuf=\([0-9]*\) .*/\1/p' out)
	[ "$rcvbuf" -ge $((128 * 1024 * 1024)) ] || atf_fail "receive buffer $rcvbuf"
	wait_exit "$HOLDER" 5 || atf_fail "holder exit status $? after handing over"
	grep -q "handed to pid .*about [0-9]* events (SEQNUM" holder.log ||
		atf_fail "holder did not log the handover: $(cat holder.log)"
	[ ! -e "$RUN/handoff" ] || atf_fail "run/handoff left behind"
}
handed_over_cleanup() { cleanup_holder; }

atf_test_case holder_timeout cleanup
holder_timeout_head() {
	atf_set descr "a holder nobody fetches from exits 1 after --timeout, logging what it drops"
	atf_set require.user root
}
holder_timeout_body() {
	setup_vars
	start_holder --timeout 1
	make_events
	wait_exit "$HOLDER" 5 && atf_fail "holder exited 0 after a timeout"
	line=$(grep "nobody fetched it within 1 s; dropping the uevent socket: about" holder.log) ||
		atf_fail "drop not logged: $(cat holder.log)"
	# the range logged covers both events (other uevents may widen it)
	first=$(echo "$line" | sed -n 's/.*(SEQNUM \([0-9]*\)\.\..*/\1/p')
	last=$(echo "$line" | sed -n 's/.*\.\.\([0-9]*\)).*/\1/p')
	[ "$first" -le $((SEQ0 + 1)) ] && [ "$last" -ge "$SEQ1" ] ||
		atf_fail "range $first..$last does not cover $((SEQ0 + 1))..$SEQ1"
	[ ! -e "$RUN/handoff" ] || atf_fail "run/handoff left behind"
}
holder_timeout_cleanup() { cleanup_holder; }

atf_test_case holder_sigterm cleanup
holder_sigterm_head() {
	atf_set descr "SIGTERM ends the holder at once"
	atf_set require.user root
}
holder_sigterm_body() {
	setup_vars
	start_holder --timeout 60
	kill -TERM "$HOLDER"
	wait_exit "$HOLDER" 2 && atf_fail "holder exited 0 on SIGTERM"
	grep -q "signal 15; dropping" holder.log || atf_fail "not logged: $(cat holder.log)"
	[ ! -e "$RUN/handoff" ] || atf_fail "run/handoff left behind"
}
holder_sigterm_cleanup() { cleanup_holder; }

atf_test_case no_holder
no_holder_head() {
	atf_set descr "without a holder adopt warns and runs the program unchanged"
	atf_set require.user root
}
no_holder_body() {
	setup_vars
	mkdir -m 0700 run
	atf_check -s exit:0 -e match:'no holder at .*run/handoff' -o save:out \
		"$HP" --run "$RUN" adopt --timeout 1 -- "$HP" report
	grep -qx 'listen_fds=unset' out || atf_fail "LISTEN_FDS set: $(cat out)"
	atf_check -s exit:127 -e match:'cannot execute' \
		"$HP" --run "$RUN" adopt -- "$PWD/no-such-program"
	atf_check -s exit:1 -e match:'timed out' "$HP" wait-holder "$RUN" 300
}

atf_test_case holder_killed cleanup
holder_killed_head() {
	atf_set descr "a holder killed before adoption: adopt warns, the program runs unchanged"
	atf_set require.user root
}
holder_killed_body() {
	setup_vars
	start_holder --timeout 60
	kill -KILL "$HOLDER"
	wait "$HOLDER"
	atf_check -s exit:0 -e match:'no holder at .*Connection refused' -o save:out \
		"$HP" --run "$RUN" adopt -- "$HP" report
	grep -qx 'listen_fds=unset' out || atf_fail "LISTEN_FDS set: $(cat out)"
}
holder_killed_cleanup() { cleanup_holder; }

atf_test_case non_root_refused cleanup
non_root_refused_head() {
	atf_set descr "a non-root peer is refused by SO_PEERCRED; root still gets the socket"
	atf_set require.user root
	atf_set require.progs setpriv
}
non_root_refused_body() {
	setup_vars
	# a run dir uid 65534 can reach, opened up so only SO_PEERCRED refuses
	base=$(mktemp -d /tmp/initdev-handoff.XXXXXX) && echo "$base" > rundir
	chmod 0755 "$base"
	RUN=$base
	start_holder --timeout 60
	make_events
	chmod 0755 "$RUN" && chmod 0777 "$RUN/handoff"
	atf_check -s exit:0 -e match:'uid 65534 is not root' -o save:out \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$HP" --run "$RUN" adopt -- \
		"$HP" report
	grep -qx 'listen_fds=unset' out || atf_fail "non-root got a socket: $(cat out)"
	grep -q 'refusing pid .*uid 65534' holder.log || atf_fail "refusal not logged"
	kill -0 "$HOLDER" || atf_fail "holder gave up after the refusal"
	atf_check -s exit:0 -e ignore -o save:out \
		"$HP" --run "$RUN" adopt -- "$HP" report
	check_events out
	wait_exit "$HOLDER" 5 || atf_fail "holder exit status $?"
}
non_root_refused_cleanup() { cleanup_holder; }

atf_test_case listen_fds_inherited cleanup
listen_fds_inherited_head() {
	atf_set descr "under socket activation the inherited kernel socket is replaced in place"
	atf_set require.user root
}
listen_fds_inherited_body() {
	setup_vars
	start_holder --timeout 60
	make_events
	atf_check -s exit:0 -e match:'uevent socket as fd 4, LISTEN_FDS=2' -o save:out \
		"$HP" activate systemd-udevd-control.socket:systemd-udevd-kernel.socket -- \
		"$HP" --run "$RUN" adopt -- \
		"$HP" report
	ino3=$(sed -n 's/^inherited fd3_ino=\([0-9]*\) .*/\1/p' out)
	ino4=$(sed -n 's/^inherited .*fd4_ino=\([0-9]*\)$/\1/p' out)
	grep -qx 'listen_fds=2' out || atf_fail "LISTEN_FDS: $(cat out)"
	grep -qx 'listen_pid=self' out || atf_fail "LISTEN_PID"
	grep -qx 'listen_fdnames=systemd-udevd-control.socket:systemd-udevd-kernel.socket' out ||
		atf_fail "names changed: $(grep fdnames out)"
	grep -q "^fd3=unix:seqpacket:0 .* ino=$ino3$" out || atf_fail "control socket not kept"
	grep -q "^fd4=netlink:raw:15 passcred=1 .* ino=$SOCK_INO$" out ||
		atf_fail "fd 4 is not the held socket (inherited was $ino4): $(grep ^fd4 out)"
	check_events out
	wait_exit "$HOLDER" 5 || atf_fail "holder exit status $?"
}
listen_fds_inherited_cleanup() { cleanup_holder; }

atf_test_case activation_copy_retired cleanup
activation_copy_retired_head() {
	atf_set descr "PID 1's copy of the kernel socket stops queueing once ours replaces it, and rejoins when the service restarts without a holder"
	atf_set require.user root
}
activation_copy_retired_body() {
	setup_vars
	start_holder --timeout 60
	make_events
	atf_check -s exit:0 -o save:out -e save:err \
		"$HP" activate --keep-copy systemd-udevd-control.socket:systemd-udevd-kernel.socket -- \
		"$HP" --run "$RUN" adopt --timeout 1 -- \
		"$HP" report
	# first start: ours replaced the copy, which left group 1 and was drained
	grep -q 'uevent socket as fd 4, LISTEN_FDS=2' err || atf_fail "not handed over: $(cat err)"
	grep -q 'inherited kernel socket (fd 4, socket activation.s copy) left group 1; dropped the [1-9][0-9]* events' err ||
		atf_fail "the copy was not retired: $(cat err)"
	grep -qx 'copy_after_start=0' out || atf_fail "the copy still queues: $(grep copy_ out)"
	check_events out
	# restart: no holder any more, the service gets the copy back, subscribed
	grep -q 'no holder at' err || atf_fail "second start found a holder: $(cat err)"
	grep -q 'inherited kernel socket (fd 4) rejoined group 1' err ||
		atf_fail "the copy did not rejoin: $(cat err)"
	grep -qx 'copy_after_restart=[1-9][0-9]*' out ||
		atf_fail "the copy hears nothing after the restart: $(grep copy_ out)"
}
activation_copy_retired_cleanup() { cleanup_holder; }

atf_test_case listen_fds_appended cleanup
listen_fds_appended_head() {
	atf_set descr "inherited sockets without a kernel one: ours is added after them"
	atf_set require.user root
}
listen_fds_appended_body() {
	setup_vars
	start_holder --timeout 60
	make_events
	atf_check -s exit:0 -e match:'uevent socket as fd 4, LISTEN_FDS=2' -o save:out \
		"$HP" activate --unix-only systemd-udevd-control.socket -- \
		"$HP" --run "$RUN" adopt -- \
		"$HP" report
	grep -qx 'listen_fds=2' out || atf_fail "LISTEN_FDS: $(cat out)"
	grep -qx 'listen_fdnames=systemd-udevd-control.socket:systemd-udevd-kernel.socket' out ||
		atf_fail "names: $(grep fdnames out)"
	grep -q "^fd3=unix:seqpacket:0 " out || atf_fail "control socket moved"
	grep -q "^fd4=netlink:raw:15 passcred=1 .* ino=$SOCK_INO$" out || atf_fail "fd 4: $(cat out)"
	check_events out
}
listen_fds_appended_cleanup() { cleanup_holder; }

atf_test_case listen_fds_for_another_pid cleanup
listen_fds_for_another_pid_head() {
	atf_set descr "LISTEN_FDS meant for another process is replaced, as sd_listen_fds ignores it"
	atf_set require.user root
}
listen_fds_for_another_pid_body() {
	setup_vars
	start_holder --timeout 60
	make_events
	atf_check -s exit:0 -e match:'uevent socket as fd 3, LISTEN_FDS=1' -o save:out \
		env LISTEN_FDS=2 LISTEN_PID=1 LISTEN_FDNAMES=a:b \
		"$HP" --run "$RUN" adopt -- "$HP" report
	grep -qx 'listen_fds=1' out || atf_fail "LISTEN_FDS: $(cat out)"
	grep -qx 'listen_pid=self' out || atf_fail "LISTEN_PID"
	grep -qx 'listen_fdnames=systemd-udevd-kernel.socket' out || atf_fail "LISTEN_FDNAMES"
	check_events out
}
listen_fds_for_another_pid_cleanup() { cleanup_holder; }

# adopt_with_env FDS NAMES: adopt with LISTEN_FDS=FDS, LISTEN_FDNAMES=NAMES and
# LISTEN_PID its own pid (sh execs it), no inherited kernel socket; PROG reports
adopt_with_env() {
	env LISTEN_FDS="$1" LISTEN_FDNAMES="$2" sh -c \
		'export LISTEN_PID=$$; exec "$0" --run "$1" adopt -- "$0" report' "$HP" "$RUN"
}

atf_test_case listen_fdnames_mismatch cleanup
listen_fdnames_mismatch_head() {
	atf_set descr "LISTEN_FDNAMES with more or fewer names than LISTEN_FDS: names rebuilt, no overflow"
	atf_set require.user root
}
listen_fdnames_mismatch_body() {
	setup_vars
	start_holder --timeout 60
	make_events
	# 8 fds, 1 name: the names buffer was sized from LISTEN_FDNAMES (heap overflow)
	adopt_with_env 8 a > out 2> err || atf_fail "adopt/PROG failed: $(cat err)"
	grep -qx 'listen_fds=9' out || atf_fail "LISTEN_FDS: $(cat out) $(cat err)"
	u=unknown
	grep -qx "listen_fdnames=$u:$u:$u:$u:$u:$u:$u:$u:systemd-udevd-kernel.socket" out ||
		atf_fail "names: $(grep fdnames out)"
	grep -q "^fd11=netlink:raw:15 " out || atf_fail "fd 11: $(cat out)"
	check_events out
	# 2 fds, 3 names: the kernel socket's name was cut short
	start_holder --timeout 60
	make_events
	adopt_with_env 2 a:b:c > out 2> err || atf_fail "adopt/PROG failed: $(cat err)"
	grep -qx 'listen_fdnames=unknown:unknown:systemd-udevd-kernel.socket' out ||
		atf_fail "names: $(grep fdnames out)"
	check_events out
}
listen_fdnames_mismatch_cleanup() { cleanup_holder; }

atf_test_case only_group_1 cleanup
only_group_1_head() {
	atf_set descr "a uevent socket bound to more groups than the kernel's is neither held nor adopted"
	atf_set require.user root
}
only_group_1_body() {
	setup_vars
	mkdir -p -m 0700 "$RUN"
	# the holder refuses it
	"$HP" hold --run "$RUN" --groups 3 > hold.out 2> holder.log
	[ $? -eq 1 ] || atf_fail "the holder took a socket bound to groups 1 and 2"
	grep -q 'not bound to the kernel.s group alone' holder.log || atf_fail "$(cat holder.log)"
	# adopt refuses it, and starts PROG without it
	"$HP" fake-holder "$RUN" 3 > fake.out &
	echo $! > holder.pid
	i=0
	while ! [ -S "$RUN/handoff" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	atf_check -s exit:0 -o save:out -e save:err "$HP" --run "$RUN" adopt -- "$HP" report
	grep -q 'not bound to the kernel.s group alone' err || atf_fail "not refused: $(cat err)"
	grep -qx 'listen_fds=unset' out || atf_fail "PROG got a socket: $(cat out)"
}
only_group_1_cleanup() { cleanup_holder; }

atf_test_case peer_dies_before_ack cleanup
peer_dies_before_ack_head() {
	atf_set descr "a fetcher that exits without confirming: the holder keeps the socket"
	atf_set require.user root
}
peer_dies_before_ack_body() {
	setup_vars
	start_holder --timeout 60
	make_events
	atf_check -s exit:0 -o match:'^reply=OK about .* fds=1$' "$HP" fetch-noack "$RUN"
	kill -0 "$HOLDER" || atf_fail "holder exited though nobody confirmed"
	wait_log 'did not take the uevent socket .*still holding' ||
		atf_fail "not logged: $(cat holder.log)"
	atf_check -s exit:0 -e ignore -o save:out "$HP" --run "$RUN" adopt -- "$HP" report
	check_events out
	wait_exit "$HOLDER" 5 || atf_fail "holder exit status $?"
}
peer_dies_before_ack_cleanup() { cleanup_holder; }

# start_daemon CMDLINE: an initdev daemon on ./run and a tmpfs ./dev, no
# coldplug; $ID runs initdev against it, $pid is the daemon
start_daemon() {
	ID0="$(atf_get_srcdir)/../../initdev"
	mkdir dev && mount -t tmpfs -o mode=0755 initdev-test "$PWD/dev" || atf_skip "cannot mount tmpfs"
	echo "$1" > cmdline
	mkdir udev-rules
	ID="$ID0 --log-target stderr --dev $PWD/dev --run $RUN --cmdline $PWD/cmdline --udev-rules $PWD/udev-rules"
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --no-coldplug
	pid=$(cat "$RUN/pid")
	echo "$pid" > holder.pid
}

# udevadm_exit: dracut's `udevadm control --exit`, through the udevadm name
udevadm_exit() {
	ln -s "$ID0" udevadm
	INITDEV_RUN_DIR=$RUN INITDEV_DEV_DIR=$PWD/dev INITDEV_CMDLINE=$PWD/cmdline \
		atf_check -s exit:0 -e ignore ./udevadm control --exit
}

daemon_cleanup() {
	cleanup_holder
	umount "$PWD/dev" 2>/dev/null
	true
}

atf_test_case udevadm_exit_hands_off cleanup
udevadm_exit_hands_off_head() {
	atf_set descr "dracut's udevadm control --exit makes the daemon the holder; events queue for adopt"
	atf_set require.user root
}
udevadm_exit_hands_off_body() {
	setup_vars
	start_daemon "quiet rd.initdev.handoff_timeout=30"
	# libdevmapper's sign of a running udev, while the daemon runs (udev beside run)
	[ -f udev/control ] || atf_fail "no udev/control while the daemon runs"
	udevadm_exit
	[ "$(tr '\0' '\n' < /proc/$pid/cmdline | head -1)" = @initdev-holder ] ||
		atf_fail "daemon $pid did not become the holder"
	# the real root's tools must not believe udev runs before its udevd does
	[ ! -e udev/control ] || atf_fail "udev/control outlived the handoff"
	[ -S "$RUN/handoff" ] || atf_fail "no $RUN/handoff"
	make_events
	atf_check -s exit:0 -e match:'uevent socket as fd 3, LISTEN_FDS=1' -o save:out \
		$ID adopt -- "$HP" report
	check_events out
}
udevadm_exit_hands_off_cleanup() { daemon_cleanup; }

atf_test_case udevadm_exit_no_handoff cleanup
udevadm_exit_no_handoff_head() {
	atf_set descr "with rd.initdev.handoff=0, udevadm control --exit stops the daemon: no holder"
	atf_set require.user root
}
udevadm_exit_no_handoff_body() {
	setup_vars
	start_daemon "rd.initdev.handoff=0"
	[ -f udev/control ] || atf_fail "no udev/control while the daemon runs"
	udevadm_exit
	[ -e /proc/$pid ] && atf_fail "daemon $pid still running: $(tr '\0' ' ' < /proc/$pid/cmdline)"
	[ ! -e udev/control ] || atf_fail "udev/control outlived the daemon"
	[ ! -e "$RUN/handoff" ] || atf_fail "a holder socket appeared"
	atf_check -s exit:0 -e match:'no holder' -o save:out $ID adopt --timeout 1 -- "$HP" report
	grep -qx 'listen_fds=unset' out || atf_fail "a socket was handed over: $(cat out)"
}
udevadm_exit_no_handoff_cleanup() { daemon_cleanup; }

atf_test_case daemon_handoff cleanup
daemon_handoff_head() {
	atf_set descr "initdev daemon -> initdev handoff -> initdev adopt: same pid holds, events arrive"
	atf_set require.user root
}
daemon_handoff_body() {
	setup_vars
	start_daemon ""
	atf_check -s exit:0 $ID handoff --timeout 10
	[ "$(tr '\0' '\n' < /proc/$pid/cmdline | head -1)" = @initdev-holder ] ||
		atf_fail "daemon $pid did not become the holder"
	[ -S "$RUN/handoff" ] || atf_fail "no $RUN/handoff"
	[ ! -e "$RUN/control" ] || atf_fail "control socket left behind"
	make_events
	atf_check -s exit:0 -e match:'uevent socket as fd 3, LISTEN_FDS=1' -o save:out \
		$ID adopt -- "$HP" report
	check_events out
	i=0
	while [ -e /proc/$pid ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	[ ! -e "$RUN/handoff" ] || atf_fail "run/handoff left behind"
}
daemon_handoff_cleanup() { daemon_cleanup; }

# burst N: N change events on the mem devices, each with its own SYNTH_UUID
# (listed in burst.uuids)
burst() {
	: > burst.uuids
	i=0
	while [ $i -lt "$1" ]; do
		for d in null zero full random urandom; do
			u=$(printf '%08x-0000-4000-8000-%012x' "$i" "$$")
			echo "$u" >> burst.uuids
			echo "change $u" > "/sys/devices/virtual/mem/$d/uevent"
			i=$((i + 1))
		done
	done
}

atf_test_case handoff_under_burst cleanup
handoff_under_burst_head() {
	atf_set descr "a burst bigger than the events in hand, then a handoff: each event is handled here or reaches the adopter, once"
	atf_set require.user root
	atf_set require.progs "jq"
}
handoff_under_burst_body() {
	setup_vars
	ID0="$(atf_get_srcdir)/../../initdev"
	mkdir dev && mount -t tmpfs -o mode=0755 initdev-test "$PWD/dev" || atf_skip "cannot mount tmpfs"
	: > cmdline
	mkdir udev-rules
	ID="$ID0 --log-target stderr --dev $PWD/dev --run $RUN --cmdline $PWD/cmdline --udev-rules $PWD/udev-rules"
	# every event takes 200 ms on one of two workers: a burst piles up, and
	# 400 of them outlast any delay of a loaded host before the handoff
	# (at 20 ms, 4 s of work was sometimes all done before it)
	$ID --log-level debug daemon --foreground --no-devtmpfs --no-coldplug \
		--workers 2 --test-delay-ms 200 2> daemon.log &
	echo $! > holder.pid
	i=0
	while [ ! -S "$RUN/control" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	atf_check -s exit:0 $ID settle --timeout 10
	burst 400
	# at most twice the workers in hand (8 at least), the rest wait in the kernel socket
	$ID status --json > status.json || atf_fail "status"
	[ "$(jq .events.in_hand_max status.json)" -eq 8 ] || atf_fail "bound: $(jq .events status.json)"
	[ "$(jq .events.queued status.json)" -le 8 ] || atf_fail "in hand: $(jq .events status.json)"
	t0=$(date +%s%N)
	atf_check -s exit:0 $ID handoff --timeout 30
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "handoff returned after $ms ms"
	[ "$ms" -lt 10000 ] || atf_fail "handoff took $ms ms with at most 8 events in hand"
	atf_check -s exit:0 -e ignore -o save:out "$HP" --run "$RUN" adopt -- "$HP" report 2000
	last=$(jq .events.last_seqnum "$RUN/status.json")
	[ "$last" -gt 0 ] || atf_fail "status.json names no event taken: $(cat "$RUN/status.json")"
	# each of our events exactly once: handled here (taken, logged) or
	# handed over; an event taken but given back at the handoff (it
	# outlasted the grace) is not handled here: the kernel sent it again,
	# with its SYNTH_UUID, after the last one taken
	sed -n 's/^initdev: handoff: event \([0-9]*\) change .* sent again \([0-9a-f-]*\)$/\1 \2/p' \
		daemon.log > given
	sed -n 's/^initdev: event \([0-9]*\) change .* \([0-9a-f-]*\)$/\1 \2/p' daemon.log |
		grep -v -x -F -f given > here
	sed -n 's/^event=\([0-9]*\) change@.* uuid=\([0-9a-f-]*\)$/\1 \2/p' out > there
	echo "given back at the handoff: $(wc -l < given)"
	here_n=$(grep -c -F -f burst.uuids here)
	there_n=$(grep -c -F -f burst.uuids there)
	echo "handled here $here_n, handed over $there_n, of $(wc -l < burst.uuids)"
	[ "$there_n" -gt 0 ] || atf_fail "nothing was left for the adopter"
	while read -r u; do
		n=$(cat here there | grep -c " $u$")
		[ "$n" -eq 1 ] || atf_fail "event $u seen $n times (here: $(grep -c " $u$" here))"
	done < burst.uuids
	# what was handed over came after what was taken here
	awk -v last="$last" '$1 <= last { bad = 1 } END { exit bad }' there ||
		atf_fail "an event up to SEQNUM $last reached the adopter too"
	max_here=$(cut -d' ' -f1 here | sort -n | tail -n 1)
	[ "$max_here" -le "$last" ] || atf_fail "status.json last_seqnum $last < $max_here"
}
handoff_under_burst_cleanup() { daemon_cleanup; }

# run_holders: pids of the holders serving $RUN (a holder started beside
# running workers is the daemon's child, not the daemon itself)
run_holders() {
	for p in /proc/[0-9]*; do
		a=$(tr '\0' ' ' < "$p/cmdline" 2> /dev/null)
		case $a in "@initdev-holder "*" --run $RUN "*) echo "${p#/proc/}" ;; esac
	done
}

atf_test_case handoff_gives_back cleanup
handoff_gives_back_head() {
	atf_set descr "events in hand that outlast the handoff's grace: the waiting ones are sent again by the kernel and reach the adopter, the running one is abandoned, the handoff returns at once"
	atf_set require.user root
	atf_set require.progs "jq"
}
handoff_gives_back_body() {
	setup_vars
	ID0="$(atf_get_srcdir)/../../initdev"
	mkdir dev && mount -t tmpfs -o mode=0755 initdev-test "$PWD/dev" || atf_skip "cannot mount tmpfs"
	: > cmdline
	mkdir udev-rules
	ID="$ID0 --log-target stderr --dev $PWD/dev --run $RUN --cmdline $PWD/cmdline --udev-rules $PWD/udev-rules"
	# one worker, every event takes 3 s on it (as a module load the kernel
	# holds until its asynchronous probing ends): five events pile up
	$ID --log-level debug daemon --foreground --no-devtmpfs --no-coldplug \
		--workers 1 --test-delay-ms 3000 2> daemon.log &
	daemon=$!
	echo $daemon > holder.pid
	i=0
	while [ ! -S "$RUN/control" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	atf_check -s exit:0 $ID settle --timeout 10
	burst 5
	i=0
	until [ "$($ID status --json | jq .events.accepted)" -ge 5 ] || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	t0=$(date +%s%N)
	atf_check -s exit:0 $ID handoff --timeout 30
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "handoff returned after $ms ms"
	# waiting for the five would take 15 s; the grace is 250 ms
	[ "$ms" -lt 2000 ] || atf_fail "handoff took $ms ms: it waited for the workers"
	# (a shared host's other tests may add events on the mem devices)
	jq -c "{events, handoff}" "$RUN/status.json"
	[ "$(jq '.events.accepted - .handoff.given_back' "$RUN/status.json")" -eq 1 ] &&
		[ "$(jq .handoff.abandoned "$RUN/status.json")" -eq 1 ] ||
		atf_fail "given back / abandoned: $(jq -c "{events, handoff}" "$RUN/status.json")"
	grep -q 'handoff: holder started as pid' daemon.log || atf_fail "no holder beside the workers: $(cat daemon.log)"
	# the holder (the daemon's stderr is its too) says so
	grep -q "holding .*; $(jq .handoff.given_back "$RUN/status.json") events in hand were sent again .*; 1 events in hand were abandoned" daemon.log ||
		atf_fail "the holder's line: $(grep 'holding' daemon.log)"
	# the daemon ended (its workers with it); a holder of its own serves RUN
	wait "$daemon"
	holders=$(run_holders)
	[ -n "$holders" ] && [ "$holders" != "$daemon" ] || atf_fail "holders: '$holders' (daemon $daemon)"
	atf_check -s exit:0 -e ignore -o save:out "$HP" --run "$RUN" adopt -- "$HP" report 2000
	# ours given back reach the adopter once each, with their SYNTH_UUID;
	# the one abandoned to the worker (if ours: the oldest) does not
	sed -n 's/^event=\([0-9]*\) change@.* uuid=\([0-9a-f-]*\)$/\1 \2/p' out > there
	sed -n 's/^initdev: handoff: event [0-9]* change .* sent again \([0-9a-f-]*\)$/\1/p' \
		daemon.log > given
	[ "$(grep -c -x -F -f burst.uuids given)" -ge 4 ] || atf_fail "given back: $(cat given)"
	while read -r u; do
		n=$(grep -c " $u$" there)
		if grep -q -x "$u" given; then
			[ "$n" -eq 1 ] || atf_fail "event $u, given back, reached the adopter $n times"
		else
			[ "$u" = "$(head -n 1 burst.uuids)" ] || atf_fail "event $u was neither given back nor the running one"
			[ "$n" -eq 0 ] || atf_fail "the abandoned event $u reached the adopter"
		fi
	done < burst.uuids
}
handoff_gives_back_cleanup() {
	RUN="$PWD/run"
	for p in $(run_holders); do kill -9 "$p"; done
	daemon_cleanup
}

atf_test_case holder_without_binary cleanup
holder_without_binary_head() {
	atf_set descr "as after switch_root: /proc gone and the binary deleted, the holder still starts"
	atf_set require.user root
	atf_set require.progs "unshare"
}
holder_without_binary_body() {
	setup_vars
	ID0="$(atf_get_srcdir)/../../initdev"
	mkdir dev && mount -t tmpfs -o mode=0755 initdev-test "$PWD/dev" || atf_skip "cannot mount tmpfs"
	: > cmdline
	mkdir udev-rules
	cp "$ID0" initdev-copy
	# a private mount namespace: its /proc can go without touching the host's.
	# The daemon is started there, then /proc is unmounted and the binary
	# deleted; the handoff is asked from out here (a sanitizer build cannot
	# read its options without /proc: the client would trip LeakSanitizer).
	unshare -m --propagation private sh -c '
		set -e
		./initdev-copy --log-target stderr --dev "$PWD/dev" --run "$1" \
			--cmdline "$PWD/cmdline" --udev-rules "$PWD/udev-rules" daemon --foreground \
			--no-devtmpfs --no-coldplug 2> daemon.log &
		echo $! > holder.pid
		i=0
		while ! [ -S "$1/control" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		umount -l /proc
		rm ./initdev-copy
		[ ! -e /proc/self/exe ] && [ ! -e ./initdev-copy ]
	' sh "$RUN" || atf_fail "setup failed: $(cat daemon.log)"
	"$ID0" --log-target stderr --run "$RUN" handoff --timeout 10 ||
		atf_fail "handoff failed: $(cat daemon.log)"
	grep -q "cannot start the holder" daemon.log && atf_fail "$(cat daemon.log)"
	make_events
	atf_check -s exit:0 -e match:'uevent socket as fd 3, LISTEN_FDS=1' -o save:out \
		"$HP" --run "$RUN" adopt -- "$HP" report
	check_events out
}
holder_without_binary_cleanup() { daemon_cleanup; }

atf_test_case overflow_preserved cleanup
overflow_preserved_head() {
	atf_set descr "an overflow while held reaches the new owner as ENOBUFS"
	atf_set require.user root
}
overflow_preserved_body() {
	setup_vars
	start_holder --timeout 60 --rcvbuf 1
	for i in $(seq 20); do echo change > $NULL_UEVENT; done
	atf_check -s exit:0 -e match:'overflowed' -o save:out \
		"$HP" --run "$RUN" adopt -- "$HP" report
	[ "$(grep -m1 -e '^enobufs' -e '^event=' out)" = enobufs ] ||
		atf_fail "ENOBUFS not seen first: $(cat out)"
	# any device's: on a busy host another process's events (a loop
	# device's) may be the ones that filled the 1-page buffer first
	grep -q '^event=' out || atf_fail "queued events lost: $(cat out)"
}
overflow_preserved_cleanup() { cleanup_holder; }

atf_init_test_cases() {
	atf_add_test_case handed_over
	atf_add_test_case holder_timeout
	atf_add_test_case holder_sigterm
	atf_add_test_case no_holder
	atf_add_test_case holder_killed
	atf_add_test_case non_root_refused
	atf_add_test_case listen_fds_inherited
	atf_add_test_case listen_fds_appended
	atf_add_test_case activation_copy_retired
	atf_add_test_case listen_fds_for_another_pid
	atf_add_test_case peer_dies_before_ack
	atf_add_test_case listen_fdnames_mismatch
	atf_add_test_case only_group_1
	atf_add_test_case overflow_preserved
	atf_add_test_case handoff_under_burst
	atf_add_test_case handoff_gives_back
	atf_add_test_case holder_without_binary
	atf_add_test_case daemon_handoff
	atf_add_test_case udevadm_exit_hands_off
	atf_add_test_case udevadm_exit_no_handoff
}
