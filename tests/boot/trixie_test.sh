#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# Debian 13 (trixie: udev 257, dracut 106, kernel 6.12), issue 24. Each case
# makes or reuses the trixie tree (scripts/trixie-tree: initdev built and
# installed inside it by trixie's gcc 14) and runs the tree's own initdev.
#   rules_check   `initdev rules check` over the whole of trixie's
#                 /usr/lib/udev/rules.d and dracut 106's modules' rules
#   plain_boot    kernel 6.12 and dracut 106's images (built in the tree:
#                 stock, and with --add initdev), booted in QEMU on one
#                 virtio disk: both reach the root with the same links
# Cold, the tree takes minutes to make (trixie-tree): the timeout allows it.

# shellcheck source=tests/boot/trixie-lib.sh
. "$(dirname "$0")/trixie-lib.sh"

atf_test_case rules_check
rules_check_head() {
	atf_set descr "initdev rules check over udev 257's and dracut 106's rules: no unknown key or builtin, only the features initdev leaves out by design"
	trixie_head
}
rules_check_body() {
	trixie_setup
	trixie_chroot initdev rules check /usr/lib/udev/rules.d > udev.out 2>&1
	cat udev.out
	n=$(find "$TRIXIE_TREE/usr/lib/udev/rules.d" -name '*.rules' | wc -l)
	[ "$n" -ge 40 ] || atf_fail "only $n rules files in trixie's udev: the case proves little"
	# what initdev lacks on purpose (hwdb, usb_id, input_id, net_id, NAME=, ...)
	# is named "not supported by initdev"; anything else is a language gap
	if grep -v ': not supported by initdev$' udev.out | grep -q .; then
		atf_fail "udev 257's rules: lines initdev does not understand (above)"
	fi
	grep -q 'net_driver' udev.out && atf_fail "net_driver (new in udev 257) is not supported"
	grep -q 'IMPORT{builtin}="net_driver"' "$TRIXIE_TREE/usr/lib/udev/rules.d/50-udev-default.rules" ||
		atf_fail "trixie's 50-udev-default.rules no longer imports net_driver: revisit this case"
	# dracut 106's own rules, every module's: none with a diagnostic
	(cd "$TRIXIE_TREE" && find usr/lib/dracut/modules.d -name '*.rules' | sed 's|^|/|') > drules
	[ -s drules ] || atf_fail "no rules in dracut 106's modules"
	# shellcheck disable=SC2046
	trixie_chroot initdev rules check $(cat drules) > dracut.out 2>&1 ||
		{ cat dracut.out; atf_fail "dracut 106's rules: initdev rules check failed (above)"; }
	echo "$n udev rules files, $(wc -l < drules) dracut rules files checked"
}

# trixie_image NAME [dracut args]: dracut 106 in the tree builds NAME.img
# (here) for the tree's kernel, dracut's non-systemd init with
# STOCK_MODULES and DRIVERS; NAME.img.log is dracut's output.
trixie_image() {
	name=$1
	shift
	w=/var/tmp/initdev-test-$$
	rm -rf "$TRIXIE_TREE$w" && mkdir -p "$TRIXIE_TREE$w" || atf_fail "cannot write in the tree"
	boot_status_hook > "$TRIXIE_TREE$w/status-hook.sh"
	trixie_chroot dracut --no-hostonly --kver "$TKVER" --no-compress --force \
		--no-early-microcode --nostrip -m "$STOCK_MODULES" \
		--omit "systemd systemd-initrd dracut-systemd" --add-drivers "$DRIVERS" \
		"$@" "$w/$name.img" > "$name.img.log" 2>&1
	rc=$?
	mv "$TRIXIE_TREE$w/$name.img" . 2> /dev/null
	rm -rf "$TRIXIE_TREE$w"
	[ $rc -eq 0 ] && [ -s "$name.img" ] ||
		{ tail -n 30 "$name.img.log"; atf_fail "dracut 106 could not build $name.img (above)"; }
	echo "$name.img: $(stat -c %s "$name.img") bytes"
}

atf_test_case plain_boot
plain_boot_head() {
	atf_set descr "Debian 13's kernel 6.12 and dracut 106: the image with initdev boots a plain root as the stock one does, with the same /dev/disk links"
	trixie_head 1200 "qemu-system-x86_64 mkfs.ext4"
}
plain_boot_body() {
	trixie_setup
	# shellcheck source=tests/boot/lib.sh
	. "$(atf_get_srcdir)/lib.sh"
	[ -x /bin/busybox ] || atf_skip "busybox-static is not installed"
	STOCK_MODULES="base rootfs-block udev-rules"
	DRIVERS="virtio_pci virtio_blk ext4"
	TKVER=$(ls "$TRIXIE_TREE/usr/lib/modules" | head -n 1)
	KERNEL=$TRIXIE_TREE/boot/vmlinuz-$TKVER
	[ -f "$KERNEL" ] || atf_fail "no kernel $KERNEL in the tree"
	trixie_image stock
	trixie_image initdev --add initdev --include /var/tmp/initdev-test-$$/status-hook.sh \
		/lib/dracut/hooks/pre-pivot/98-initdev-test-status.sh
	grep -q 'Including module: initdev' initdev.img.log ||
		{ cat initdev.img.log; atf_fail "dracut 106 did not include initdev"; }
	uuid=$(cat /proc/sys/kernel/random/uuid)
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	boot_write_report_init staging || atf_fail "cannot write the reporting init"
	boot_make_ext4 root.ext4 32 staging "$uuid" trixieroot || atf_fail "cannot make root.ext4"
	for n in stock initdev; do
		if ! boot_qemu "$n.log" 900 "$KERNEL" "$n.img" "root=UUID=$uuid rd.retry=30" \
			-drive file=root.ext4,if=virtio,format=raw; then
			boot_log_tail "$n.log"
			atf_fail "the $n image did not reach the root (above)"
		fi
		boot_links "$n.log" > "$n.links"
		echo "$n: root at guest uptime $(boot_result_uptime "$n.log")s, $(wc -l < "$n.links") links"
	done
	grep -qx "by-uuid/$uuid -> /dev/vda" initdev.links ||
		{ boot_log_tail initdev.log; atf_fail "no by-uuid link to the root"; }
	diff -u stock.links initdev.links ||
		atf_fail "/dev/disk links differ: '-' udevd 257 only, '+' initdev only"
	tr -d '\r' < initdev.log | grep -q '^INITDEV-STATUS phase: settled' ||
		{ boot_log_tail initdev.log; atf_fail "initdev was not settled at pre-pivot"; }
	tr -d '\r' < stock.log | grep -q 'INITDEV-PROC' &&
		atf_fail "the stock image ran initdev"
	true
}

atf_init_test_cases() {
	atf_add_test_case rules_check
	atf_add_test_case plain_boot
}
