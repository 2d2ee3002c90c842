#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# /dev/disk links on real block devices: loop devices over filesystem images
# made here, hostile labels among them. The daemon runs on a private tmpfs
# /dev with mknod and coldplug limited to those loop devices. blkid's own
# "udev" output is the oracle for udev's encoding.

. "$(dirname "$0")/../host-lib.sh"

# expect_link DIR ENCODED LOOP: dev/disk/DIR/ENCODED -> ../../loopN
expect_link() {
	t=$(readlink "dev/disk/$1/$2") || atf_fail "dev/disk/$1/$2 missing: $(ls -b dev/disk/$1 2>&1)"
	[ "$t" = "../../$(basename "$3")" ] || atf_fail "dev/disk/$1/$2 -> $t, want ../../$(basename "$3")"
}

# the encoding udev uses, from blkid itself: ID_FS_LABEL_ENC of the device
label_enc() { blkid -p -o udev "$1" | sed -n 's/^ID_FS_LABEL_ENC=//p'; }

atf_test_case links_and_hostile_labels cleanup
links_and_hostile_labels_head() {
	atf_set descr "by-uuid, by-label and by-diskseq links, udev-encoded, for hostile labels too"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup blkid"
}
links_and_hostile_labels_body() {
	setup_root
	mkimg a.img 'plain' 0a0a0a0a-0000-4000-8000-000000000001
	mkimg b.img 'a/b c' 0a0a0a0a-0000-4000-8000-000000000002
	mkimg c.img '..' 0a0a0a0a-0000-4000-8000-000000000003
	mkimg d.img 'new\nline\\x2f' 0a0a0a0a-0000-4000-8000-000000000004
	mkimg e.img '\377\376bad-utf8' 0a0a0a0a-0000-4000-8000-000000000005
	mkimg f.img '0123456789abcdef' 0a0a0a0a-0000-4000-8000-000000000006
	for i in a b c d e f; do attach $i.img > /dev/null; done
	atf_check -s exit:0 -e ignore $ID coldplug --no-devtmpfs $(subtrees)
	n=0
	while read -r l; do
		n=$((n + 1))
		uuid=0a0a0a0a-0000-4000-8000-00000000000$n
		expect_link by-uuid "$uuid" "$l"
		enc=$(label_enc "$l")
		[ -n "$enc" ] || atf_fail "blkid gives no label for $l"
		if [ "$enc" = .. ]; then
			# udev could not create it either: the name is the directory itself
			[ ! -L dev/disk/by-label/.. ] || atf_fail "a '..' link was made"
		else
			expect_link by-label "$enc" "$l"
		fi
		seq=$(cat "/sys/block/$(basename "$l")/diskseq")
		expect_link by-diskseq "$seq" "$l"
	done < loops
	# nothing escaped /dev/disk/by-*: every entry is a symlink one level down
	bad=$(find dev/disk -mindepth 2 ! -type l ! -type d; find dev/disk -mindepth 3 -type d)
	[ -z "$bad" ] || atf_fail "unexpected entries: $bad"
	[ "$(find dev -maxdepth 1 -name '*..*' | wc -l)" = 0 ] || atf_fail "a label made a path"
}
links_and_hostile_labels_cleanup() { cleanup_root; }

atf_test_case detach_and_reattach cleanup
detach_and_reattach_head() {
	atf_set descr "detaching removes the links; attaching another image updates them"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup jq"
}
detach_and_reattach_body() {
	setup_root
	first=$(uniq_label first) second=$(uniq_label second)
	u1=$(uniq_uuid) u2=$(uniq_uuid)
	mkimg one.img "$first" "$u1"
	mkimg two.img "$second" "$u2"
	l=$(attach one.img)
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs $(subtrees)
	atf_check -s exit:0 $ID settle --timeout 30
	expect_link by-label "$first" "$l"
	losetup -d "$l"   # the kernel empties the device and sends change
	i=0
	while [ -e "dev/disk/by-label/$first" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ ! -e "dev/disk/by-label/$first" ] && [ ! -L "dev/disk/by-label/$first" ] ||
		atf_fail "by-label/$first survived the detach"
	[ ! -L "dev/disk/by-uuid/$u1" ] || atf_fail "stale by-uuid"
	# the next image on the first free loop device: once detached, ours may
	# be another process's already (it usually is ours again: a change event
	# on the same device; else a change or add on another)
	l=$(attach two.img)
	atf_check -s exit:0 -o inline:"$PWD/dev/$(basename "$l")\n" \
		$ID wait --timeout 20 "LABEL=$second"
	expect_link by-uuid "$u2" "$l"
	# --timeout 0 is a look (dracut's emergency hook): there, or not, at once
	atf_check -s exit:0 -o inline:"$PWD/dev/$(basename "$l")\n" \
		$ID wait --timeout 0 "LABEL=$second"
	atf_check -s exit:1 -e match:"LABEL=$first is not there; block devices seen" \
		-e match:"/dev/$(basename "$l") .*LABEL=\"$second\"" $ID wait --timeout 0 "LABEL=$first"
	atf_check -s exit:0 $ID exit
}
detach_and_reattach_cleanup() { cleanup_root; }

atf_test_case wait_without_daemon cleanup
wait_without_daemon_head() {
	atf_set descr "initdev wait runs the engine itself; a timeout lists what it saw"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup"
}
wait_without_daemon_body() {
	setup_root
	mkimg w.img 'waitme' 0c0c0c0c-0000-4000-8000-000000000001
	l=$(attach w.img)
	atf_check -s exit:0 -o inline:"$PWD/dev/$(basename "$l")\n" -e ignore \
		$ID wait --timeout 20 --no-devtmpfs $(subtrees) \
		UUID=0c0c0c0c-0000-4000-8000-000000000001
	atf_check -s exit:1 -e match:'LABEL=typo did not appear' -e match:'LABEL="waitme"' \
		$ID wait --timeout 2 --no-devtmpfs $(subtrees) LABEL=typo
	atf_check -s exit:2 -e match:'bad spec' $ID wait /dev/../etc/passwd
	[ ! -e run/pid ] || atf_fail "wait left state behind"
}
wait_without_daemon_cleanup() { cleanup_root; }

atf_test_case udevadm_compat cleanup
udevadm_compat_head() {
	atf_set descr "the udevadm entry point answers dracut's calls with udevadm's exit codes"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup"
}
udevadm_compat_body() {
	setup_root
	mkimg u.img 'compat' 0d0d0d0d-0000-4000-8000-000000000001
	l=$(attach u.img)
	ln -s "$(bin)" udevadm
	export INITDEV_RUN_DIR="$PWD/run"
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --no-coldplug $(subtrees)
	atf_check -s exit:0 ./udevadm control --reload
	atf_check -s exit:0 ./udevadm control --property=hookdir=/lib/dracut/hooks
	atf_check -s exit:0 ./udevadm trigger --type=subsystems --action=add
	atf_check -s exit:0 ./udevadm trigger --type=devices --action=add
	atf_check -s exit:0 ./udevadm settle --timeout=30
	atf_check -s exit:0 ./udevadm settle --timeout=0
	atf_check -s exit:2 -e match:'not supported by initdev' ./udevadm settle --timeout=99999999999
	atf_check -s exit:2 -e match:'not supported by initdev' ./udevadm settle --timeout=-5
	atf_check -s exit:0 ./udevadm settle --exit-if-exists=/etc/hostname
	atf_check -s exit:0 -o match:'^ID_FS_TYPE=ext4$' -o match:'^ID_FS_LABEL=compat$' \
		-o match:'^ID_FS_UUID=0d0d0d0d-0000-4000-8000-000000000001$' \
		-o match:"^DEVNAME=/dev/$(basename "$l")$" -o match:'^SUBSYSTEM=block$' \
		./udevadm info --query=property --name="$PWD/dev/disk/by-label/compat"
	atf_check -s exit:1 -e ignore ./udevadm info --query=property --name=/dev/nonexistent
	atf_check -s exit:2 -e match:'not supported by initdev' ./udevadm monitor
	atf_check -s exit:2 -e match:'not supported by initdev' ./udevadm trigger --action=remove
	atf_check -s exit:0 ./udevadm info --cleanup-db
	atf_check -s exit:0 ./udevadm control --exit
	[ ! -e run/control ] || atf_fail "daemon still there"
	atf_check -s exit:1 ./udevadm settle --timeout=1
}
udevadm_compat_cleanup() { cleanup_root; }

# busy_daemon: a daemon that cannot settle until open_gate. It runs in a
# network namespace of its own (it still hears every kernel event without
# one, block and mem ones among them), whose lo is a device only it hears
# and only this test triggers: that one event of ours is held (a rule
# matches its SYNTH_UUID, its RUN waits for ./open). On a mem device, other
# processes' events for it would pile up behind ours, fill the events the
# daemon takes in hand and stop its reading: the disk's would never come.
# Three workers: one kept free for the root path, one held, one for the rest.
busy_daemon() {
	slow=$(uniq_uuid)
	echo "ENV{SYNTH_UUID}==\"$slow\", RUN+=\"/bin/sh -c ': > $PWD/held; until [ -e $PWD/open ]; do sleep 0.05; done'\"" \
		> udev-rules/50-gate.rules
	atf_check -s exit:0 -e ignore unshare --net --mount sh -c \
		"mount -t sysfs sysfs /sys && exec $ID daemon --no-devtmpfs --no-coldplug --workers 3"
	nsenter -t "$(cat run/pid)" --net --mount sh -c \
		"echo 'change $slow' > /sys/class/net/lo/uevent" || atf_fail "cannot trigger lo"
	wait_for test -e held || atf_fail "the held event never ran"
}
open_gate() { : > open; }
root_awaited() { $ID status | grep -A1 -x 'root_first:' | grep -qx '  active: 1'; }

# expect_busy: the daemon has not settled yet
expect_busy() {
	$ID status > status.out || atf_fail "no status"
	grep -qx 'settled: no' status.out || atf_fail "already settled: the answer may have come from settle"
}

atf_test_case answer_at_appearance cleanup
answer_at_appearance_head() {
	atf_set descr "initdev wait and udevadm settle --exit-if-exists return when the device or file appears, dracut's settle when the root path is done: all while another event is held"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup unshare nsenter"
}
answer_at_appearance_body() {
	setup_root
	appear=$(uniq_label appear)
	mkimg a.img "$appear"
	ln -s "$(bin)" udevadm
	export INITDEV_RUN_DIR="$PWD/run"
	busy_daemon
	# a root is awaited (the wait is in place) before the disk appears
	$ID wait --timeout 60 "LABEL=$appear" > wait.out 2> wait.err &
	waiter=$!
	wait_for root_awaited || atf_fail "the wait never reached the daemon: $(cat wait.err)"
	l=$(attach a.img)
	wait $waiter || atf_fail "wait failed: $(cat wait.err)"
	expect_busy
	[ "$(cat wait.out)" = "$PWD/dev/$(basename "$l")" ] || atf_fail "wait said $(cat wait.out)"
	# a file appearing ends udevadm settle at once (inotify, no slices)
	mkdir hooks
	( sleep 0.3; : > hooks/work ) &
	atf_check -s exit:0 ./udevadm settle --timeout=30 --exit-if-exists="$PWD/hooks/work"
	expect_busy
	# without the file, dracut's settle waits for the root path (a root is
	# awaited), not for the rest: ours is still held. (The root path's
	# "settled" may be 0 again by the next status: a busy host's loop
	# devices are on it too; the time it first settled stays.)
	atf_check -s exit:0 ./udevadm settle --timeout=60
	atf_check -s exit:0 -o match:'^root_first:$' -o match:'^  active: 1$' \
		-o match:'^  settled_ms: [1-9][0-9]*$' $ID status
	expect_busy
	open_gate
	atf_check -s exit:0 $ID settle --timeout 60
	atf_check -s exit:0 $ID exit
}
answer_at_appearance_cleanup() { open_gate; cleanup_root; }

atf_test_case cloned_uuid_first_keeps cleanup
cloned_uuid_first_keeps_head() {
	atf_set descr "two disks with one UUID and label: the first to claim keeps the names, a tie is logged and shown"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup"
}
cloned_uuid_first_keeps_body() {
	setup_root
	uuid=0c0c0c0c-0000-4000-8000-000000000001
	mkimg one.img 'cloned' $uuid
	cp one.img two.img
	low=$(attach one.img)
	high=$(attach two.img)
	# the higher devpath is announced first (its subtree alone is coldplugged)
	$ID daemon --foreground --no-devtmpfs \
		--subtree "/devices/virtual/block/$(basename "$high")" 2> daemon.log &
	i=0
	while [ ! -S run/control ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	atf_check -s exit:0 $ID settle --timeout 30
	expect_link by-uuid $uuid "$high"
	# the lower devpath comes second; it used to take the names over
	echo change > "/sys/block/$(basename "$low")/uevent"
	atf_check -s exit:0 $ID settle --timeout 30
	i=0
	while [ ! -e "dev/$(basename "$low")" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	atf_check -s exit:0 $ID settle --timeout 30
	expect_link by-uuid $uuid "$high"
	expect_link by-label cloned "$high"
	atf_check -s exit:0 -o inline:"$PWD/dev/$(basename "$high")\n" $ID wait --timeout 5 UUID=$uuid
	atf_check -s exit:0 -o match:"conflicts: 2" \
		-o match:"conflict: disk/by-uuid/$uuid: /dev/$(basename "$high") keeps it; /dev/$(basename "$low") claims it too" \
		$ID status
	grep -q "disk/by-uuid/$uuid: claimed by /dev/$(basename "$high") and /dev/$(basename "$low") at the same priority; /dev/$(basename "$high") keeps it (it claimed the name first)" daemon.log ||
		atf_fail "tie not logged: $(cat daemon.log)"
	atf_check -s exit:0 $ID exit
}
cloned_uuid_first_keeps_cleanup() { cleanup_root; }

atf_init_test_cases() {
	atf_add_test_case answer_at_appearance
	atf_add_test_case cloned_uuid_first_keeps
	atf_add_test_case links_and_hostile_labels
	atf_add_test_case detach_and_reattach
	atf_add_test_case wait_without_daemon
	atf_add_test_case udevadm_compat
}
