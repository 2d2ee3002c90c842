#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The socket handoff across a real switch_root, under QEMU/TCG: a dracut
# image with initdev (dracut's init.sh calls `udevadm control --exit`, which
# makes initdev the holder) boots a root that carries Debian's own
# systemd-udevd. Before starting it, the root's init raises kernel uevents
# (writes "change" to mem devices' uevent files): the kernel queues them in
# the held socket. udevd, started through `initdev adopt`, must then handle
# each of them (its debug log names their SEQNUM; its database, by a test
# rule, records it). The same boot with rd.initdev.handoff=0 loses them,
# and a holder killed before adoption leaves the root booting normally.
#
# Inputs as for initdev_test (the staged install: INITDEV_STAGE_ENV or the
# kyua variable stage_env; BOOT_CACHE); the image is the same as
# initdev_test's, so a shared BOOT_CACHE builds it once. While developing:
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     atf-sh /work/main/tests/boot/handoff_test.sh -s /work/main/tests/boot CASE

STOCK_MODULES="base rootfs-block udev-rules"
DRIVERS="virtio_pci virtio_blk virtio_scsi sd_mod nvme ext4"
ROOT_UUID=7b1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f
ROOT_LABEL=handoffroot
BOOT_TIMEOUT=150
# The devices the root's init raises events for before udevd runs: mem
# devices, present in every kernel, touched by nothing else at that point.
RAISED="null zero full random urandom"

# Next to this program (atf_get_srcdir is not known yet at this point).
# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

# handoff_init FILE: the root's /sbin/init for these cases. It reports the
# holder, raises the events (HANDOFF-RAISED name seqnum), starts udevd
# through `initdev adopt`, raises one more event once udevd listens (the
# sentinel: when udevd has it, it has read everything queued before it),
# waits for udevd to settle, reports what udevd saw and stored, and goes
# on to the report init (which powers off).
handoff_init() {
	{
		boot_init_head /bin:/usr/sbin
		cat <<'EOF'
holder=
for p in /proc/[0-9]*; do
	a0=$(tr '\0' '\n' < "$p/cmdline" 2> /dev/null | head -n 1)
	[ "$a0" = @initdev-holder ] && holder=${p#/proc/}
done
echo "HANDOFF-HOLDER ${holder:-none}"
case " $(cat /proc/cmdline) " in
*" initdev.test=kill-holder "*)
	if [ -n "$holder" ]; then
		kill -9 "$holder"
		while [ -e "/proc/$holder" ]; do sleep 0.1; done
		echo "HANDOFF-KILLED $holder"
	fi ;;
esac
for d in null zero full random urandom; do
	echo change > "/sys/devices/virtual/mem/$d/uevent"
	echo "HANDOFF-RAISED $d $(cat /sys/kernel/uevent_seqnum)"
done
mkdir -p /run/udev
# as systemd-udevd.service runs it (foreground), or as sysvinit and OpenRC
# start scripts do (--daemon: it must take the socket before it forks)
case " $(cat /proc/cmdline) " in
*" initdev.test=daemon "*)
	initdev adopt --timeout 5 -- /lib/systemd/systemd-udevd --daemon --debug > /run/udevd.log 2>&1
	echo "HANDOFF-DAEMON exit $?" ;;
*) initdev adopt --timeout 5 -- /lib/systemd/systemd-udevd --debug > /run/udevd.log 2>&1 & ;;
esac
# generous waits (60 s, 30 s): TCG on a busy host can slow udevd's start a lot
c=0
while [ ! -S /run/udev/control ] && [ $c -lt 600 ]; do sleep 0.1; c=$((c + 1)); done
echo change > /sys/devices/virtual/mem/kmsg/uevent
echo "HANDOFF-SENTINEL kmsg $(cat /sys/kernel/uevent_seqnum)"
i=0
while ! grep -q '^E:INITDEV_TEST_SEQNUM=' /run/udev/data/c1:11 2> /dev/null && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "HANDOFF-WAITED control ${c}00ms, database ${i}00ms"
udevadm settle --timeout=20 || echo "HANDOFF-SETTLE failed"
# udevd's own account when the sentinel never reached its database
grep -q '^E:INITDEV_TEST_SEQNUM=' /run/udev/data/c1:11 2> /dev/null ||
	tail -n 40 /run/udevd.log | sed 's/^/HANDOFF-UDEVD-LOG /'
for f in /run/udev/data/c1:*; do
	[ -f "$f" ] || continue
	echo "HANDOFF-DB ${f##*/} $(sed -n 's/^E:INITDEV_TEST_SEQNUM=//p' "$f")"
done
{ cat /run/udevd.log; dmesg; } | grep -o 'SEQNUM=[0-9]*' | sort -u | sed 's/^SEQNUM=/HANDOFF-UDEVD-SEQNUM /'
grep 'initdev' /run/udevd.log | sed 's/^/HANDOFF-ADOPT /'
echo "HANDOFF-HOLDER-AFTER $(for p in /proc/[0-9]*; do
	[ "$(tr '\0' '\n' < "$p/cmdline" 2> /dev/null | head -n 1)" = @initdev-holder ] && echo "${p#/proc/}"
done)"
udevadm control --exit
exec /sbin/init-handoff-next
EOF
	} > "$1"
	chmod 0755 "$1"
}

# handoff_setup: the initdev image, and a root with Debian's udevd
# (udevadm, which is systemd-udevd under that name), initdev for `adopt`,
# the test rule and the init above, in front of the reporting init.
handoff_setup() {
	initdev_setup
	udevadm=$(command -v udevadm) || atf_skip "udev is not installed (no udevadm)"
	# only the real one: never a link to an initdev build
	[ "$(readlink -f "$udevadm")" != "$(readlink -f "$INITDEV_BIN")" ] ||
		atf_fail "$udevadm is initdev, not udev's"
	boot_add_program staging "$udevadm" /bin/udevadm || atf_fail "cannot copy udevadm"
	mkdir -p staging/lib/systemd staging/etc/udev/rules.d staging/usr/sbin
	ln -sf /bin/udevadm staging/lib/systemd/systemd-udevd
	boot_add_program staging "$INITDEV_BIN" /usr/sbin/initdev || atf_fail "cannot copy initdev"
	# what udevd did with each event lands in its database
	printf '%s\n' 'SUBSYSTEM=="mem", ENV{INITDEV_TEST_SEQNUM}="$env{SEQNUM}"' \
		> staging/etc/udev/rules.d/50-initdev-test.rules
	printf 'root:x:0:\n' > staging/etc/group
	mv staging/sbin/init staging/sbin/init-handoff-next
	handoff_init staging/sbin/init
	boot_make_ext4 root.ext4 96 staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the root filesystem image"
}

handoff_boot() {
	initdev_boot "root=UUID=$ROOT_UUID $1" -drive file=root.ext4,if=virtio,format=raw
	tr -d '\r' < boot.log | grep '^HANDOFF-'
}

# raised_seqnums: "NAME SEQNUM" per raised event.
raised_seqnums() {
	log_lines HANDOFF-RAISED
}

# expect_sentinel: udevd ran and handled the event raised after it started.
expect_sentinel() {
	s=$(log_lines HANDOFF-SENTINEL | cut -d' ' -f2)
	[ -n "$s" ] || fail_with_log "no sentinel event raised"
	log_lines HANDOFF-UDEVD-SEQNUM | grep -qx "$s" ||
		fail_with_log "udevd did not run: sentinel SEQNUM $s not in its log"
	log_lines HANDOFF-DB | grep -qx "c1:11 $s" ||
		fail_with_log "udevd's database lacks the sentinel (kmsg, SEQNUM $s)"
}

# expect_handed_over: the holder was there, udevd ran, and it handled
# (log and database) every event raised before it started.
expect_handed_over() {
	holder=$(log_lines HANDOFF-HOLDER)
	[ "$holder" != none ] || fail_with_log "no @initdev-holder in the real root"
	expect_sentinel
	n=0
	while read -r name seq; do
		n=$((n + 1))
		log_lines HANDOFF-UDEVD-SEQNUM | grep -qx "$seq" ||
			fail_with_log "udevd never saw SEQNUM $seq ($name), raised before it started"
		dev=$(log_lines HANDOFF-DB | grep " $seq\$" | cut -d' ' -f1)
		[ -n "$dev" ] || fail_with_log "udevd's database has no entry with SEQNUM $seq ($name)"
		echo "handoff: $name SEQNUM $seq handled by the real root's udevd ($dev)"
	done <<EOF
$(raised_seqnums)
EOF
	[ "$n" -eq 5 ] || fail_with_log "expected 5 raised events, found $n"
	log_lines HANDOFF-ADOPT | grep -q 'uevent socket as fd 3' ||
		fail_with_log "adopt did not report handing over the socket"
	[ -z "$(log_lines HANDOFF-HOLDER-AFTER)" ] ||
		fail_with_log "the holder is still running after adoption"
}

atf_test_case handed_over
handed_over_head() {
	atf_set descr "events raised after handoff, before the real root's udevd started (as its systemd unit runs it), reach that udevd"
	initdev_head
}
handed_over_body() {
	handoff_setup
	handoff_boot ""
	expect_handed_over
}

atf_test_case handed_over_daemonized
handed_over_daemonized_head() {
	atf_set descr "the same with udevd --daemon, as sysvinit and OpenRC start it: it takes the socket before it forks"
	initdev_head
}
handed_over_daemonized_body() {
	handoff_setup
	handoff_boot "initdev.test=daemon"
	[ "$(log_lines HANDOFF-DAEMON)" = "exit 0" ] ||
		fail_with_log "udevd --daemon did not return 0: $(log_lines HANDOFF-DAEMON)"
	expect_handed_over
}

atf_test_case no_handoff_loses
no_handoff_loses_head() {
	atf_set descr "the same boot with rd.initdev.handoff=0: udevd never sees the events raised before it started"
	initdev_head
}
no_handoff_loses_body() {
	handoff_setup
	handoff_boot "rd.initdev.handoff=0"
	[ "$(log_lines HANDOFF-HOLDER)" = none ] || fail_with_log "a holder ran with rd.initdev.handoff=0"
	expect_sentinel
	log_lines HANDOFF-ADOPT | grep -q 'no holder' ||
		fail_with_log "adopt did not warn about the missing holder"
	n=0
	while read -r name seq; do
		n=$((n + 1))
		log_lines HANDOFF-UDEVD-SEQNUM | grep -qx "$seq" &&
			fail_with_log "udevd saw SEQNUM $seq ($name) without a handoff"
		log_lines HANDOFF-DB | grep -q " $seq\$" &&
			fail_with_log "udevd stored SEQNUM $seq ($name) without a handoff"
		echo "no handoff: $name SEQNUM $seq lost, as expected"
	done <<EOF
$(raised_seqnums)
EOF
	[ "$n" -eq 5 ] || fail_with_log "expected 5 raised events, found $n"
}

atf_test_case holder_killed
holder_killed_head() {
	atf_set descr "a holder killed before adoption: adopt warns, udevd starts and the root boots"
	initdev_head
}
holder_killed_body() {
	handoff_setup
	handoff_boot "initdev.test=kill-holder"
	[ -n "$(log_lines HANDOFF-KILLED)" ] || fail_with_log "the root's init killed no holder"
	log_lines HANDOFF-ADOPT | grep -q 'no holder' ||
		fail_with_log "adopt did not warn about the missing holder"
	expect_sentinel
}

atf_init_test_cases() {
	atf_add_test_case handed_over
	atf_add_test_case handed_over_daemonized
	atf_add_test_case no_handoff_loses
	atf_add_test_case holder_killed
}
