#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# initdev report against the real kernel, on harmless virtual devices only
# (/sys/devices/virtual/mem; /dev is a private tmpfs, nodes made with mknod):
# the trace a run leaves, the one a running daemon writes on request, the
# text, the JSON, the SVG (well-formed, and a headless Chromium draws it),
# and bad trace files.

. "$(dirname "$0")/../host-lib.sh"

# mem_root: setup_root, and the mem devices' coldplug options and count
mem_root() {
	setup_root
	MEM="--no-devtmpfs --subtree /devices/virtual/mem"
	NMEM=$(ls /sys/devices/virtual/mem | wc -l)
}

# coldplug_mem: one run over the mem devices; it leaves run/trace
coldplug_mem() {
	# shellcheck disable=SC2086
	atf_check -s exit:0 -e ignore $ID coldplug $MEM --timeout 30
	[ -f run/trace ] || atf_fail "coldplug left no run/trace"
}

atf_test_case summary_of_a_coldplug cleanup
summary_of_a_coldplug_head() {
	atf_set descr "after initdev coldplug, report reads run/trace: every mem device, settled, nothing pending"
	atf_set require.user root
}
summary_of_a_coldplug_body() {
	mem_root
	coldplug_mem
	[ ! -e run/pid ] && [ ! -e run/control ] || atf_fail "coldplug left more than its trace"
	atf_check -s exit:0 -o save:out $ID report
	grep -q "^devices: $NMEM ($NMEM events, $NMEM triggers written" out ||
		atf_fail "not $NMEM devices: $(cat out)"
	grep -q '^settled: [0-9.]* ms after the daemon.s start' out || atf_fail "no settle time"
	grep -q '^pending at the end ([0-9.]* ms): nothing' out || atf_fail "something pending"
	grep -q '^phases: startup .*, coldplug .*, settling .*, settled ' out ||
		atf_fail "phases missing"
	grep -q '  /devices/virtual/mem/' out || atf_fail "no slowest device listed"
}
summary_of_a_coldplug_cleanup() { cleanup_root; }

atf_test_case json_has_every_device cleanup
json_has_every_device_head() {
	atf_set descr "report --json: each mem device with its trigger, event and handling in order"
	atf_set require.user root
	atf_set require.progs jq
}
json_has_every_device_body() {
	mem_root
	coldplug_mem
	atf_check -s exit:0 -o save:r.json $ID report --json
	for d in /sys/devices/virtual/mem/*; do
		p=${d#/sys}
		jq -e --arg p "$p" '[.devices[] | select(.devpath == $p)] | length == 1 and
			(.[0].events | length >= 1) and
			(.[0].events[0] | .trigger_us <= .received_us and .received_us <= .handled_us
				and .handled_us <= .done_us and .handlers.devnode >= 0
				and .action == "add") and (.[0].pending | not)' r.json > /dev/null ||
			atf_fail "$p is not in the JSON as triggered, received and handled"
	done
	jq -e --argjson n "$NMEM" '(.devices | length) == $n and .version == 1 and
		.settled_us > 0 and .settled_us <= .end_us and .dropped == 0 and
		.pending_triggers == 0 and .pending_events == 0 and
		(.handlers | index("devnode")) != null and (.slowest_devices | length) > 0' \
		r.json > /dev/null || atf_fail "summary fields wrong: $(cat r.json)"
}
json_has_every_device_cleanup() { cleanup_root; }

atf_test_case asks_the_running_daemon cleanup
asks_the_running_daemon_head() {
	atf_set descr "with a daemon running, report asks it for a fresh trace; after exit the file it left is read"
	atf_set require.user root
	atf_set require.progs jq
}
# null_changes FILE FROM TO: how many change events of mem/null the JSON
# report FILE has with a SEQNUM in (FROM, TO]
null_changes() {
	jq --argjson from "$2" --argjson to "$3" '[.devices[] |
		select(.devpath == "/devices/virtual/mem/null") | .events[] |
		select(.action == "change" and .seqnum > $from and .seqnum <= $to)] | length' "$1"
}

asks_the_running_daemon_body() {
	mem_root
	# shellcheck disable=SC2086
	atf_check -s exit:0 -e ignore $ID daemon $MEM
	atf_check -s exit:0 $ID settle --timeout 30
	atf_check -s exit:0 -o save:1.json $ID report --json
	# an event after the first report: only a fresh trace has it. Other
	# processes may write to mem/null too: ours is the change whose SEQNUM
	# lies between the kernel's counter before and after our write
	from=$(cat /sys/kernel/uevent_seqnum)
	echo change > /sys/devices/virtual/mem/null/uevent
	to=$(cat /sys/kernel/uevent_seqnum)
	atf_check -s exit:0 $ID settle --timeout 30
	i=0
	while [ $i -lt 50 ]; do
		$ID report --json > 2.json || atf_fail "report failed"
		[ "$(null_changes 2.json "$from" "$to")" -ge 1 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	[ $i -lt 50 ] || atf_fail "the daemon's fresh trace lacks the change event"
	[ "$(null_changes 1.json "$from" "$to")" -eq 0 ] ||
		atf_fail "the first trace already had the change: the test proves nothing"
	atf_check -s exit:0 $ID exit
	[ -f run/trace ] || atf_fail "the daemon left no trace at exit"
	atf_check -s exit:0 -o save:3.json $ID report --json
	[ "$(null_changes 3.json "$from" "$to")" -ge 1 ] ||
		atf_fail "the trace left at exit lacks the change event"
}
asks_the_running_daemon_cleanup() { cleanup_root; }

# expect_bad FILE WHAT: report exits 1 and names the file, the line and WHAT
expect_bad() {
	atf_check -s exit:1 -o empty -e save:err "$(bin)" report --trace "$1"
	grep -q "^initdev: $1: line [0-9]* (byte [0-9]*): .*$2" err ||
		atf_fail "for $1, expected '$2' with line and byte: $(cat err)"
}

atf_test_case bad_trace_files cleanup
bad_trace_files_head() {
	atf_set descr "a truncated or hand-edited trace: report says what and where, exits 1"
	atf_set require.user root
}
bad_trace_files_body() {
	mem_root
	coldplug_mem
	size=$(stat -c %s run/trace)
	head -c $((size / 2)) run/trace > half
	expect_bad half "cut short"
	head -n -1 run/trace > noend
	expect_bad noend "no 'end' line"
	sed 's/^event \([0-9]*\) [0-9]*/event \1 x1/' run/trace > seqnum
	expect_bad seqnum "seqnum: 'x1' is not a number"
	sed 's/^handled \([0-9]*\) \([0-9]*\) main /handled \1 \2 elsewhere /' run/trace > thread
	expect_bad thread "thread"
	sed 's/^end [0-9]*/end 1/' run/trace > early
	expect_bad early "after the trace's end"
	printf 'initdev-trace 9\n' > future
	expect_bad future "version '9'"
	atf_check -s exit:1 -e match:"initdev: $PWD/none: No such file or directory" \
		"$(bin)" report --trace "$PWD/none"
	atf_check -s exit:1 -e match:"no daemon at $PWD/empty/control, and no trace at" \
		"$(bin)" --run "$PWD/empty" report
	atf_check -s exit:2 -e match:usage "$(bin)" report --bogus
	# the good one is still good
	atf_check -s exit:0 -o ignore "$(bin)" report --trace run/trace
}
bad_trace_files_cleanup() { cleanup_root; }

# svg_size FILE: "WIDTH,HEIGHT" of the SVG's root element
svg_size() {
	sed -n 's/^<svg .* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$1" | head -n 1
}

atf_test_case svg_well_formed_and_drawn cleanup
svg_well_formed_and_drawn_head() {
	atf_set descr "report --svg: well-formed (xmllint), an element per device, and headless Chromium draws its bars"
	atf_set require.user root
	atf_set require.progs "xmllint chromium pngtopnm ppmhist"
	atf_set timeout 120
}
svg_well_formed_and_drawn_body() {
	mem_root
	coldplug_mem
	atf_check -s exit:0 -o match:"^timeline: $PWD/t.svg" $ID report --svg "$PWD/t.svg"
	atf_check -s exit:0 xmllint --noout t.svg
	n=$(xmllint --xpath "count(//*[local-name()='g'][contains(concat(' ', @class, ' '), ' device ')])" t.svg)
	[ "$n" = "$NMEM" ] || atf_fail "$n device elements in the SVG, expected $NMEM"
	for d in /sys/devices/virtual/mem/*; do
		grep -q "<title>${d#/sys} (mem)" t.svg || atf_fail "no element for ${d#/sys}"
	done
	size=$(svg_size t.svg)
	[ -n "$size" ] || atf_fail "no width and height on the SVG"
	# a window larger than the picture: a small one scrolls it out of view
	w=${size%,*} h=${size#*,}
	size="$((w + 40)),$((h < 668 ? 768 : h + 100))"
	mkdir profile
	HOME=$PWD timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$PWD/profile" --window-size="$size" \
		--screenshot="$PWD/shot.png" "file://$PWD/t.svg" > chromium.log 2>&1
	[ -s shot.png ] || atf_fail "Chromium made no screenshot: $(tail -n 5 chromium.log)"
	pngtopnm shot.png | ppmhist -noheader > hist || atf_fail "cannot read the screenshot"
	# pixels of the devnode handler's colour (#4e79a7), and not a white page
	devnode=$(awk '$1 >= 75 && $1 <= 81 && $2 >= 118 && $2 <= 124 && $3 >= 164 && $3 <= 170 \
		{ n += $5 } END { print n + 0 }' hist)
	other=$(awk '!($1 == 255 && $2 == 255 && $3 == 255) { n += $5 } END { print n + 0 }' hist)
	echo "screenshot $size: $devnode devnode-coloured pixels, $other not white"
	[ "$devnode" -ge 20 ] || atf_fail "no devnode bar drawn ($devnode pixels)"
	[ "$other" -ge 2000 ] || atf_fail "the screenshot is blank ($other pixels not white)"
}
svg_well_formed_and_drawn_cleanup() { cleanup_root; }

atf_init_test_cases() {
	atf_add_test_case summary_of_a_coldplug
	atf_add_test_case json_has_every_device
	atf_add_test_case asks_the_running_daemon
	atf_add_test_case bad_trace_files
	atf_add_test_case svg_well_formed_and_drawn
}
