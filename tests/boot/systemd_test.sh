#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The handoff into a real root whose PID 1 is systemd, under QEMU/TCG: the
# root runs the host's own systemd (/lib/systemd/systemd, with only the
# units this test needs), the host's systemd-udevd units unchanged, and the
# installed drop-in (make install's real-root/ file, enabled with the link
# README.md shows). systemd-udevd is socket activated: PID 1 opens
# systemd-udevd-kernel.socket and starts udevd through the drop-in's
# `initdev adopt`, which puts the handed socket in the place of PID 1's
# and retires PID 1's copy. Checked, by SEQNUM, from udevd's own debug log
# ("Device is queued") and its database (a test rule stores each SEQNUM):
#   A  raised before systemd runs (only the holder's socket has them):
#      reach udevd once each;
#   B  raised once PID 1 listens, before udevd starts (both sockets have
#      them): reach udevd once each, and adopt dropped them from PID 1's
#      copy;
#   C  raised while udevd runs; then `systemctl restart systemd-udevd`
#      (no holder any more: adopt lets PID 1's socket rejoin group 1):
#      the new udevd gets no second copy of B or C (PID 1's copy was
#      retired, not left queueing);
#   D  raised after the restart: reach the new udevd.
# The same root with initdev removed and the enabling link left dangling:
# systemd ignores the link, udevd starts as stock and loses A.
#
# Inputs as for initdev_test (the staged install: INITDEV_STAGE_ENV or the
# kyua variable stage_env; BOOT_CACHE). While developing:
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     atf-sh /work/main/tests/boot/systemd_test.sh -s /work/main/tests/boot socket_activated

STOCK_MODULES="base rootfs-block udev-rules"
DRIVERS="virtio_pci virtio_blk virtio_scsi sd_mod nvme ext4"
ROOT_UUID=5d7e8f90-1a2b-4c3d-8e4f-50617283a4b5
ROOT_LABEL=systemdroot
BOOT_TIMEOUT=240
# The host's units the root gets, unchanged.
HOST_UNITS="systemd-udevd.service systemd-udevd-kernel.socket systemd-udevd-control.socket"

# Next to this program (atf_get_srcdir is not known yet at this point).
# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

# guest_lib: shell functions both guest scripts use (appended to each).
guest_lib() {
	cat <<'EOF'
export PATH=/bin:/usr/bin:/sbin:/usr/sbin
# raise BATCH DEVPATH...: a change event per device; SYSTEMD-RAISED lines;
# $last is the last one's SEQNUM
raise() {
	b=$1
	shift
	for d in "$@"; do
		echo change > "/sys/devices/virtual/$d/uevent"
		last=$(cat /sys/kernel/uevent_seqnum)
		echo "SYSTEMD-RAISED $b ${d##*/} $last"
	done
}
# wait_db DBFILE SEQNUM: until udevd's database holds SEQNUM for it (30 s)
wait_db() {
	i=0
	while [ "$(sed -n 's/^E:INITDEV_TEST_SEQNUM=//p' "/run/udev/data/$1" 2> /dev/null)" != "$2" ] &&
		[ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "SYSTEMD-WAITED $1 $2 ${i}00ms"
}
EOF
}

# write_first_init FILE: the root's /sbin/init, started by dracut's
# switch_root: raises batch A while only the holder listens, then execs
# systemd (same PID 1).
write_first_init() {
	{
		echo '#!/bin/sh'
		guest_lib
		boot_init_mounts
		cat <<'EOF'
# keep systemd's kernel log lines off the console (dmesg has them)
echo 1 > /proc/sys/kernel/printk
holder=
for p in /proc/[0-9]*; do
	[ "$(tr '\0' '\n' < "$p/cmdline" 2> /dev/null | head -n 1)" = @initdev-holder ] && holder=${p#/proc/}
done
echo "SYSTEMD-HOLDER ${holder:-none}"
raise A mem/null mem/zero mem/full mem/random mem/urandom
exec /lib/systemd/systemd
EOF
	} > "$1"
	chmod 0755 "$1"
}

# write_raise_b FILE: batch B, run by a unit ordered after PID 1's kernel
# socket and before systemd-udevd.service.
write_raise_b() {
	{
		echo '#!/bin/sh'
		guest_lib
		echo 'exec > /dev/console 2>&1'
		echo 'raise B tty/tty2 tty/tty3 tty/tty4 tty/tty5 tty/tty6'
	} > "$1"
	chmod 0755 "$1"
}

# write_report FILE: run once udevd is up: sentinel, batch C, restart,
# batch D; then the report (SYSTEMD-* lines) and the harness' report init.
write_report() {
	{
		echo '#!/bin/sh'
		guest_lib
		cat <<'EOF'
exec < /dev/console > /dev/console 2>&1
echo "SYSTEMD-PID1 $(cat /proc/1/comm)"
# shellcheck disable=SC2046 # one word a unit
echo SYSTEMD-ACTIVE $(systemctl is-active systemd-udevd-kernel.socket systemd-udevd.service)
raise S mem/kmsg
wait_db c1:11 "$last"
raise C tty/tty7 tty/tty8 tty/tty9
wait_db c4:9 "$last"
systemctl restart systemd-udevd.service
echo "SYSTEMD-RESTART $?"
raise D tty/tty10 tty/tty11
wait_db c4:11 "$last"
udevadm settle --timeout=20 || echo "SYSTEMD-SETTLE failed"
for f in /run/udev/data/c1:* /run/udev/data/c4:*; do
	[ -f "$f" ] || continue
	s=$(sed -n 's/^E:INITDEV_TEST_SEQNUM=//p' "$f")
	[ -n "$s" ] && echo "SYSTEMD-DB ${f##*/} $s"
done
# how often udevd queued each event (both udevd runs append to the log)
sed -n 's/.*Device is queued (SEQNUM=\([0-9]*\),.*/\1/p' /run/udevd.log | sort | uniq -c |
	while read -r n s; do echo "SYSTEMD-QUEUED $s $n"; done
grep 'initdev' /run/udevd.log | sed 's/^/SYSTEMD-ADOPT /'
echo "SYSTEMD-HOLDER-AFTER $(for p in /proc/[0-9]*; do
	[ "$(tr '\0' '\n' < "$p/cmdline" 2> /dev/null | head -n 1)" = @initdev-holder ] && echo "${p#/proc/}"
done)"
systemctl --no-pager --failed --plain --no-legend | sed 's/^/SYSTEMD-FAILED /'
dmesg | tail -n 40 | sed 's/^/SYSTEMD-DMESG /'
exec /sbin/init-next
EOF
	} > "$1"
	chmod 0755 "$1"
}

# write_units DIR: the test's own units in DIR (/etc/systemd/system), the
# default target wanting them, and a drop-in of the test's that only sends
# udevd's (and adopt's) log to /run/udevd.log: no journald runs here.
write_units() {
	d=$1
	cat > "$d/initdev-test.target" <<'EOF'
[Unit]
Description=initdev test: socket activated udevd adopts the handed socket
Wants=systemd-udevd-kernel.socket systemd-udevd-control.socket
Wants=initdev-test-raise.service systemd-udevd.service initdev-test-report.service
EOF
	ln -s initdev-test.target "$d/default.target"
	cat > "$d/initdev-test-raise.service" <<'EOF'
[Unit]
Description=initdev test: events while PID 1 listens, before udevd
DefaultDependencies=no
After=systemd-udevd-kernel.socket
Before=systemd-udevd.service
[Service]
Type=oneshot
ExecStart=/sbin/initdev-test-raise
EOF
	cat > "$d/initdev-test-report.service" <<'EOF'
[Unit]
Description=initdev test: restart udevd, report, power off
DefaultDependencies=no
After=systemd-udevd.service initdev-test-raise.service
[Service]
Type=oneshot
TimeoutStartSec=infinity
ExecStart=/sbin/initdev-test-report
EOF
	mkdir -p "$d/systemd-udevd.service.d"
	cat > "$d/systemd-udevd.service.d/50-initdev-test.conf" <<'EOF'
[Service]
StandardOutput=append:/run/udevd.log
StandardError=inherit
Environment=SYSTEMD_LOG_LEVEL=debug SYSTEMD_LOG_TARGET=console
EOF
}

# systemd_setup [removed]: the initdev image (as initdev_test's) and a root
# with the host's systemd, systemctl and udevd, initdev as make install put
# it, the drop-in enabled as README.md says, the test's units and scripts;
# with "removed", initdev and its real-root files are gone again, the
# enabling link is left dangling.
systemd_setup() {
	initdev_setup
	[ -x /lib/systemd/systemd ] || atf_skip "systemd is not installed (scripts/deps installs it)"
	for u in $HOST_UNITS; do
		[ -f "/lib/systemd/system/$u" ] || atf_skip "no /lib/systemd/system/$u on this host"
	done
	udevadm=$(command -v udevadm) || atf_skip "udev is not installed (no udevadm)"
	[ "$(readlink -f "$udevadm")" != "$(readlink -f "$INITDEV_BIN")" ] ||
		atf_fail "$udevadm is initdev, not udev's"
	boot_add_program staging /lib/systemd/systemd /lib/systemd/systemd || atf_fail "cannot copy systemd"
	boot_add_program staging "$(command -v systemctl)" /bin/systemctl || atf_fail "cannot copy systemctl"
	boot_add_program staging "$udevadm" /bin/udevadm || atf_fail "cannot copy udevadm"
	ln -sf /bin/udevadm staging/lib/systemd/systemd-udevd
	mkdir -p staging/lib/systemd/system staging/etc/systemd/system staging/etc/udev/rules.d
	for u in $HOST_UNITS; do
		cp "/lib/systemd/system/$u" staging/lib/systemd/system/ || atf_fail "cannot copy $u"
	done
	# initdev and its real-root files where make install put them
	boot_add_program staging "$INITDEV_BIN" "$INITDEV_SBINDIR/initdev" || atf_fail "cannot copy initdev"
	mkdir -p "staging$INITDEV_PKGDATADIR"
	cp -R "$INITDEV_REALROOT" "staging$INITDEV_PKGDATADIR/" || atf_fail "cannot copy the real-root files"
	write_units staging/etc/systemd/system
	# enabled as README.md says; "removed": the link left behind after the
	# package (or make uninstall) took the file away
	mkdir -p staging/etc/systemd/system/systemd-udevd.service.d
	ln -s "$INITDEV_PKGDATADIR/real-root/systemd-udevd.service.d/initdev-adopt.conf" \
		staging/etc/systemd/system/systemd-udevd.service.d/
	if [ "${1:-}" = removed ]; then
		rm -r "staging$INITDEV_PKGDATADIR" "staging$INITDEV_SBINDIR/initdev"
	fi
	# shellcheck disable=SC2016 # udev's $env{}, not the shell's
	printf '%s\n' 'SUBSYSTEM=="mem|tty", ENV{INITDEV_TEST_SEQNUM}="$env{SEQNUM}"' \
		> staging/etc/udev/rules.d/50-initdev-test.rules
	printf 'root:x:0:\n' > staging/etc/group
	echo 0d1e7e57c0de4a11b0075e1d00000001 > staging/etc/machine-id
	mv staging/sbin/init staging/sbin/init-next
	write_first_init staging/sbin/init
	write_raise_b staging/sbin/initdev-test-raise
	write_report staging/sbin/initdev-test-report
	boot_make_ext4 root.ext4 160 staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the root filesystem image"
}

# seqnums BATCH: the SEQNUMs raised in BATCH, one a line.
seqnums() {
	log_lines SYSTEMD-RAISED | awk -v b="$1" '$1 == b { print $3 }'
}

# queued SEQNUM: how often udevd queued it (0 if never).
queued() {
	n=$(log_lines SYSTEMD-QUEUED | awk -v s="$1" '$1 == s { print $2 }')
	echo "${n:-0}"
}

# expect_once BATCH COUNT: COUNT events raised in BATCH, each queued by
# udevd exactly once and stored in its database.
expect_once() {
	n=0
	for s in $(seqnums "$1"); do
		n=$((n + 1))
		q=$(queued "$s")
		[ "$q" = 1 ] || fail_with_log "batch $1: udevd queued SEQNUM $s $q times, expected once"
		log_lines SYSTEMD-DB | grep -q " $s\$" ||
			fail_with_log "batch $1: udevd's database has no entry with SEQNUM $s"
	done
	[ "$n" -eq "$2" ] || fail_with_log "batch $1: $n events raised, expected $2"
	echo "systemd: batch $1: $n events, each handled once by udevd"
}

# adopt_line TEXT: the adopt log line holding TEXT, or fail.
adopt_line() {
	l=$(log_lines SYSTEMD-ADOPT | grep -F -- "$1" | head -n 1)
	[ -n "$l" ] || fail_with_log "adopt did not log '$1'"
	echo "$l"
}

# systemd_boot: boot the root; show the report; PID 1 must be systemd, no
# unit failed and the restart worked.
systemd_boot() {
	initdev_boot "root=UUID=$ROOT_UUID systemd.show_status=0" \
		-drive file=root.ext4,if=virtio,format=raw
	tr -d '\r' < boot.log | grep '^SYSTEMD-' | grep -v '^SYSTEMD-DMESG '
	[ "$(log_lines SYSTEMD-PID1)" = systemd ] || fail_with_log "PID 1 is not systemd: $(log_lines SYSTEMD-PID1)"
	[ "$(log_lines SYSTEMD-ACTIVE)" = "active active" ] ||
		fail_with_log "kernel socket, udevd: $(log_lines SYSTEMD-ACTIVE), expected active active"
	[ "$(log_lines SYSTEMD-HOLDER)" != none ] || fail_with_log "no @initdev-holder when the root started"
	[ "$(log_lines SYSTEMD-RESTART)" = 0 ] || fail_with_log "systemctl restart systemd-udevd failed"
	failed=$(log_lines SYSTEMD-FAILED)
	[ -z "$failed" ] || fail_with_log "failed units: $failed"
}

atf_test_case socket_activated
socket_activated_head() {
	atf_set descr "systemd as PID 1 in the real root, with the installed drop-in: socket-activated udevd adopts the handed socket, gets every event raised before it started, PID 1's copy is retired"
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.ext4 timeout cpio sha256sum udevadm systemctl"
	atf_set timeout 300
}
socket_activated_body() {
	systemd_setup
	systemd_boot
	# the first udevd: adopted through socket activation
	adopt_line 'uevent socket as fd' | grep -q 'inherited sockets kept' ||
		fail_with_log "adopt did not place the handed socket among the inherited ones"
	retired=$(adopt_line "socket activation's copy) left group 1")
	dropped=$(echo "$retired" | sed -n 's/.*dropped the \([0-9]*\) events.*/\1/p')
	echo "systemd: PID 1's copy retired, $dropped events dropped from it"
	[ "${dropped:-0}" -ge 5 ] ||
		fail_with_log "PID 1's copy held ${dropped:-no} events when retired, batch B alone is 5"
	expect_once A 5
	expect_once B 5
	expect_once C 3
	# the restarted udevd: no holder, PID 1's socket back in group 1
	adopt_line 'no holder' > /dev/null
	adopt_line 'rejoined group 1' > /dev/null
	n=0
	for s in $(seqnums D); do
		n=$((n + 1))
		[ "$(queued "$s")" -ge 1 ] || fail_with_log "batch D: the restarted udevd never queued SEQNUM $s"
		log_lines SYSTEMD-DB | grep -q " $s\$" || fail_with_log "batch D: no database entry with SEQNUM $s"
	done
	[ "$n" -eq 2 ] || fail_with_log "batch D: $n events raised, expected 2"
	echo "systemd: batch D: reached the restarted udevd"
	[ -z "$(log_lines SYSTEMD-HOLDER-AFTER)" ] || fail_with_log "the holder is still running after adoption"
}

atf_test_case removed_link_harmless
removed_link_harmless_head() {
	atf_set descr "initdev removed, the drop-in's link left dangling: systemd ignores it, udevd starts as stock (and loses the events raised before PID 1 listened)"
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.ext4 timeout cpio sha256sum udevadm systemctl"
	atf_set timeout 300
}
removed_link_harmless_body() {
	systemd_setup removed
	systemd_boot
	! log_lines SYSTEMD-ADOPT | grep -q 'adopt:' || fail_with_log "adopt ran though initdev was removed"
	n=0
	for s in $(seqnums A); do
		n=$((n + 1))
		[ "$(queued "$s")" = 0 ] || fail_with_log "batch A: udevd queued SEQNUM $s without adopt"
		echo "without adopt: SEQNUM $s lost, as expected"
	done
	[ "$n" -eq 5 ] || fail_with_log "batch A: $n events raised, expected 5"
	# PID 1's own socket had these: stock socket activation keeps them
	expect_once B 5
	expect_once C 3
	[ -n "$(log_lines SYSTEMD-HOLDER-AFTER)" ] || fail_with_log "the holder is gone though nobody adopted"
}

atf_init_test_cases() {
	atf_add_test_case socket_activated
	atf_add_test_case removed_link_harmless
}
