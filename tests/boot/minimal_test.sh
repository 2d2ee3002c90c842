#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# examples/minimal-init booted under QEMU/TCG: a busybox /init (no dracut,
# no udev) where initdev populates /dev, loads virtio_blk by MODALIAS and
# finds root=UUID=; the root's /sbin/init then sees initdev's /dev/disk
# links in the /dev the initramfs moved into it.
#
# Inputs: the initdev binary from the staged install (as initdev_test:
# INITDEV_STAGE_ENV or the kyua variable stage_env); the example: environment
# INITDEV_EXAMPLE, $(atf_get_srcdir)/minimal-init (copied next to the test in
# out-of-tree builds), $(atf_get_srcdir)/../../examples/minimal-init (the
# source tree; examples are not installed). While developing:
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     atf-sh /work/main/tests/boot/minimal_test.sh -s /work/main/tests/boot CASE

# Next to this program (atf_get_srcdir is not known yet at this point).
# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

ROOT_UUID=7b1e2d3c-4a5f-4e6d-9c8b-1a2b3c4d5e6f
ROOT_LABEL=minimalroot
BOOT_TIMEOUT=150

# minimal_setup: load the harness, build the image (INITRD) and root.ext4.
minimal_setup() {
	here=$(atf_get_srcdir)
	initdev_locate
	bin=$INITDEV_BIN
	for ex in "${INITDEV_EXAMPLE:-}" "$here/minimal-init" "$here/../../examples/minimal-init"; do
		[ -n "$ex" ] && [ -f "$ex/mkinitramfs" ] && [ -f "$ex/init" ] && break
		ex=
	done
	[ -n "$ex" ] || atf_fail "no examples/minimal-init (set INITDEV_EXAMPLE)"
	KVER=$(boot_kver) || atf_skip "no kernel image with modules to boot"
	KERNEL=$(boot_kernel "$KVER")
	[ -x /bin/busybox ] || atf_skip "busybox-static is not installed"
	t0=$(boot_now)
	INITDEV=$(readlink -f "$bin") sh "$ex/mkinitramfs" initrd.img "$KVER" \
		virtio_pci virtio_blk ext4 > mkinitramfs.log 2>&1 || {
		cat mkinitramfs.log
		atf_fail "mkinitramfs failed"
	}
	INITRD=$PWD/initrd.img
	echo "minimal: kernel $KVER, image $(stat -c %s "$INITRD") bytes in $(boot_elapsed "$t0")s"
	cpio -it < "$INITRD" > initrd.list 2> /dev/null || atf_fail "cannot list the image"
	for f in init usr/sbin/initdev etc/initrd-release bin/busybox \
		"lib/modules/$KVER/modules.dep.bin"; do
		grep -qx "$f" initrd.list || atf_fail "image lacks $f"
	done
	grep -q '/libkmod\.so\.2$' initrd.list || atf_fail "image lacks libkmod.so.2"
	grep -q '/virtio_blk\.ko' initrd.list || atf_fail "image lacks virtio_blk.ko"
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	boot_write_report_init staging || atf_fail "cannot write the report init"
	boot_make_ext4 root.ext4 32 staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the root filesystem image"
}

# minimal_boot "APPEND" [qemu args]: boot; on failure show the log and fail.
minimal_boot() {
	append=$1
	shift
	if ! boot_qemu boot.log "$BOOT_TIMEOUT" "$KERNEL" "$INITRD" "$append" "$@"; then
		boot_log_tail boot.log
		atf_fail "guest did not reach BOOT-END (see the log above)"
	fi
	up=$(boot_result_uptime boot.log) || {
		boot_log_tail boot.log
		atf_fail "no 'BOOT-RESULT ok' line"
	}
	echo "minimal: BOOT-RESULT at guest uptime ${up}s, wall $(cat boot.log.wall)s"
	echo "minimal: links:"
	boot_links boot.log
}

# expect_link NAME TARGET: the guest reported /dev/disk/NAME -> TARGET.
expect_link() {
	boot_has_link boot.log "$1" "$2" && return 0
	boot_log_tail boot.log
	atf_fail "guest has no /dev/disk/$1 -> $2"
}

# expect_line RE: a console line (carriage returns dropped) matches RE.
expect_line() {
	tr -d '\r' < boot.log | grep -Eq -- "$1" && return 0
	boot_log_tail boot.log
	atf_fail "no console line matches: $1"
}

atf_test_case minimal_root_uuid_virtio_blk
minimal_root_uuid_virtio_blk_head() {
	atf_set descr "the minimal busybox /init with initdev boots root=UUID= on virtio-blk"
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 mkfs.ext4 timeout cpio depmod modprobe ldd"
	atf_set timeout 300
}
minimal_root_uuid_virtio_blk_body() {
	minimal_setup
	grep -q '/virtio_blk\.ko' "/lib/modules/$KVER/modules.dep" ||
		atf_skip "virtio_blk is built into $KVER: initdev would load nothing"
	# rd.initdev.debug: "loaded module" is logged at info, below the default;
	# printk.devkmsg=on: no /dev/kmsg rate limit to drop it.
	minimal_boot "root=UUID=$ROOT_UUID ro rd.initdev.debug printk.devkmsg=on" \
		-drive file=root.ext4,if=virtio,format=raw
	expect_link "by-uuid/$ROOT_UUID" /dev/vda
	expect_link "by-label/$ROOT_LABEL" /dev/vda
	# virtio_blk is a module, it is loaded, and initdev loaded it.
	expect_line '^INITDEV-MODULE virtio_blk$'
	expect_line 'initdev\[[0-9]+\]: loaded module virtio_blk for '
	# the daemon was stopped before switch_root; it left its trace
	expect_line '^INITDEV-RUN present: trace$'
	# and udev's database went, as dracut's init does it (initdev as udevadm)
	if tr -d '\r' < boot.log | grep -q 'init: udevadm info --cleanup-db failed'; then
		boot_log_tail boot.log
		atf_fail "udevadm info --cleanup-db failed in the example's init"
	fi
	if tr -d '\r' < boot.log | grep -q '^INITDEV-PROC '; then
		boot_log_tail boot.log
		atf_fail "an initdev process survived switch_root"
	fi
}

atf_init_test_cases() {
	atf_add_test_case minimal_root_uuid_virtio_blk
}
