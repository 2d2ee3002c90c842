#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The boot harness proven on a STOCK dracut image (99base's non-systemd
# init.sh with systemd-udevd inside, no initdev): QEMU/TCG boots a tiny
# busybox root found by UUID on virtio-blk and by GPT PARTUUID on
# virtio-scsi, and the root's /sbin/init reports the /dev/disk links.
#
# lib.sh is sourced from $(atf_get_srcdir)/lib.sh (by harness_setup, in
# initdev-lib.sh, which sits next to this file): in the build tree this
# program is tests/boot/stock_test with lib.sh copied next to it. While
# developing: cd "$(mktemp -d)" && atf-sh /work/main/tests/boot/stock_test.sh \
#     -s /work/main/tests/boot stock_root_uuid_virtio_blk
#
# Expensive inputs (the dracut tree copy, the built initramfs) live in
# BOOT_CACHE (environment) or the atf/kyua variable boot_cache
# (kyua -v test_suites.initdev.boot_cache=DIR test); without either, in the
# test case's own work dir. Cache entries are keyed by their inputs and
# published by rename, so sharing one cache dir between cases is safe.

STOCK_MODULES="base rootfs-block udev-rules"
STOCK_DRIVERS="virtio_pci virtio_blk virtio_scsi sd_mod nvme ext4"
ROOT_UUID=3f1c4a2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b
ROOT_LABEL=stockroot
PART_UUID=6c0b9d4e-1f2a-4b3c-9d8e-7f6a5b4c3d2e
PART_LABEL=stockpart
BOOT_TIMEOUT=150
# The ci set (stacked_set=ci, as scripts/check runs it): the harness on
# virtio-blk; the virtio-scsi case with stacked_set=all (naming_parity and
# the stacked cases boot the stock image on virtio-scsi in CI anyway).
STOCK_CI_CASES="stock_root_uuid_virtio_blk"

# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

stock_head() {
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.ext4 sfdisk timeout"
	atf_set timeout 300
}

# stock_setup: load the harness, build or reuse the stock initramfs, make
# the root filesystem image root.ext4. Sets KVER, KERNEL, INITRD.
stock_setup() {
	harness_setup
	INITRD=$(boot_cached_initramfs "$cache" "$base" "$KVER" "$STOCK_MODULES" \
		"$STOCK_DRIVERS") || atf_fail "dracut could not build the stock image"
	echo "stock: kernel $KVER, image $INITRD ($(stat -c %s "$INITRD") bytes)," \
		"ready in $(boot_elapsed "$t0")s"
	grep -q 'Including module: base ' "$INITRD.log" ||
		atf_fail "dracut did not include 99base (see $INITRD.log)"
	! grep -q 'Including module: systemd ' "$INITRD.log" ||
		atf_fail "dracut included its systemd module: /init would not be init.sh"
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	boot_make_ext4 root.ext4 32 staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the root filesystem image"
}

# stock_boot "APPEND" [qemu args]: boot; on failure show the log and fail.
stock_boot() {
	checked_boot stock "$INITRD" "$@"
	# 99base's own init.sh ran (not systemd) and it ran systemd-udevd.
	tr -d '\r' < boot.log | grep -q '^Starting systemd-udevd' ||
		atf_fail "systemd-udevd did not start in the initramfs"
	tr -d '\r' < boot.log | grep -q 'dracut: Switching root' ||
		atf_fail "dracut's init.sh did not switch root"
}

# expect_link NAME TARGET: the guest reported /dev/disk/NAME -> TARGET.
expect_link() {
	boot_has_link boot.log "$1" "$2" && return 0
	boot_log_tail boot.log
	atf_fail "guest has no /dev/disk/$1 -> $2"
}

atf_test_case stock_root_uuid_virtio_blk
stock_root_uuid_virtio_blk_head() {
	atf_set descr "stock dracut finds root=UUID= on a whole virtio-blk disk"
	stock_head
}
stock_root_uuid_virtio_blk_body() {
	stock_setup
	stock_boot "root=UUID=$ROOT_UUID" \
		-drive file=root.ext4,if=virtio,format=raw
	expect_link "by-uuid/$ROOT_UUID" /dev/vda
	expect_link "by-label/$ROOT_LABEL" /dev/vda
}

atf_test_case stock_root_partuuid_gpt_virtio_scsi
stock_root_partuuid_gpt_virtio_scsi_head() {
	atf_set descr "stock dracut finds root=PARTUUID= in a GPT partition on virtio-scsi"
	stock_head
}
stock_root_partuuid_gpt_virtio_scsi_body() {
	boot_selected stock_root_partuuid_gpt_virtio_scsi "$STOCK_CI_CASES"
	stock_setup
	boot_make_gpt_disk disk.img root.ext4 "$PART_LABEL" "$PART_UUID" ||
		atf_fail "cannot make the GPT disk image"
	stock_boot "root=PARTUUID=$PART_UUID" \
		-device virtio-scsi-pci \
		-drive if=none,id=d0,file=disk.img,format=raw \
		-device scsi-hd,drive=d0
	expect_link "by-partuuid/$PART_UUID" /dev/sda1
	expect_link "by-partlabel/$PART_LABEL" /dev/sda1
	expect_link "by-uuid/$ROOT_UUID" /dev/sda1
}

atf_init_test_cases() {
	atf_add_test_case stock_root_uuid_virtio_blk
	atf_add_test_case stock_root_partuuid_gpt_virtio_scsi
}
