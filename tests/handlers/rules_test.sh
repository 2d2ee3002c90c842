#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The udev rules handler in the daemon, against the real kernel on loop
# devices: /dev is a private tmpfs, nodes made with mknod, coldplug limited
# to the loop devices the test attaches. Symlinks, owner/group/mode, RUN
# (after the native handlers, with the native ID_FS_* visible), the event
# timeout, reload, and removal.

. "$(dirname "$0")/../host-lib.sh"

atf_test_case links_perms_run cleanup
links_perms_run_head() {
	atf_set descr "rules see the native ID_FS_*, make links below /dev, set the node's mode, and RUN after"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup"
}
links_perms_run_body() {
	setup_root
	mkimg a.img rtlabel
	l=$(attach a.img)
	k=$(basename "$l")
	# our device only: another process's ext4 loop device would RUN too
	cat > udev-rules/60-test.rules <<EOF
SUBSYSTEM!="block", GOTO="end"
KERNEL!="$k", GOTO="end"
ENV{ID_FS_TYPE}=="ext4", SYMLINK+="rt/\$env{ID_FS_LABEL_ENC}", SYMLINK+="disk/by-id/rt-%k"
ENV{ID_FS_TYPE}=="ext4", GROUP="6", MODE="0640", ENV{RT_SEEN}="1"
ENV{RT_SEEN}=="1", RUN+="/bin/sh -c 'echo \$\$DEVNAME \$\$ID_FS_LABEL \$\$RT_SEEN >> $PWD/ran'"
SYMLINK+="rt/../escape", SYMLINK+="rt/../../outside"
LABEL="end"
EOF
	atf_check -s exit:0 -o empty -e ignore $(bin) rules check udev-rules
	atf_check -s exit:0 -e ignore $ID coldplug --no-devtmpfs $(subtrees)
	[ "$(readlink dev/rt/rtlabel)" = "../$k" ] || atf_fail "rt/rtlabel: $(ls -lR dev/rt)"
	[ "$(readlink dev/disk/by-id/rt-$k)" = "../../$k" ] || atf_fail "by-id/rt-$k"
	[ "$(readlink dev/disk/by-label/rtlabel)" = "../../$k" ] || atf_fail "native link lost"
	[ "$(stat -c '%a %g' dev/$k)" = "640 6" ] || atf_fail "mode/group: $(stat -c '%a %g' dev/$k)"
	# RUN ran once, after the rules, with the event's and the rules' properties
	[ "$(cat ran)" = "/dev/$k rtlabel 1" ] || atf_fail "RUN output: $(cat ran 2>&1)"
	# nothing outside /dev, no ".." link
	[ ! -e outside ] && [ ! -e dev/escape ] && [ ! -L dev/rt/.. ] || atf_fail "a link escaped"
}
links_perms_run_cleanup() { cleanup_root; }

atf_test_case reload_and_remove cleanup
reload_and_remove_head() {
	atf_set descr "udevadm control --reload takes new rules; a change event applies them; detach removes the links"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup"
}
reload_and_remove_body() {
	setup_root
	mkimg a.img first
	l=$(attach a.img)
	k=$(basename "$l")
	echo 'KERNEL=="loop[0-9]*", ENV{ID_FS_LABEL}=="?*", SYMLINK+="old/$env{ID_FS_LABEL}"' \
		> udev-rules/60-test.rules
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs $(subtrees)
	atf_check -s exit:0 $ID settle --timeout 30
	[ "$(readlink dev/old/first)" = "../$k" ] || atf_fail "old/first missing"
	# a hook writes rules at boot, then reloads (as dracut's parse-crypt.sh does)
	echo 'KERNEL=="loop[0-9]*", ENV{ID_FS_LABEL}=="?*", SYMLINK+="new/$env{ID_FS_LABEL}"' \
		> udev-rules/60-test.rules
	ln -s "$(bin)" udevadm
	atf_check -s exit:0 env INITDEV_RUN_DIR="$PWD/run" ./udevadm control --reload
	echo change > "/sys/class/block/$k/uevent"
	atf_check -s exit:0 $ID settle --timeout 30
	wait_for test -L dev/new/first || atf_fail "new rules not applied after reload"
	[ ! -L dev/old/first ] || atf_fail "the link the old rules made survived"
	losetup -d "$l"
	wait_for test ! -L dev/disk/by-label/first || atf_fail "native link survived the detach"
	[ ! -L dev/new/first ] || atf_fail "rules link survived the detach"
	atf_check -s exit:0 $ID exit
}
reload_and_remove_cleanup() { cleanup_root; }

atf_test_case run_timeout_and_failure cleanup
run_timeout_and_failure_head() {
	atf_set descr "a RUN program past rd.initdev.event_timeout is killed and logged, later ones skipped; coldplug waits for it; a failing one is logged with its status"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup"
}
run_timeout_and_failure_body() {
	setup_root
	echo 'rd.initdev.event_timeout=2' > cmdline
	mkimg a.img t
	k=$(basename "$(attach a.img)")
	# only our device's coldplug add runs the list: each other loop
	# device's event (a busy host attaches and detaches them), or a change
	# someone writes to ours, would run it too and keep coldplug from
	# settling; the sleep's argument is ours alone, so pgrep sees no other
	# run's sleep
	nap=30.$$
	cat > udev-rules/60-test.rules <<EOF
ACTION=="add", KERNEL=="$k", RUN+="/bin/sh -c 'exit 7'", RUN+="/bin/sleep $nap", RUN+="/bin/sh -c 'touch $PWD/after'"
EOF
	start=$(date +%s)
	atf_check -s exit:0 -e save:err $ID coldplug --no-devtmpfs --timeout 60 $(subtrees)
	took=$(( $(date +%s) - start ))
	[ "$took" -ge 2 ] && [ "$took" -lt 20 ] || atf_fail "coldplug took $took s (timeout 2 s)"
	grep -q "exit 7'' failed with exit code 7" err || atf_fail "no exit status logged: $(cat err)"
	grep -q "sleep $nap' timed out, killed" err || atf_fail "no kill logged: $(cat err)"
	# past the deadline the rest of the list is not started (and that is logged)
	[ ! -e after ] || atf_fail "a RUN entry started after the event's time was up"
	grep -q "after'' not run: the event's time is up" err || atf_fail "skip not logged: $(cat err)"
	! pgrep -f "^/bin/sleep $nap\$" > /dev/null || atf_fail "the slow program lives on"
}
run_timeout_and_failure_cleanup() { cleanup_root; }

atf_test_case property_and_info cleanup
property_and_info_head() {
	atf_set descr "udevadm control --property reaches ENV{} matches of later events; udevadm info shows what the rules set"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup"
}
property_and_info_body() {
	setup_root
	mkimg a.img p
	l=$(attach a.img)
	k=$(basename "$l")
	cat > udev-rules/60-test.rules <<'EOF'
KERNEL=="loop[0-9]*", ENV{rd_NO_MD}=="?*", SYMLINK+="nomd/%k", ENV{SAW_GLOBAL}="$env{rd_NO_MD}|"
KERNEL=="loop[0-9]*", ENV{MD_LEVEL}="raid1", ENV{.TEMP}="x"
EOF
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs $(subtrees)
	atf_check -s exit:0 $ID settle --timeout 30
	[ ! -L "dev/nomd/$k" ] || atf_fail "a global property nobody set matched"
	ln -s "$(bin)" udevadm
	U="env INITDEV_RUN_DIR=$PWD/run INITDEV_DEV_DIR=$PWD/dev ./udevadm"
	atf_check -s exit:0 $U control --property=rd_NO_MD=1
	echo change > "/sys/class/block/$k/uevent"
	atf_check -s exit:0 $ID settle --timeout 30
	wait_for test -L "dev/nomd/$k" || atf_fail "the global property did not reach ENV{} matches"
	# as in udev, a global property is not a device property ($env{} is empty)
	atf_check -s exit:0 -o match:"^SAW_GLOBAL=\|$" -o match:"^MD_LEVEL=raid1$" \
		-o match:"^ID_FS_TYPE=ext4$" -o not-match:"TEMP" $U info --query=property --name="/dev/$k"
	atf_check -s exit:0 $U control --property=rd_NO_MD=
	echo change > "/sys/class/block/$k/uevent"
	atf_check -s exit:0 $ID settle --timeout 30
	wait_for test ! -L "dev/nomd/$k" || atf_fail "removing the global property changed nothing"
	atf_check -s exit:0 $ID exit
}
property_and_info_cleanup() { cleanup_root; }

atf_test_case db_persist_entries cleanup
db_persist_entries_head() {
	atf_set descr "a device whose rules set db_persist gets udev's database entry with mode 01644 (S:/I:/E:/V:, link index), others 0644; udevadm info --cleanup-db keeps exactly the 01644 one; once its rules stop asking, it is rewritten 0644 without the link; udevadm info -q path and short options"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup"
}
db_persist_entries_body() {
	setup_root
	mkimg a.img keep
	mkimg b.img plain
	la=$(attach a.img)
	lb=$(attach b.img)
	ka=$(basename "$la") kb=$(basename "$lb")
	ida="b$(cat "/sys/class/block/$ka/dev")"
	idb="b$(cat "/sys/class/block/$kb/dev")"
	# as 55-dm.rules and 11-dm.rules do for a dm device
	cat > udev-rules/60-test.rules <<'RULES'
KERNEL!="loop[0-9]*", GOTO="end"
ENV{ID_FS_LABEL}=="keep", ENV{DM_NAME}="vg-%k", ENV{DM_UDEV_PRIMARY_SOURCE_FLAG}="1", ENV{.NOT_KEPT}="1"
ENV{DM_NAME}=="?*", SYMLINK+="mapper/$env{DM_NAME}", OPTIONS+="db_persist"
LABEL="end"
RULES
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs $(subtrees)
	atf_check -s exit:0 $ID settle --timeout 30
	[ "$(stat -c %a "udev/data/$ida")" = 1644 ] || atf_fail "no 01644 entry: $(ls -l udev/data 2>&1)"
	# every device gets its entry, as with udevd; without db_persist not sticky
	[ "$(stat -c %a "udev/data/$idb")" = 644 ] || atf_fail "no 0644 entry: $(ls -l udev/data 2>&1)"
	f=udev/data/$ida
	grep -qx "S:mapper/vg-$ka" "$f" && grep -qx "S:disk/by-label/keep" "$f" &&
		grep -qx "E:DM_NAME=vg-$ka" "$f" && grep -qx "E:DM_UDEV_PRIMARY_SOURCE_FLAG=1" "$f" &&
		grep -qx "E:ID_FS_LABEL=keep" "$f" && grep -q '^I:[1-9][0-9]*$' "$f" &&
		[ "$(tail -n 1 "$f")" = V:1 ] || atf_fail "entry: $(cat "$f")"
	! grep -q -e NOT_KEPT -e '^E:DEVNAME=' -e '^E:ACTION=' "$f" ||
		atf_fail "event or temporary properties in the entry: $(cat "$f")"
	[ "$(readlink "udev/links/mapper\\x2fvg-$ka/$ida")" = "0:/dev/$ka" ] ||
		atf_fail "link index: $(ls -lR udev/links)"
	# what udevd would have left for other devices goes; ours stays
	echo 'V:1' > udev/data/b7:999
	mkdir -p 'udev/links/disk\x2fby-label\x2fkeep'
	ln -s 0:/dev/x 'udev/links/disk\x2fby-label\x2fkeep/b7:999'
	ln -s "$(bin)" udevadm
	U="env INITDEV_RUN_DIR=$PWD/run INITDEV_DEV_DIR=$PWD/dev ./udevadm"
	atf_check -s exit:0 $U info --cleanup-db
	[ -e "udev/data/$ida" ] && [ ! -e udev/data/b7:999 ] && [ ! -e "udev/data/$idb" ] ||
		atf_fail "cleanup-db: $(ls udev/data)"
	[ -L "udev/links/disk\\x2fby-label\\x2fkeep/$ida" ] &&
		[ ! -L 'udev/links/disk\x2fby-label\x2fkeep/b7:999' ] ||
		atf_fail "cleanup-db, links: $(ls -lR udev/links)"
	# mdraid_start.sh's call, and udevadm's short options
	atf_check -s exit:0 -o inline:"/devices/virtual/block/$ka\n" $U info -q path -n "/dev/$ka"
	atf_check -s exit:0 -o inline:"/devices/virtual/block/$ka\n" $U info -q path -n "mapper/vg-$ka"
	atf_check -s exit:0 -o match:"^DM_NAME='vg-$ka'$" $U info -x -q property -p "/sys/devices/virtual/block/$ka"
	atf_check -s exit:0 -o match:"^DM_NAME=vg-$ka$" $U info --query=env "/dev/$ka"
	atf_check -s exit:2 -e match:"not supported by initdev" $U info -a -n "/dev/$ka"
	atf_check -s exit:1 -e match:"device node not found" $U info -q path -n /dev/nothing-here
	# detached, the device's rules no longer ask for db_persist (its change
	# event has no label): its entry stays, as udevd rewrites it, not sticky
	# and without the mapper link
	losetup -d "$la"
	wait_for test "$(stat -c %a "udev/data/$ida")" = 644 || atf_fail "still sticky: $(ls -l udev/data)"
	! grep -q "^S:mapper/" "udev/data/$ida" || atf_fail "entry: $(cat "udev/data/$ida")"
	wait_for test ! -L "udev/links/mapper\\x2fvg-$ka/$ida" || atf_fail "the index outlived it"
	atf_check -s exit:0 $ID exit
}
db_persist_entries_cleanup() { cleanup_root; }

atf_test_case wait_and_report_stacked_names cleanup
wait_and_report_stacked_names_head() {
	atf_set descr "initdev wait finds /dev/mapper and /dev/md names and by-uuid links the rules make; its report of the devices seen names their mapper/ and md/ names"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup blkid"
}
wait_and_report_stacked_names_body() {
	setup_root
	mkimg a.img inner
	mkimg b.img array
	la=$(attach a.img)
	lb=$(attach b.img)
	ka=$(basename "$la") kb=$(basename "$lb")
	uuid=$(blkid -o value -s UUID a.img)
	# the names 55-dm.rules, 60-persistent-storage-dm.rules and 63-md-raid-arrays.rules give
	cat > udev-rules/60-test.rules <<'RULES'
KERNEL!="loop[0-9]*", GOTO="end"
ENV{ID_FS_LABEL}=="inner", ENV{DM_NAME}="vg-root", SYMLINK+="mapper/$env{DM_NAME}", SYMLINK+="disk/by-id/dm-name-$env{DM_NAME}"
ENV{ID_FS_LABEL}=="array", ENV{MD_DEVNAME}="r/oot", SYMLINK+="md/$env{MD_DEVNAME}"
LABEL="end"
RULES
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs $(subtrees)
	atf_check -s exit:0 -o inline:"$PWD/dev/mapper/vg-root\n" $ID wait --timeout 10 /dev/mapper/vg-root
	atf_check -s exit:0 -o inline:"$PWD/dev/md/r/oot\n" $ID wait --timeout 10 /dev/md/r/oot
	atf_check -s exit:0 -o inline:"$PWD/dev/$ka\n" $ID wait --timeout 10 "UUID=$uuid"
	atf_check -s exit:0 -o ignore $ID wait --timeout 10 /dev/disk/by-id/dm-name-vg-root
	# the emergency hook's look: a root that is not there, and what was
	atf_check -s exit:1 -e save:err $ID wait --timeout 0 /dev/mapper/vg-home
	grep -q "/dev/mapper/vg-home is not there" err || atf_fail "$(cat err)"
	grep -q "^  /dev/$ka ([0-9]*:[0-9]*) mapper/vg-root: TYPE=\"ext4\" UUID=\"$uuid\" LABEL=\"inner\"" err ||
		atf_fail "the dm name is not in the report: $(cat err)"
	grep -q "^  /dev/$kb ([0-9]*:[0-9]*) md/r/oot: TYPE=\"ext4\"" err ||
		atf_fail "the md name is not in the report: $(cat err)"
	atf_check -s exit:0 $ID exit
}
wait_and_report_stacked_names_cleanup() { cleanup_root; }

atf_test_case ddf_revision_forges_no_line cleanup
ddf_revision_forges_no_line_head() {
	atf_set descr "issue 21: a DDF RAID header whose revision is \"\\rS:vda\" (ID_FS_VERSION through libblkid) forges no line in a db_persist device's udev database entry: the value is left out and logged, and systemd's udevadm info reads no S:vda from the entry"
	atf_set require.user root
	atf_set require.progs "losetup"
}
# mkddf FILE REVISION: a 4 MiB image whose last sector holds a DDF header
# (libblkid's ddf_raid probe: big-endian magic 0xDE11DE11, a 24-byte GUID,
# the 8-byte revision it reports as VERSION; primary_lba 0, so no other
# header is checked). The generator of the fixture: no image is committed.
mkddf() {
	truncate -s 4M "$1"
	# shellcheck disable=SC2059 # the revision's escapes are the point
	printf '\336\021\336\021\0\0\0\0initdev-ddf-forge-test00'"$2" |
		dd of="$1" bs=512 seek=8191 conv=notrunc status=none || atf_fail "mkddf $1"
}
ddf_revision_forges_no_line_body() {
	setup_root
	mkddf ddf.img '\rS:vda\0\0'
	l=$(attach ddf.img)
	k=$(basename "$l")
	id="b$(cat "/sys/class/block/$k/dev")"
	# as 59-persistent-storage-md.rules keeps an md array's entry
	cat > udev-rules/60-test.rules <<'RULES'
KERNEL=="loop[0-9]*", ENV{ID_FS_TYPE}=="ddf_raid_member", SYMLINK+="ddf/%k", OPTIONS+="db_persist"
RULES
	atf_check -s exit:0 -e save:err $ID coldplug --no-devtmpfs --timeout 60 $(subtrees)
	f=udev/data/$id
	[ -f "$f" ] || atf_fail "no entry for $k: $(ls -l udev/data 2>&1)"
	grep -qx "S:ddf/$k" "$f" && grep -qx "E:ID_FS_TYPE=ddf_raid_member" "$f" &&
		[ "$(tail -n 1 "$f")" = V:1 ] || atf_fail "entry: $(od -c "$f")"
	! grep -q "$(printf '\r')" "$f" || atf_fail "a carriage return in the entry: $(od -c "$f")"
	! grep -q ID_FS_VERSION "$f" || atf_fail "the forged value was written: $(od -c "$f")"
	# what, where and why, in the daemon's log
	grep -q "udev database data/$id: 1 field(s) left out, the first E:ID_FS_VERSION: the value holds a carriage return at byte 0" err ||
		atf_fail "no log line for the refused value: $(cat err)"
	# systemd's own reader on the entry (udevadm info reads /run/udev/data; no udevd runs)
	if udevadm --version 2>/dev/null | grep -qx '25[0-9]'; then
		unshare -m sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/udev && cp -a udev/data /run/udev/ &&
			udevadm info "/dev/$1"' sh "$k" > info.out 2>&1 || atf_fail "udevadm info: $(cat info.out)"
		grep -q "^S: ddf/$k$" info.out || atf_fail "udevadm info did not read the entry: $(cat info.out)"
		! grep -q -e '^S: vda' -e 'DEVLINKS=.*/dev/vda' info.out ||
			atf_fail "udevadm info shows a forged link: $(cat info.out)"
	fi
}
ddf_revision_forges_no_line_cleanup() { cleanup_root; }

# attach_dev IMG: attach IMG; sets l (/dev/loopN), k (loopN) and id (its
# udev database id, bMAJ:MIN)
attach_dev() {
	l=$(attach "$1")
	k=$(basename "$l")
	id="b$(cat "/sys/class/block/$k/dev")"
}

# systemd_info DEV: systemd 25x's own `udevadm info --query=all` on /dev/DEV,
# reading ./udev as /run/udev (a private mount namespace: a tmpfs /run with
# our database bound on /run/udev; the host's /run/udev is never touched);
# output in info.out. Skips unless systemd's udevadm is there.
systemd_info() {
	udevadm --version 2> /dev/null | grep -qx '25[0-9]' ||
		atf_skip "systemd 25x's udevadm is not installed (the reader this checks against)"
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs tmpfs /run && mkdir /run/udev &&
		mount --bind "$2/udev" /run/udev && udevadm info --query=all "/dev/$1"' sh "$1" "$PWD" \
		> info.out 2>&1 || atf_fail "udevadm info: $(cat info.out)"
}

atf_test_case every_device_entry_read_by_systemd cleanup
every_device_entry_read_by_systemd_head() {
	atf_set descr "issue 20: every handled device gets udev's database entry, not only db_persist ones (0644: links, the rules' properties, tags, I:; the tags index), and systemd's own udevadm info reads it as a device udevd initialized; cleanup-db removes it, the next event writes it again, a remove event deletes it"
	atf_set require.user root
	atf_set require.progs "mkfs.ext4 losetup unshare"
}
every_device_entry_read_by_systemd_body() {
	setup_root
	mkimg a.img "$(uniq_label sd)"
	attach_dev a.img
	# as 99-systemd.rules tags block devices; nothing asks for db_persist
	echo 'KERNEL=="'"$k"'", ENV{ID_INITDEV_SEEN}="yes", TAG+="systemd", SYMLINK+="sdtest/%k"' \
		> udev-rules/60-test.rules
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs $(subtrees)
	atf_check -s exit:0 $ID settle --timeout 30
	f=udev/data/$id
	[ "$(stat -c %a "$f")" = 644 ] || atf_fail "no 0644 entry: $(ls -l udev/data 2>&1)"
	grep -qx "S:sdtest/$k" "$f" && grep -qx "E:ID_INITDEV_SEEN=yes" "$f" &&
		grep -qx "G:systemd" "$f" && grep -qx "Q:systemd" "$f" &&
		grep -q '^I:[1-9][0-9]*$' "$f" && [ "$(tail -n 1 "$f")" = V:1 ] ||
		atf_fail "entry: $(cat "$f")"
	[ -f "udev/tags/systemd/$id" ] || atf_fail "tags index: $(ls -lR udev/tags 2>&1)"
	systemd_info "$k"
	for want in "S: sdtest/$k" "E: ID_INITDEV_SEEN=yes" "E: TAGS=:systemd:" \
		"E: CURRENT_TAGS=:systemd:" "E: ID_FS_TYPE=ext4"; do
		grep -qx "$want" info.out || atf_fail "udevadm info lacks '$want': $(cat info.out)"
	done
	# sd-device has USEC_INITIALIZED only from a database entry
	grep -q '^E: USEC_INITIALIZED=[1-9][0-9]*$' info.out ||
		atf_fail "not initialized for systemd: $(cat info.out)"
	ln -s "$(bin)" udevadm
	atf_check -s exit:0 env INITDEV_RUN_DIR="$PWD/run" ./udevadm info --cleanup-db
	[ ! -e "$f" ] && [ ! -e "udev/tags/systemd/$id" ] ||
		atf_fail "cleanup-db left: $(ls -lR udev)"
	echo change > "/sys/class/block/$k/uevent"
	wait_for test -f "$f" || atf_fail "no entry after a change"
	# a loop device stays when detached: its remove event, written to its uevent file
	echo remove > "/sys/class/block/$k/uevent"
	wait_for test ! -e "$f" || atf_fail "the entry outlived the device"
	wait_for test ! -e "udev/tags/systemd/$id" || atf_fail "the tags index outlived the device"
	atf_check -s exit:0 $ID exit
}
every_device_entry_read_by_systemd_cleanup() { cleanup_root; }

atf_test_case line_end_never_written cleanup
line_end_never_written_head() {
	atf_set descr "issue 20: without db_persist too, a value holding a carriage return (a DDF header's revision \"\\rS:vda\" as ID_FS_VERSION) is never written into the device's entry, the refusal is logged, and systemd's udevadm info reads no forged link"
	atf_set require.user root
	atf_set require.progs "losetup unshare"
}
line_end_never_written_body() {
	setup_root
	mkddf ddf.img '\rS:vda\0\0'
	attach_dev ddf.img
	echo 'KERNEL=="'"$k"'", ENV{ID_FS_TYPE}=="ddf_raid_member", SYMLINK+="ddf/%k"' \
		> udev-rules/60-test.rules
	atf_check -s exit:0 -e save:err $ID coldplug --no-devtmpfs --timeout 60 $(subtrees)
	f=udev/data/$id
	[ "$(stat -c %a "$f")" = 644 ] || atf_fail "no 0644 entry for $k: $(ls -l udev/data 2>&1)"
	grep -qx "S:ddf/$k" "$f" && grep -qx "E:ID_FS_TYPE=ddf_raid_member" "$f" ||
		atf_fail "entry: $(od -c "$f")"
	! grep -q "$(printf '\r')" "$f" || atf_fail "a carriage return in the entry: $(od -c "$f")"
	! grep -q ID_FS_VERSION "$f" || atf_fail "the forged value was written: $(od -c "$f")"
	grep -q "udev database data/$id: 1 field(s) left out, the first E:ID_FS_VERSION" err ||
		atf_fail "no log line for the refused value: $(cat err)"
	systemd_info "$k"
	grep -qx "S: ddf/$k" info.out || atf_fail "udevadm info did not read the entry: $(cat info.out)"
	! grep -q -e '^S: vda' -e 'DEVLINKS=.*/dev/vda' info.out ||
		atf_fail "udevadm info shows a forged link: $(cat info.out)"
}
line_end_never_written_cleanup() { cleanup_root; }

atf_init_test_cases() {
	atf_add_test_case ddf_revision_forges_no_line
	atf_add_test_case db_persist_entries
	atf_add_test_case every_device_entry_read_by_systemd
	atf_add_test_case line_end_never_written
	atf_add_test_case wait_and_report_stacked_names
	atf_add_test_case property_and_info
	atf_add_test_case links_perms_run
	atf_add_test_case reload_and_remove
	atf_add_test_case run_timeout_and_failure
}
