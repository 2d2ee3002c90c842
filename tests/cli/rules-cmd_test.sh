#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# initdev rules test on a hand-made sysfs (one mem device, no root needed):
# --timeout is checked and bounds the programs, IMPORT{cmdline} reads what
# the daemon's cmdline reader gives, a DEVNAME outside /dev is ignored, and
# --udev-db gives the device's record and its parent's (IMPORT{parent}).

bin() { echo "$(atf_get_srcdir)/../../initdev"; }

# fake_mem DEVNAME: sys/devices/virtual/mem/null with that DEVNAME
fake_mem() {
	mkdir -p sys/devices/virtual/mem/null sys/class/mem
	printf 'MAJOR=1\nMINOR=3\nDEVNAME=%s\nDEVMODE=0666\n' "$1" > sys/devices/virtual/mem/null/uevent
	ln -sfn ../../../../class/mem sys/devices/virtual/mem/null/subsystem
	ID="$(bin) --log-target stderr --sysfs $PWD/sys --cmdline $PWD/cmdline"
}

atf_test_case timeout_checked
timeout_checked_head() {
	atf_set descr "rules test --timeout takes 1..86400 seconds, anything else is a usage error; the deadline kills a program"
}
timeout_checked_body() {
	fake_mem null
	: > cmdline
	echo 'PROGRAM=="/bin/sleep 30", ENV{SLEPT}="1"' > slow.rules
	for t in abc 0 86401 99999999999999999999 -1 '' ' 5' 5x 0x10; do
		atf_check -s exit:2 -o empty -e match:'usage: initdev rules test' \
			$ID rules test --timeout "$t" --rules slow.rules /devices/virtual/mem/null
	done
	start=$(date +%s)
	atf_check -s exit:0 -o match:'^SUBSYSTEM=mem$' -o not-match:SLEPT -e match:'timed out' \
		$ID rules test --timeout 1 --rules slow.rules /devices/virtual/mem/null
	took=$(($(date +%s) - start))
	[ "$took" -lt 10 ] || atf_fail "--timeout 1 took $took s"
}

atf_test_case import_cmdline
import_cmdline_head() {
	atf_set descr "IMPORT{cmdline} in rules test: quoted words, bare keys, '-' as '_', the last one wins; none when the file is missing"
}
import_cmdline_body() {
	fake_mem null
	printf 'quiet rd.foo=bar "rd.q=a b" rd.x-y=1 rd.x_y=2\n' > cmdline
	cat > c.rules <<'R'
IMPORT{cmdline}="rd.foo"
IMPORT{cmdline}="rd.q"
IMPORT{cmdline}="quiet"
IMPORT{cmdline}="rd.x_y"
IMPORT{cmdline}!="absent", ENV{ABSENT}="yes"
R
	atf_check -s exit:0 -o save:out -e ignore $ID rules test --rules c.rules /devices/virtual/mem/null
	for want in 'rd.foo=bar' 'rd.q=a b' 'quiet=1' 'rd.x_y=2' 'ABSENT=yes'; do
		grep -qx "$want" out || atf_fail "no '$want' in: $(cat out)"
	done
	atf_check -s exit:0 -o save:out2 -e ignore \
		"$(bin)" --log-target stderr --sysfs "$PWD/sys" --cmdline "$PWD/missing" \
		rules test --rules c.rules /devices/virtual/mem/null
	grep -q '^rd\.' out2 && atf_fail "properties from a missing command line: $(cat out2)"
	grep -qx 'ABSENT=yes' out2 || atf_fail "IMPORT{cmdline}!= did not match: $(cat out2)"
}

atf_test_case devname_outside_dev
devname_outside_dev_head() {
	atf_set descr "a uevent file's DEVNAME that is not /dev/NAME inside /dev is ignored: the device has no node"
}
devname_outside_dev_body() {
	: > cmdline
	echo 'ENV{SEEN}="[%N]"' > n.rules
	for dn in /x /dev/ /dev/../etc/shadow ../etc; do
		fake_mem "$dn"
		atf_check -s exit:0 -o not-match:DEVNAME -o match:'^SEEN=\[\]$' -e ignore \
			$ID rules test --no-native --rules n.rules /devices/virtual/mem/null
	done
	fake_mem /dev/null
	atf_check -s exit:0 -o match:'^DEVNAME=/dev/null$' -o match:'^SEEN=\[/dev/null\]$' -e ignore \
		$ID rules test --no-native --rules n.rules /devices/virtual/mem/null
}

atf_test_case udev_db_records
udev_db_records_head() {
	atf_set descr "--udev-db: IMPORT{parent} reads the parent's record, a removed device's links print with /dev/, a forged '\\r' line stays a line of its own"
}
udev_db_records_body() {
	mkdir -p sys/devices/par/null sys/class/foo sys/class/mem data
	: > sys/devices/par/uevent
	ln -s ../../class/foo sys/devices/par/subsystem
	printf 'MAJOR=1\nMINOR=3\nDEVNAME=null\n' > sys/devices/par/null/uevent
	echo 1:3 > sys/devices/par/null/dev
	ln -s ../../../class/mem sys/devices/par/null/subsystem
	printf 'E:PARENT_KEY=parent_right\nE:OTHER=x\nV:1\n' > data/+foo:par
	printf 'S:by-x/null-link\nE:OLD=1\rS:forged\nV:1\n' > data/c1:3
	: > cmdline
	echo 'IMPORT{parent}="PARENT*"' > p.rules
	ID="$(bin) --log-target stderr --sysfs $PWD/sys --cmdline $PWD/cmdline"
	atf_check -s exit:0 -o match:'^PARENT_KEY=parent_right$' -o not-match:OTHER -e ignore \
		$ID rules test --no-native --udev-db "$PWD/data" --rules p.rules /devices/par/null
	# without the database there is no record to import
	atf_check -s exit:0 -o not-match:PARENT_KEY -e ignore \
		$ID rules test --no-native --rules p.rules /devices/par/null
	atf_check -s exit:0 -o match:'^DEVLINKS=/dev/by-x/null-link /dev/forged$' -o match:'^OLD=1$' \
		-e ignore $ID rules test --no-native --udev-db "$PWD/data" --action remove \
		--rules p.rules /devices/par/null
	atf_check -s exit:1 -o empty -e match:'No such file' \
		$ID rules test --no-native --udev-db "$PWD/none" --rules p.rules /devices/par/null
}

atf_init_test_cases() {
	atf_add_test_case timeout_checked
	atf_add_test_case import_cmdline
	atf_add_test_case devname_outside_dev
	atf_add_test_case udev_db_records
}
