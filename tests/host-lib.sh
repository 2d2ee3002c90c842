# SPDX-License-Identifier: MIT
# What the host tests that run initdev against the real kernel share
# (sourced by tests/cli/{daemon,report}_test and tests/handlers/{disk,rules}_test).
#
# The kernel, its uevents and its loop devices are shared with every other
# process on the host: another test suite, a losetup loop, udisks. A daemon
# under test hears all their events (--subtree limits its coldplug, not
# what it hears), so a test here stays exact by:
#  - working in a private tmpfs /dev and a run dir of its own (setup_root);
#  - giving its images labels and UUIDs no other run uses (uniq_label,
#    uniq_uuid): a second copy of the suite must not answer its wait;
#  - asserting on its own devices, found by their paths (the loop devices
#    it attached, in ./loops), never on the absence of everything else;
#  - never reusing a loop device it detached (another process may hold it
#    by then) and matching rules only on its own devices' names;
#  - slowing only its own events when it needs a busy daemon.
# scripts/loop-stress makes that noise on purpose (its header says how).

bin() { echo "$(atf_get_srcdir)/../../initdev"; }

# setup_root: dev/ (a private tmpfs), run/, an empty cmdline and rules dir,
# and $ID, the command line every call uses (atf_check runs programs, not
# functions)
setup_root() {
	mkdir dev run udev-rules
	mount -t tmpfs -o mode=0755 initdev-test "$PWD/dev" || atf_skip "cannot mount tmpfs"
	: > cmdline
	: > loops
	ID="$(bin) --log-target stderr --dev $PWD/dev --run $PWD/run --cmdline $PWD/cmdline --udev-rules $PWD/udev-rules"
}

# cleanup_root: stop this test's daemon, unmount dev/, detach the loop
# devices it attached. The pid in run/pid is killed only if that process
# is a daemon of this run dir (a stale pid may belong to anyone by now).
cleanup_root() {
	if [ -f run/pid ]; then
		p=$(cat run/pid)
		case " $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null)" in
		*" --run $PWD/run "*)
			kill "$p" 2> /dev/null
			i=0
			while [ -d "/proc/$p" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done ;;
		esac
	fi
	umount "$PWD/dev" 2> /dev/null
	[ -f loops ] && while read -r l; do losetup -d "$l" 2> /dev/null; done < loops
	true
}

# uniq_label WORD: WORD and this test's pid, an ext4 label (16 bytes at most)
# that no other run on the host uses
uniq_label() { echo "$1-$$"; }

# uniq_uuid: a random UUID, for the same reason
uniq_uuid() { cat /proc/sys/kernel/random/uuid; }

# mkimg FILE LABEL [UUID]: a 4 MiB ext4 image (labels are bytes: printf
# escapes work)
mkimg() {
	truncate -s 4M "$1"
	mkfs.ext4 -q -F ${3:+-U "$3"} -L "$(printf "$2")" "$1" || atf_fail "mkfs.ext4 $1"
}

# attach IMG: the first free loop device, prints /dev/loopN, kept in ./loops
attach() {
	l=$(losetup --find --show "$1") || atf_skip "no loop devices here"
	echo "$l" >> loops
	echo "$l"
}

# subtrees: --subtree for each loop device attached, for coldplug
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
