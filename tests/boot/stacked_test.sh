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
# Today 90initdev refuses crypt, dm, lvm and mdraid: the initdev_* cases
# then skip (the refusal is detected from dracut's output, so they run by
# themselves once the refusal is lifted).
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

# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

stacked_head() {
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.ext4 cpio mkfifo timeout sha256sum awk"
	atf_set timeout 300
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

# checked_stacked_boot SCENARIO IMAGE LOG: boot; fail with the log's tail
# unless the root reported, dracut's init.sh switched root and the
# scenario's checks pass. Prints the time to root and the links.
checked_stacked_boot() {
	if ! stacked_boot "$1" "$DISKS" "$2" "$3"; then
		boot_log_tail "$3"
		atf_fail "$1: the guest did not reach BOOT-END (log above)"
	fi
	up=$(boot_result_uptime "$3") || { boot_log_tail "$3"; atf_fail "$1: no BOOT-RESULT line"; }
	echo "$1: root's init at guest uptime ${up}s, wall $(cat "$3.wall")s"
	tr -d '\r' < "$3" | grep -q 'dracut: Switching root' || {
		boot_log_tail "$3"
		atf_fail "$1: dracut's init.sh did not switch root"
	}
	echo "$1: links:"
	stacked_links "$3" | sed 's/^/  /'
	if ! stacked_check "$1" "$3"; then
		boot_log_tail "$3"
		atf_fail "$1: $(tr '\n' ';' < "$3.problems")"
	fi
}

# stock_case SCENARIO
stock_case() {
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
	stacked_compare_links "$stock_log" boot.log ||
		atf_fail "$1: the initdev image's links differ from the stock image's (above)"
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
}
