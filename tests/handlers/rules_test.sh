#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The udev rules handler in the daemon, against the real kernel on loop
# devices: /dev is a private tmpfs, nodes made with mknod, coldplug limited
# to the loop devices the test attaches. Symlinks, owner/group/mode, RUN
# (after the native handlers, with the native ID_FS_* visible), the event
# timeout, reload, and removal.

bin() { echo "$(atf_get_srcdir)/../../initdev"; }

setup_root() {
	mkdir dev run udev-rules
	mount -t tmpfs -o mode=0755 initdev-test "$PWD/dev" || atf_skip "cannot mount tmpfs"
	: > cmdline
	ID="$(bin) --log-target stderr --dev $PWD/dev --run $PWD/run --cmdline $PWD/cmdline --udev-rules $PWD/udev-rules"
	: > loops
}

cleanup_root() {
	[ -f run/pid ] && kill "$(cat run/pid)" 2>/dev/null && sleep 0.2
	umount "$PWD/dev" 2>/dev/null
	[ -f loops ] && while read -r l; do losetup -d "$l" 2>/dev/null; done < loops
	true
}

mkimg() { # FILE LABEL
	truncate -s 4M "$1"
	mkfs.ext4 -q -F -L "$2" "$1" || atf_fail "mkfs.ext4 $1"
}

attach() { # IMG -> prints /dev/loopN
	l=$(losetup --find --show "$1") || atf_skip "no loop devices here"
	echo "$l" >> loops
	echo "$l"
}

subtrees() {
	while read -r l; do printf ' --subtree /devices/virtual/block/%s' "$(basename "$l")"; done < loops
}

# wait_for CMD...: up to 10 s for CMD to succeed
wait_for() {
	i=0
	until "$@"; do
		[ $i -lt 100 ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

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
	cat > udev-rules/60-test.rules <<EOF
SUBSYSTEM!="block", GOTO="end"
KERNEL!="loop[0-9]*", GOTO="end"
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
	attach a.img > /dev/null
	cat > udev-rules/60-test.rules <<EOF
KERNEL=="loop[0-9]*", RUN+="/bin/sh -c 'exit 7'", RUN+="/bin/sleep 30", RUN+="/bin/sh -c 'touch $PWD/after'"
EOF
	start=$(date +%s)
	atf_check -s exit:0 -e save:err $ID coldplug --no-devtmpfs --timeout 60 $(subtrees)
	took=$(( $(date +%s) - start ))
	[ "$took" -ge 2 ] && [ "$took" -lt 20 ] || atf_fail "coldplug took $took s (timeout 2 s)"
	grep -q "exit 7'' failed with exit code 7" err || atf_fail "no exit status logged: $(cat err)"
	grep -q "sleep 30' timed out, killed" err || atf_fail "no kill logged: $(cat err)"
	# past the deadline the rest of the list is not started (and that is logged)
	[ ! -e after ] || atf_fail "a RUN entry started after the event's time was up"
	grep -q "after'' not run: the event's time is up" err || atf_fail "skip not logged: $(cat err)"
	! pgrep -f '^/bin/sleep 30$' > /dev/null || atf_fail "the slow program lives on"
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

atf_init_test_cases() {
	atf_add_test_case property_and_info
	atf_add_test_case links_perms_run
	atf_add_test_case reload_and_remove
	atf_add_test_case run_timeout_and_failure
}
