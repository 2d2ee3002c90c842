#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# initdev monitor end to end: real kernel events accepted, forgeries rejected
# with the right reason, and a summary on SIGINT/SIGTERM.

forge() { "$(atf_get_srcdir)/../uevent-forge" "$@"; }

start_monitor() {
	# the binary itself in the background, so $! is its pid
	"$(atf_get_srcdir)/../../initdev" --log-target stderr monitor "$@" >out 2>err &
	echo $! > pid
	i=0
	while ! grep -q '^listening: port' err; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "monitor never started: $(cat err)"
		sleep 0.05
	done
	port=$(sed -n 's/^listening: port \([0-9]*\),.*/\1/p' err)
}

wait_for() { # FILE PATTERN
	i=0
	while ! grep -q -- "$2" "$1"; do
		i=$((i + 1))
		[ $i -lt 100 ] || atf_fail "never saw '$2' in $1: $(cat "$1")"
		sleep 0.05
	done
}

stop_monitor() { # SIGNAL
	kill -"$1" "$(cat pid)"
	wait "$(cat pid)" || atf_fail "monitor exited non-zero"
	grep -q '^summary: ' err || atf_fail "no summary: $(cat err)"
}

atf_test_case forgeries_rejected_kernel_accepted
forgeries_rejected_kernel_accepted_head() {
	atf_set descr "each forgery is rejected with its reason; a kernel event is printed"
	atf_set require.user root
}
forgeries_rejected_kernel_accepted_body() {
	start_monitor --show-rejected
	forge --unicast "$port" >/dev/null || atf_fail "forge unicast"
	wait_for err '^rejected unicast:'
	forge >/dev/null || atf_fail "forge multicast"
	forge --creds 1:0 >/dev/null || atf_fail "forge creds"
	forge --size 9000 >/dev/null || atf_fail "forge big"
	wait_for err '^rejected truncated:'
	before=$(cat /sys/kernel/uevent_seqnum)
	echo change > /sys/devices/virtual/mem/null/uevent
	wait_for out ' change /devices/virtual/mem/null (mem)'
	stop_monitor INT
	seq=$(awk '$2 == "change" && $3 == "/devices/virtual/mem/null" {print $1; exit}' out)
	[ "$seq" -gt "$before" ] || atf_fail "SEQNUM $seq not after $before"
	grep -q 'forged0' out && atf_fail "a forged event was printed as accepted"
	atf_check -o match:'^2$' -x "grep -c '^rejected foreign-port:' err"
	grep '^rejected foreign-port:' err | grep -q 'pid=1 ' || atf_fail "claimed pid 1 not shown"
	grep -q '^rejected unicast: .*port=' err || atf_fail "no sender in the rejection"
	grep -q '^summary: .*, truncated 1, unicast 1, foreign-port 2, no-credentials 0, foreign-credentials 0,' err ||
		atf_fail "summary counts wrong: $(grep summary err)"
}

atf_test_case json_output
json_output_head() {
	atf_set descr "--json prints one valid JSON object per event with every key"
	atf_set require.user root
	atf_set require.progs jq
}
json_output_body() {
	start_monitor --json
	echo change > /sys/devices/virtual/mem/null/uevent
	wait_for out '"DEVPATH":"/devices/virtual/mem/null"'
	forge >/dev/null
	stop_monitor TERM
	atf_check -o ignore jq -e . out
	line=$(grep '"DEVPATH":"/devices/virtual/mem/null"' out | head -n 1)
	for k in ACTION DEVPATH SUBSYSTEM SEQNUM MAJOR MINOR DEVNAME; do
		echo "$line" | jq -e "has(\"$k\")" >/dev/null || atf_fail "key $k missing: $line"
	done
	echo "$line" | jq -e '.SUBSYSTEM == "mem" and .DEVNAME == "null"' >/dev/null ||
		atf_fail "wrong values: $line"
	grep -q forged0 out && atf_fail "forged event printed"
	grep -q '^rejected' err && atf_fail "rejections printed without --show-rejected"
	grep -q '1 rejected\|foreign-port 1' err || atf_fail "rejection not counted: $(cat err)"
}

atf_test_case no_credentials_rejected
no_credentials_rejected_head() {
	atf_set descr "a real kernel event read without SO_PASSCRED is rejected"
	atf_set require.user root
}
no_credentials_rejected_body() {
	start_monitor --show-rejected --test-no-passcred
	echo change > /sys/devices/virtual/mem/null/uevent
	wait_for err '^rejected no-credentials: .*change@/devices/virtual/mem/null'
	stop_monitor INT
	grep -q 'mem/null' out && atf_fail "accepted without credentials"
	true
}

atf_init_test_cases() {
	atf_add_test_case forgeries_rejected_kernel_accepted
	atf_add_test_case json_output
	atf_add_test_case no_credentials_rejected
}
