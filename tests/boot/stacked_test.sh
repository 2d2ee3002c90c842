#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# Stacked roots (issue 14) booted under QEMU/TCG: LUKS2 (key file in the
# image, passphrase typed on the serial console), LVM (root by
# /dev/mapper name and by UUID), md RAID1 (both disks; one, degraded after
# dracut's timeout), LVM on LUKS, and hostile VG/LV/md/LUKS names.
#
# stock_* cases boot the stock dracut image (99base's init.sh,
# systemd-udevd, the crypt dm lvm mdraid modules); each checks the root
# device, the links under /dev (stacked_check in stacked-lib.sh) and keeps
# its console log (in the cache) for the initdev_* case of the same
# scenario. initdev_* cases build the same image with --add initdev, boot
# it, run the same checks and compare every link with the stock boot's.
# Further initdev-only cases: the handoff into a real root whose udevd
# finds the initramfs' db_persist entries (initdev_handoff_dm); a withheld
# key or disk (a wrong passphrase, both RAID disks gone) and bad input (a
# corrupt LUKS2 header, a truncated PV, an md member whose partner does
# not exist): the tool that reads it says what is wrong, the initqueue
# gives up within rd.retry and initdev's emergency hook names the root and
# what it saw.
#
# The disks are made in a tool guest (toolguest-lib.sh; the host kernel
# has no dm or md) once, then cached. Cache: BOOT_CACHE or the kyua/atf
# variable boot_cache as in stock_test.sh; without either, the shared
# directory boot-cache next to this program (harness_shared_cache), so
# that the cases share the disks (~35 s to make) and images. While
# developing:
#   make -C /work/build/NAME stage && cd "$(mktemp -d)" && \
#     INITDEV_STAGE_ENV=/work/build/NAME/stage.env BOOT_CACHE=/var/tmp/stk \
#     atf-sh /work/wt/NAME/tests/boot/stacked_test.sh -s /work/wt/NAME/tests/boot stock_lvm_luks

BOOT_TIMEOUT=150
SCENARIOS="luks-key luks-pass lvm-mapper lvm-uuid md-both md-degraded lvm-luks hostile"
# The cases of the "ci" set (the kyua/atf variable stacked_set=ci, or
# STACKED_SET=ci): each mechanism once, about 9 boots instead of 22
# (LUKS with a key file and LVM cookies in two layers, mdadm and udevadm
# info -q path, hostile names, the handoff into the real root's udevd, one
# bad input ending in the emergency report). Default: all.
STACKED_CI_CASES="stock_lvm_luks initdev_lvm_luks stock_md_both initdev_md_both
stock_hostile initdev_hostile initdev_handoff_dm initdev_bad_luks_header"

# stacked_selected CASE: skip CASE unless the selected set holds it.
stacked_selected() { boot_selected "$1" "$STACKED_CI_CASES"; }

# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"
# the scenarios' names and identities (the case bodies name them)
# shellcheck source=tests/boot/stacked-lib.sh
. "$(dirname "$0")/stacked-lib.sh"

stacked_head() {
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.ext4 cpio mkfifo timeout sha256sum awk"
	atf_set timeout 600
}

# stacked_setup: the harness, the shared cache, the disks (DISKS).
stacked_setup() {
	harness_shared_cache
	harness_setup
	# shellcheck source=tests/boot/toolguest-lib.sh
	. "$(atf_get_srcdir)/toolguest-lib.sh"
	# shellcheck source=tests/boot/stacked-lib.sh
	. "$(atf_get_srcdir)/stacked-lib.sh"
	DISKS=$(stacked_disks "$cache") || atf_fail "the tool guest could not make the disks"
	echo "stacked: disks in $DISKS, ready in $(boot_elapsed "$t0")s"
}

# stacked_stock_image: the stock image (STOCK_IMG).
stacked_stock_image() {
	STOCK_IMG=$(stacked_image "$cache" stock) || atf_fail "dracut could not build the stock image"
	! grep -q 'Including module: systemd ' "$STOCK_IMG.log" ||
		atf_fail "dracut included its systemd module: /init would not be init.sh"
}

# stacked_stock_log_path SCENARIO: where the stock boot of SCENARIO with
# these disks and this image keeps its console log.
stacked_stock_log_path() {
	key=$(printf '%s\n' "$STOCK_IMG" "$DISKS" "$(stacked_append "$1")" | sha256sum | cut -c1-16)
	echo "$cache/stock-boot-$1-$key.log"
}

# stock_case SCENARIO
stock_case() {
	stacked_selected "stock_$(echo "$1" | tr - _)"
	stacked_setup
	stacked_stock_image
	checked_stacked_boot "$1" "$STOCK_IMG" boot.log
	tr -d '\r' < boot.log | grep -q '^Starting systemd-udevd' ||
		atf_fail "systemd-udevd did not start in the stock image"
	log=$(stacked_stock_log_path "$1")
	cp boot.log "$log.tmp" && mv "$log.tmp" "$log"
}

# initdev_case SCENARIO
initdev_case() {
	stacked_selected "initdev_$(echo "$1" | tr - _)"
	stacked_setup
	initdev_locate
	if ! INITDEV_IMG=$(stacked_image "$cache" initdev 2> build.err); then
		cat build.err
		grep -q 'cannot be combined with' build.err &&
			atf_skip "needs the udev rules engine (issue 13): 90initdev refuses crypt, dm, lvm, mdraid"
		atf_fail "dracut could not build the initdev image"
	fi
	stacked_stock_image
	stock_log=$(stacked_stock_log_path "$1")
	if [ ! -s "$stock_log" ]; then
		echo "$1: no stock boot log in the cache, booting the stock image first"
		checked_stacked_boot "$1" "$STOCK_IMG" stock.log
		stock_log=stock.log
	fi
	checked_stacked_boot "$1" "$INITDEV_IMG" boot.log
	stacked_initdev_compare "$1" "$stock_log" boot.log
}

# initdev_image_setup: the disks (the bad ones too) and the initdev image (INITDEV_IMG).
initdev_image_setup() {
	stacked_setup
	initdev_locate
	stacked_bad_disks "$DISKS" || atf_fail "cannot derive the bad-input disks"
	INITDEV_IMG=$(stacked_image "$cache" initdev) || atf_fail "dracut could not build the initdev image"
}

# emergency_case SCENARIO ROOT SEEN TOOL: SCENARIO's root never appears; the
# initqueue gives up within rd.retry (QEMU ends well before the harness'
# timeout: no hang), dracut says "Could not boot", initdev's emergency hook
# names ROOT (the root= value) and, if SEEN is not empty, lists a device
# matching SEEN (an ERE); TOOL, if not empty, is the error of the tool
# that read the bad input (an ERE on the console). No udev wait anywhere.
emergency_case() {
	sc=$1 root=$2 seen=$3 tool=$4
	initdev_image_setup
	if stacked_boot "$sc" "$DISKS" "$INITDEV_IMG" boot.log; then
		boot_log_tail boot.log
		atf_fail "$sc: the root was reached"
	fi
	wall=$(cat boot.log.wall)
	echo "$sc: QEMU ended after ${wall}s"
	awk -v w="$wall" -v t="$BOOT_TIMEOUT" 'BEGIN { exit !(w < t - 10) }' ||
		fail_with_log "$sc: QEMU ran into the ${BOOT_TIMEOUT}s timeout: a hang?"
	tr -d '\r' < boot.log > console.txt
	grep -q 'Could not boot' console.txt || fail_with_log "$sc: the initqueue never gave up"
	grep -Fq "initdev: root device root=$root was never found" console.txt ||
		fail_with_log "$sc: initdev's emergency hook did not name root=$root"
	echo "$sc: initdev's report:"
	sed -n '/initdev: root device root=/,/Could not boot\|emergency/p' console.txt | head -n 20
	if [ -n "$seen" ]; then
		grep -Eq "dracut Warning: +$seen" console.txt ||
			fail_with_log "$sc: the report does not list a device like: $seen"
	fi
	if [ -n "$tool" ]; then
		grep -Eq "$tool" console.txt || fail_with_log "$sc: no error of the tool that read it: $tool"
	fi
	stacked_udev_waits boot.log > waits
	[ ! -s waits ] || fail_with_log "$sc: udev waits: $(cat waits)"
	! grep -q '^BOOT-RESULT' console.txt || fail_with_log "$sc: BOOT-RESULT without a root"
}

# tools_disk FILE: a filesystem labelled stacktools that the root's init runs
# /tools/run from: Debian's systemd-udevd (udevadm) with the device-mapper
# rules and dmsetup, and initdev for `adopt`, in a tree of their own (run in
# a chroot). run starts udevd through initdev adopt (taking the handed
# uevent socket), coldplugs as systemd-udev-trigger does and reports
# (STACK-UDEVD1-*); then, as a control, the same with the initramfs' dm
# entries deleted first (STACK-UDEVD2-*).
tools_disk() {
	rm -rf tools
	t=tools/root
	mkdir -p $t/bin $t/dev $t/sys $t/proc $t/run $t/usr/lib/udev/rules.d $t/lib/systemd \
		$t/etc/udev
	cp /bin/busybox $t/bin/busybox && ln -s busybox $t/bin/sh || atf_fail "busybox"
	boot_add_program $t "$(command -v udevadm)" /bin/udevadm || atf_fail "cannot copy udevadm"
	ln -s /bin/udevadm $t/lib/systemd/systemd-udevd
	boot_add_program $t "$(command -v dmsetup)" /sbin/dmsetup || atf_fail "cannot copy dmsetup"
	boot_add_program $t "$INITDEV_BIN" /usr/sbin/initdev || atf_fail "cannot copy initdev"
	for r in 50-udev-default 55-dm 60-persistent-storage 60-persistent-storage-dm \
		95-dm-notify 99-systemd; do
		cp "/usr/lib/udev/rules.d/$r.rules" $t/usr/lib/udev/rules.d/ ||
			atf_fail "no $r.rules on this host"
	done
	cat > tools/run <<'RUN' || atf_fail "cannot write tools/run"
#!/bin/sh
# the real root's udevd on a dm root (stacked_test initdev_handoff_dm)
T=/tools/root
B=$T/bin/busybox # the root's busybox has no chroot applet
# udevadm ignores trigger, settle and control in a chroot unless told
export SYSTEMD_OFFLINE=0 SYSTEMD_IGNORE_CHROOT=1
for d in dev sys proc run; do mount --bind "/$d" "$T/$d"; done
report() {
	for d in /sys/block/dm-*; do
		echo "STACK-UDEVD$1-DM ${d##*/} $(cat "$d/dm/name") suspended=$(cat "$d/dm/suspended")"
	done
	for f in /run/udev/data/b254:*; do
		[ -f "$f" ] && sed "s|^|STACK-UDEVD$1-DB ${f##*/} |" "$f"
	done
	find /dev/mapper /dev/disk -type l | sort | while read -r l; do
		echo "STACK-UDEVD$1-LINK ${l#/dev/} -> $(readlink -f "$l")"
	done
}
udev() { $B chroot "$T" /bin/udevadm "$@"; }
$B chroot "$T" /usr/sbin/initdev adopt --timeout 10 -- /lib/systemd/systemd-udevd --daemon \
	--debug > /run/udevd1.log 2>&1
udev trigger --type=subsystems --action=add
udev trigger --verbose --type=devices --action=add > /run/trigger1.log 2>&1
udev settle --timeout=60
report 1
grep -e initdev -e dm-0 -e 'Starting' /run/udevd1.log | sed 's/^/STACK-UDEVD1-LOG /'
echo "STACK-UDEVD1-TRIGGERED $(grep -c . /run/trigger1.log) $(grep dm-0 /run/trigger1.log)"
udev control --exit
rm -f /run/udev/data/b254:*
$B chroot "$T" /lib/systemd/systemd-udevd --daemon --debug > /run/udevd2.log 2>&1
udev trigger --type=devices --action=add
udev settle --timeout=60
report 2
grep -e dm-0 /run/udevd2.log | tail -n 20 | sed 's/^/STACK-UDEVD2-LOG /' 
udev control --exit
RUN
	chmod 0755 tools/run
	boot_make_ext4 "$1" 64 tools "" stacktools || atf_fail "cannot make the tools disk"
}

# stacked_descr SCENARIO: what it boots.
stacked_descr() {
	case $1 in
	luks-key) echo "LUKS2 root, key file in the image (rd.luks.key=PATH:/), root=UUID= of the inner filesystem" ;;
	luks-pass) echo "LUKS2 root, passphrase typed on the serial console at cryptsetup's prompt" ;;
	lvm-mapper) echo "LVM root by root=/dev/mapper/VG-LV, rd.lvm.lv=" ;;
	lvm-uuid) echo "LVM root by root=UUID= of the LV's filesystem, rd.lvm.lv=" ;;
	md-both) echo "md RAID1 root (metadata 1.2), both disks, rd.md.uuid=" ;;
	md-degraded) echo "md RAID1 root with one disk missing: started degraded after dracut's timeout" ;;
	lvm-luks) echo "LVM on LUKS2 root (two layers), key file" ;;
	hostile) echo "hostile names: LUKS label '../x', VG/LV with + _ . -, md array name 'a/b'" ;;
	esac
}

atf_test_case initdev_handoff_dm
initdev_handoff_dm_head() {
	atf_set descr "initdev image, LUKS root: the handoff works with a dm root; the real root's udevd (through initdev adopt) finds the db_persist entries, keeps the root's dm device active under its name, its flags as activated (not disabled) and its links; without the entries (control) it would disable them"
	stacked_head
}
initdev_handoff_dm_body() {
	stacked_selected initdev_handoff_dm
	initdev_image_setup
	tools_disk tools.img
	STACKED_EXTRA_DISK=$PWD/tools.img
	export STACKED_EXTRA_DISK
	checked_stacked_boot luks-handoff "$INITDEV_IMG" boot.log
	dm=luks-$STACKED_LUKS_UUID
	stacked_lines STACK-UDEVD1-LOG boot.log | grep -q 'uevent socket as fd 3' ||
		fail_with_log "udevd did not get the handed socket: $(stacked_lines STACK-UDEVD1-LOG boot.log)"
	stacked_lines STACK-UDEVD1-DM boot.log | grep -qx "dm-0 $dm suspended=0" ||
		fail_with_log "the root's dm device did not stay active under its name"
	stacked_lines STACK-UDEVD1-DB boot.log > db1
	for want in "b254:0 E:DM_UDEV_PRIMARY_SOURCE_FLAG=1" "b254:0 E:DM_NAME=$dm" \
		"b254:0 S:mapper/$dm" "b254:0 S:disk/by-uuid/$STACKED_LUKS_FS"; do
		grep -Fqx "$want" db1 || fail_with_log "udevd's entry after its coldplug lacks $want"
	done
	! grep -Eq 'E:(DM_UDEV_DISABLE_(OTHER|DISK)_RULES_FLAG=1|SYSTEMD_READY=0)' db1 ||
		fail_with_log "udevd disabled the root's dm device: $(grep DISABLE db1)"
	for want in "mapper/$dm -> /dev/dm-0" "disk/by-uuid/$STACKED_LUKS_FS -> /dev/dm-0"; do
		stacked_lines STACK-UDEVD1-LINK boot.log | grep -Fqx "$want" ||
			fail_with_log "after udevd's coldplug, no link $want"
	done
	# the control: without the initramfs' entries udevd treats it as not activated
	stacked_lines STACK-UDEVD2-DB boot.log | grep -q 'E:DM_UDEV_DISABLE_OTHER_RULES_FLAG=1' ||
		fail_with_log "the control did not disable the device: the check above proves nothing"
}

atf_test_case initdev_wrong_passphrase
initdev_wrong_passphrase_head() {
	atf_set descr "initdev image, LUKS root, a wrong passphrase typed: cryptsetup says so, dracut gives up within rd.retry and initdev names the root and the LUKS device it saw"
	stacked_head
}
initdev_wrong_passphrase_body() {
	stacked_selected initdev_wrong_passphrase
	emergency_case luks-wrongpass "UUID=$STACKED_LUKS_FS" \
		"/dev/vda \\(253:0\\): TYPE=\"crypto_LUKS\" UUID=\"$STACKED_LUKS_UUID\"" \
		'No key available with this passphrase'
}

atf_test_case initdev_raid_disks_gone
initdev_raid_disks_gone_head() {
	atf_set descr "initdev image, md RAID1 root with both disks gone: dracut gives up within rd.retry, initdev names the root"
	stacked_head
}
initdev_raid_disks_gone_body() {
	stacked_selected initdev_raid_disks_gone
	emergency_case md-gone "UUID=$STACKED_MD_FS" "" ""
}

atf_test_case initdev_bad_luks_header
initdev_bad_luks_header_head() {
	atf_set descr "bad input: a LUKS2 header whose metadata is corrupt is reported by cryptsetup; initdev goes on, the root timeout names the device seen"
	stacked_head
}
initdev_bad_luks_header_body() {
	stacked_selected initdev_bad_luks_header
	emergency_case luks-badheader "UUID=$STACKED_LUKS_FS" \
		"/dev/vda \\(253:0\\): TYPE=\"crypto_LUKS\"" 'not a valid LUKS device'
}

atf_test_case initdev_truncated_pv
initdev_truncated_pv_head() {
	atf_set descr "bad input: a truncated LVM PV is reported by lvm; initdev goes on, the root timeout names the PV seen"
	stacked_head
}
initdev_truncated_pv_body() {
	stacked_selected initdev_truncated_pv
	emergency_case lvm-truncated "/dev/mapper/vgroot-root" \
		"/dev/vda \\(253:0\\): TYPE=\"LVM2_member\"" 'smaller than corresponding PV size'
}

atf_test_case initdev_md_missing_member
initdev_md_missing_member_head() {
	atf_set descr "bad input: an md superblock claiming a member that does not exist (RAID0, one of two) is reported by mdadm; initdev goes on, the root timeout names the member seen"
	stacked_head
}
initdev_md_missing_member_body() {
	stacked_selected initdev_md_missing_member
	emergency_case md-missing "UUID=$STACKED_R0_FS" \
		"/dev/vda \\(253:0\\): TYPE=\"linux_raid_member\"" 'mdadm: (failed to start array|.*not enough)'
}

# One stock_ and one initdev_ case per scenario (luks-key: stock_luks_key).
for _sc in $SCENARIOS; do
	_n=$(echo "$_sc" | tr - _)
	eval "stock_${_n}_head() { atf_set descr \"stock image: $(stacked_descr "$_sc")\"; stacked_head; }
stock_${_n}_body() { stock_case $_sc; }
initdev_${_n}_head() { atf_set descr \"initdev image: $(stacked_descr "$_sc"); links as the stock image's\"; stacked_head; }
initdev_${_n}_body() { initdev_case $_sc; }"
done
unset _sc _n

atf_init_test_cases() {
	for sc in $SCENARIOS; do
		n=$(echo "$sc" | tr - _)
		atf_add_test_case "stock_$n"
	done
	for sc in $SCENARIOS; do
		n=$(echo "$sc" | tr - _)
		atf_add_test_case "initdev_$n"
	done
	atf_add_test_case initdev_handoff_dm
	atf_add_test_case initdev_wrong_passphrase
	atf_add_test_case initdev_raid_disks_gone
	atf_add_test_case initdev_bad_luks_header
	atf_add_test_case initdev_truncated_pv
	atf_add_test_case initdev_md_missing_member
}
