#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# initdev's udevadm entry point (a symlink named udevadm), called as
# systemd's units and dracut call udevadm, against a daemon of this test
# (private /dev and run dir, coldplug limited to /sys/devices/virtual/mem).

. "$(dirname "$0")/../host-lib.sh"

# udevadm_setup: ./udevadm, a symlink to initdev, pointed at this test's
# daemon by the variables the entry point reads (it has no --run)
udevadm_setup() {
	setup_root
	ln -s "$(bin)" udevadm || atf_fail "cannot link udevadm"
	INITDEV_RUN_DIR=$PWD/run INITDEV_DEV_DIR=$PWD/dev INITDEV_CMDLINE=$PWD/cmdline
	export INITDEV_RUN_DIR INITDEV_DEV_DIR INITDEV_CMDLINE
}

# start_daemon: the daemon as systemd-udevd.service starts it: no coldplug
start_daemon() {
	$ID daemon --no-devtmpfs --no-coldplug --subtree /devices/virtual/mem 2> daemon.err ||
		atf_fail "daemon did not start: $(cat daemon.err)"
}

# expect_coldplugged: every mem device was triggered and has its node
expect_coldplugged() {
	atf_check -s exit:0 ./udevadm settle --timeout 30
	n=$(ls /sys/devices/virtual/mem | wc -l)
	$ID status --json > status.json || atf_fail "status failed"
	jq -e ".devices.triggers == $n and .devices.awaiting_reply == 0" status.json > /dev/null ||
		atf_fail "not every mem device was triggered: $(cat status.json)"
	for d in $(ls /sys/devices/virtual/mem); do
		[ -c "dev/$d" ] || atf_fail "no dev/$d after the trigger"
	done
}

atf_test_case trigger_as_systemd_unit cleanup
trigger_as_systemd_unit_head() {
	atf_set descr "systemd-udev-trigger.service's call (--type=all, --prioritized-subsystem) coldplugs"
	atf_set require.user root
	atf_set require.progs jq
}
trigger_as_systemd_unit_body() {
	udevadm_setup
	start_daemon
	atf_check -s exit:0 ./udevadm trigger --type=all --action=add \
		--prioritized-subsystem=module,block,tpmrm,net,tty,input
	expect_coldplugged
}
trigger_as_systemd_unit_cleanup() { cleanup_root; }

atf_test_case trigger_waits_for_daemon cleanup
trigger_waits_for_daemon_head() {
	atf_set descr "a trigger started before the daemon (units started side by side) waits for it"
	atf_set require.user root
	atf_set require.progs jq
}
trigger_waits_for_daemon_body() {
	udevadm_setup
	./udevadm trigger --type=all --action=add 2> trigger.err &
	t=$!
	# a shim that does not wait has failed by now (no daemon answers)
	sleep 1
	kill -0 "$t" 2> /dev/null ||
		atf_fail "the trigger returned before any daemon ran: $(cat trigger.err)"
	start_daemon
	wait "$t" || atf_fail "the trigger failed once the daemon ran: $(cat trigger.err)"
	expect_coldplugged
}
trigger_waits_for_daemon_cleanup() { cleanup_root; }

atf_test_case trigger_refuses_bad_calls cleanup
trigger_refuses_bad_calls_head() {
	atf_set descr "trigger calls initdev cannot honour fail with udevadm's usage code, naming the call"
	atf_set require.user root
	atf_set require.progs jq
}
trigger_refuses_bad_calls_body() {
	udevadm_setup
	start_daemon
	for args in "--type=bogus --action=add" "--type=all --action=change" \
		"--type=all --action=add --prioritized-subsystem=block,,net" \
		"--type=all --action=add --prioritized-subsystem=../block" \
		"--type=all --action=add --prioritized-subsystem=" \
		"--type=all --action=add --subsystem-match=block"; do
		# shellcheck disable=SC2086 # split on purpose
		atf_check -s exit:2 -e match:"not supported by initdev" ./udevadm trigger $args
	done
	atf_check -s exit:0 ./udevadm trigger --type=subsystems --action=add
	# the daemon's own count: its /dev may get nodes from other processes'
	# events (it hears the whole host), its triggers are its own
	$ID status --json > status.json || atf_fail "status failed"
	jq -e '.devices.triggers == 0' status.json > /dev/null ||
		atf_fail "a refused or subsystems trigger coldplugged: $(jq -c .devices status.json)"
}
trigger_refuses_bad_calls_cleanup() { cleanup_root; }

# match_setup: ./udevadm and a udev database of this test's own
# (INITDEV_UDEV_RUN_DIR): /dev/null's entry says ID_BTRFS_READY=0, /dev/zero's 1.
# The cases use --dry-run: they read the host's /sys and write nothing.
match_setup() {
	ln -s "$(bin)" udevadm || atf_fail "cannot link udevadm"
	mkdir -p udev/data
	printf 'E:ID_FS_TYPE=btrfs\nE:ID_BTRFS_READY=0\nE:SYSTEMD_READY=0\n' > udev/data/c1:3
	printf 'E:ID_FS_TYPE=btrfs\nE:ID_BTRFS_READY=1\n' > udev/data/c1:5
	INITDEV_UDEV_RUN_DIR=$PWD/udev
	export INITDEV_UDEV_RUN_DIR
	[ -e /sys/class/mem/null ] && [ -e /sys/class/mem/zero ] || atf_skip "no /sys/class/mem"
}

atf_test_case trigger_match_by_property
trigger_match_by_property_head() {
	atf_set descr "64-btrfs.rules' call (-s block -p ID_BTRFS_READY=0) picks the devices whose database entry or uevent file matches; globs, OR between -p"
}
trigger_match_by_property_body() {
	match_setup
	atf_check -s exit:0 -o inline:"/sys/devices/virtual/mem/null\n" \
		./udevadm trigger -n -v -s mem -p ID_BTRFS_READY=0
	atf_check -s exit:0 -o inline:"/sys/devices/virtual/mem/zero\n" \
		./udevadm trigger --dry-run --verbose --subsystem-match=mem --property-match=ID_BTRFS_READY=1
	./udevadm trigger -n -v -s mem -p 'ID_BTRFS_*=*' | sort > both || atf_fail "glob failed"
	printf '/sys/devices/virtual/mem/null\n/sys/devices/virtual/mem/zero\n' > want
	atf_check -o file:want cat both
	# the uevent file's properties count too, and -p words are ORed
	./udevadm trigger -n -v -s mem -p DEVNAME=zero -p ID_BTRFS_READY=0 | sort > or
	atf_check -o file:want cat or
	# the subsystem must match: nothing in block has these entries
	atf_check -s exit:0 -o empty ./udevadm trigger -n -v -s block -p ID_BTRFS_READY=0
}

atf_test_case trigger_match_hostile_db
trigger_match_hostile_db_head() {
	atf_set descr "bad input: a database entry that is a symlink, too large or binary matches nothing and stops nothing"
}
trigger_match_hostile_db_body() {
	match_setup
	ln -sf c1:5 udev/data/c1:3 # (a link: not followed)
	head -c 1100000 /dev/zero | tr '\0' 'E' > udev/data/c1:5
	printf 'E:ID_BTRFS_READY=0' >> udev/data/c1:5 # (past the bound)
	printf '\001\377E:\nID_BTRFS_READY=0\nE:=0\nEID_BTRFS_READY=0\n' > udev/data/c1:7
	atf_check -s exit:0 -o empty ./udevadm trigger -n -v -s mem -p ID_BTRFS_READY=0
}

atf_test_case trigger_match_refuses_bad_calls
trigger_match_refuses_bad_calls_head() {
	atf_set descr "match words initdev cannot honour (no KEY=, no subsystem, a path, an action other than add or change) fail with udevadm's usage code"
}
trigger_match_refuses_bad_calls_body() {
	match_setup
	for args in "-s mem -p ID_BTRFS_READY" "-s mem -p =0" "-p ID_BTRFS_READY=0" \
		"-s ../mem -p A=1" "-s mem/x -p A=1" "-s mem -p A=1 --action=remove" \
		"-s mem -p A=1 --type=subsystems" "-s mem -p A=1 extra"; do
		# shellcheck disable=SC2086 # split on purpose
		atf_check -s exit:2 -e match:"not supported by initdev" ./udevadm trigger -n $args
	done
}

atf_init_test_cases() {
	atf_add_test_case trigger_as_systemd_unit
	atf_add_test_case trigger_waits_for_daemon
	atf_add_test_case trigger_refuses_bad_calls
	atf_add_test_case trigger_match_by_property
	atf_add_test_case trigger_match_hostile_db
	atf_add_test_case trigger_match_refuses_bad_calls
}
