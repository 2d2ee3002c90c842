#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# dracut's resume module with initdev, under QEMU/TCG: a real hibernation
# cycle. The root swaps on a GPT partition of a second disk (vdb1) and
# hibernates (`echo disk > /sys/power/state`, /sys/power/disk=shutdown);
# the next boot, with resume=UUID=<the swap's UUID>, must continue the saved
# system. Nothing but the initramfs can resume it: the kernel cannot resolve
# UUID= itself, so the resume comes from 95resume's rules (99-resume.rules:
# ID_FS_TYPE==swsuspend, RUN+= initqueue ... > /sys/power/resume, the
# /dev/resume link dracut's initqueue waits for) or its pre-mount hook
# (readlink of the by-uuid link), each of which needs the device manager's
# probe, links and rules. The same cycle with the stock image (udevd).
#
# What is checked:
#   the hibernating boot: resume= names a swap with no image in it, and the
#     boot goes on to the root (issue 22: "no image in the swap: the boot
#     goes on"), which then hibernates (the kernel powers the guest off);
#   the resuming boot: the root's init prints the token it drew before it
#     hibernated ("continued token=T"): the saved system runs again, and no
#     fresh boot of the root happened;
#   a swap whose hibernation header is garbage (the S1SUSPEND signature over
#     an image pointer that leads nowhere): the kernel refuses it and the
#     boot goes on to the root, with initdev as with udevd.
#
# Both flows: dracut's non-systemd init (base rootfs-block udev-rules
# resume), and dracut's default image, a systemd initrd, where
# systemd-hibernate-resume-generator's unit waits for the swap's device
# unit (plugged by initdev's database and broadcast) and writes
# /sys/power/resume (systemd_*: the default images, ~140 MB each).
#
# Cases in the ci set (STACKED_SET / stacked_set, as stacked_test):
# initdev_resume and initdev_garbage_header; stacked_set=all adds the
# stock cycles they are compared with and the systemd flow's two cycles.
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     atf-sh /work/main/tests/boot/resume_test.sh -s /work/main/tests/boot initdev_resume

STOCK_MODULES="base rootfs-block udev-rules resume"
DRIVERS="virtio_pci virtio_blk ext4"
ROOT_UUID=7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5
ROOT_LABEL=resumeroot
SWAP_UUID=5e6f7081-92a3-44b5-86c7-d8e9fa0b1c2d
SWAP_LABEL=resumeswap
SWAP_PARTUUID=6f708192-a3b4-45c6-97d8-e9fa0b1c2d3e
BOOT_TIMEOUT=200
RESUME_CI_CASES="initdev_resume initdev_garbage_header"

# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

# resume_selected CASE: skip CASE unless the selected set holds it.
resume_selected() { boot_selected "$1" "$RESUME_CI_CASES"; }

# write_resume_init FILE: the root's init after the report (init-report):
# with initdev.test.hibernate on the command line, swap on vdb1 and
# hibernate; when the write to /sys/power/state returns, the saved system
# runs again (or hibernation failed: said so). Without it: a fresh boot.
write_resume_init() {
	{
		boot_init_head
		cat <<'EOF'
read -r up _ < /proc/uptime
if grep -qw initdev.test.hibernate /proc/cmdline; then
	read -r token < /proc/sys/kernel/random/uuid
	if ! swapon /dev/vdb1; then
		echo "RESUME-TEST swapon-failed"
	else
		# the resume device of this boot, as the initramfs left it
		echo "RESUME-TEST resume-device $(cat /sys/power/resume)"
		cat /sys/class/block/vdb1/dev > /sys/power/resume
		echo shutdown > /sys/power/disk
		echo "RESUME-TEST hibernating token=$token"
		if echo disk > /sys/power/state; then
			read -r up _ < /proc/uptime
			echo "RESUME-TEST continued token=$token"
		else
			echo "RESUME-TEST hibernate-failed"
		fi
	fi
else
	echo "RESUME-TEST fresh"
fi
echo "BOOT-RESULT ok uptime=$up"
echo BOOT-END
poweroff -f
exit 1
EOF
	} > "$1"
	chmod 0755 "$1"
}

# resume_setup [stock]: the images (initdev's, and with "stock" the stock
# one), the root (the reporting init, then write_resume_init) and the swap
# disk swap.img (GPT, partition 1 = swap with SWAP_UUID).
resume_setup() {
	initdev_setup "${1:-}"
	grep -q 'Including module: resume ' "$INITRD.log" ||
		atf_fail "dracut did not include its resume module with initdev (see $INITRD.log)"
	resume_root
}

# resume_root: the root's init (write_resume_init behind the report), root.ext4, swap.fs.
resume_root() {
	write_resume_init staging/sbin/init-report || atf_fail "cannot write the root's init"
	ln -sf busybox staging/bin/swapon
	boot_make_ext4 root.ext4 32 staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the root filesystem image"
	rm -f swap.fs
	truncate -s 256M swap.fs || atf_fail "cannot make the swap area"
	# (mkswap warns of the file's holes and mode: it is a disk image here)
	mkswap -U "$SWAP_UUID" -L "$SWAP_LABEL" swap.fs > mkswap.log 2>&1 || {
		cat mkswap.log
		atf_fail "mkswap failed"
	}
}

# resume_systemd_setup [stock]: dracut's default image (a systemd initrd
# where systemd is installed) with --add initdev, the refused modules the
# stock build includes omitted (as systemd_initrd_test), and with "stock"
# the stock default image; the root and the swap as resume_setup.
resume_systemd_setup() {
	STOCK_MODULES="" DRIVERS="" BOOT_TIMEOUT=420
	harness_setup
	initdev_locate
	[ -x /lib/systemd/systemd ] || atf_skip "systemd is not installed: dracut's default image is not a systemd initrd"
	default_images resume
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	boot_write_report_init staging || atf_fail "cannot write the reporting init"
	resume_root
}

# swap_disk: swap.img, the GPT disk holding swap.fs (as it is now).
swap_disk() {
	boot_make_gpt_disk swap.img swap.fs resume-swap "$SWAP_PARTUUID" ||
		atf_fail "cannot make the swap disk"
}

# guest LOG IMAGE "APPEND": boot IMAGE with the root and the swap disk.
guest() {
	boot_qemu "$1" "$BOOT_TIMEOUT" "$KERNEL" "$2" \
		"root=UUID=$ROOT_UUID resume=UUID=$SWAP_UUID rd.emergency=poweroff $3 $BOOT_DRACUT_APPEND" \
		-drive file=root.ext4,if=virtio,format=raw \
		-drive file=swap.img,if=virtio,format=raw
}

# test_lines PREFIX LOG: the guest's RESUME-TEST lines that start with PREFIX.
test_lines() {
	tr -d '\r' < "$2" | sed -n "s/^RESUME-TEST $1//p"
}

# switched LOG: the initramfs switched root (dracut's init.sh says so; in
# the systemd initrd, PID 1 starts initrd-switch-root.service).
switched() {
	tr -d '\r' < "$1" | grep -q 'dracut: Switching root\|initrd-switch-root\.service'
}

# cycle NAME IMAGE: hibernate in one boot, resume in the next.
cycle() {
	name=$1 img=$2
	swap_disk
	guest hibernate.log "$img" initdev.test.hibernate || true
	echo "$name: hibernating boot: wall $(cat hibernate.log.wall)s"
	switched hibernate.log || {
		boot_log_tail hibernate.log
		atf_fail "$name: with no image in the swap, the boot did not reach the root"
	}
	token=$(test_lines 'hibernating token=' hibernate.log)
	[ -n "$token" ] || {
		boot_log_tail hibernate.log
		atf_fail "$name: the root did not hibernate"
	}
	if test_lines '' hibernate.log | grep -q 'continued\|failed'; then
		boot_log_tail hibernate.log
		atf_fail "$name: hibernation did not power the guest off"
	fi
	echo "$name: hibernated with token $token ($(test_lines 'resume-device ' hibernate.log) in /sys/power/resume at the root)"
	if ! guest resume.log "$img" ""; then
		boot_log_tail resume.log
		atf_fail "$name: the resuming boot did not end"
	fi
	echo "$name: resuming boot: wall $(cat resume.log.wall)s"
	if test_lines '' resume.log | grep -qx fresh; then
		boot_log_tail resume.log
		atf_fail "$name: the saved system was not resumed: the root booted afresh"
	fi
	[ "$(test_lines 'continued token=' resume.log)" = "$token" ] || {
		boot_log_tail resume.log
		atf_fail "$name: the resumed system is not the one that hibernated (token $token)"
	}
	tr -d '\r' < resume.log | grep -q 'PM: hibernation: resume from hibernation' || {
		boot_log_tail resume.log
		atf_fail "$name: the kernel did not say it resumed from hibernation"
	}
	# the kernel resumed inside the initramfs, not after the root was mounted
	! switched resume.log || {
		boot_log_tail resume.log
		atf_fail "$name: the resuming boot switched root before it resumed"
	}
}

# garbage NAME IMAGE: the swap's header says S1SUSPEND, its image pointer
# leads past the end of the disk: the boot goes on to the root.
garbage() {
	name=$1 img=$2
	# struct swsusp_header at the end of the first page: image (sector_t)
	# at 4064, orig_sig at 4076, sig at 4086
	printf '\377\377\377\377\377\377\377\000' |
		dd of=swap.fs bs=1 seek=4064 conv=notrunc status=none &&
		printf 'SWAPSPACE2' | dd of=swap.fs bs=1 seek=4076 conv=notrunc status=none &&
		printf 'S1SUSPEND\000' | dd of=swap.fs bs=1 seek=4086 conv=notrunc status=none ||
		atf_fail "cannot forge the hibernation header"
	[ "$(blkid -p -o value -s TYPE swap.fs)" = swsuspend ] ||
		atf_fail "blkid does not see the forged header as swsuspend"
	swap_disk
	if ! guest boot.log "$img" ""; then
		boot_log_tail boot.log
		atf_fail "$name: with a garbage hibernation image the boot did not reach the root"
	fi
	echo "$name: wall $(cat boot.log.wall)s"
	test_lines '' boot.log | grep -qx fresh || fail_with_log "$name: the root did not boot afresh"
	# the initramfs did hand the device to the kernel, which refused it
	tr -d '\r' < boot.log | grep -q 'PM: hibernation: Failed to load image, recovering' ||
		fail_with_log "$name: the initramfs never asked the kernel to resume from the forged swap"
}

atf_test_case initdev_resume
initdev_resume_head() {
	atf_set descr "initdev image with dracut's resume module: no image in the swap, the boot goes on; hibernated, the next boot resumes the saved system"
	initdev_head "mkswap blkid" 600
}
initdev_resume_body() {
	resume_selected initdev_resume
	resume_setup
	cycle initdev "$INITRD"
}

atf_test_case stock_resume
stock_resume_head() {
	atf_set descr "stock image (udevd) with dracut's resume module: the same hibernation cycle"
	initdev_head "mkswap blkid" 600
}
stock_resume_body() {
	resume_selected stock_resume
	resume_setup stock
	cycle stock "$STOCK_INITRD"
}

atf_test_case initdev_garbage_header
initdev_garbage_header_head() {
	atf_set descr "initdev image: a swap whose hibernation header is garbage: the boot goes on to the root"
	initdev_head "mkswap blkid" 600
}
initdev_garbage_header_body() {
	resume_selected initdev_garbage_header
	resume_setup
	garbage initdev "$INITRD"
}

atf_test_case stock_garbage_header
stock_garbage_header_head() {
	atf_set descr "stock image (udevd): a swap whose hibernation header is garbage: the boot goes on to the root"
	initdev_head "mkswap blkid" 600
}
stock_garbage_header_body() {
	resume_selected stock_garbage_header
	resume_setup stock
	garbage stock "$STOCK_INITRD"
}

atf_test_case systemd_initdev_resume
systemd_initdev_resume_head() {
	atf_set descr "dracut's default image (a systemd initrd) with --add initdev: the hibernation cycle, resumed by systemd-hibernate-resume once initdev plugs the swap's device unit"
	initdev_head "mkswap blkid bash" 1500
}
systemd_initdev_resume_body() {
	resume_selected systemd_initdev_resume
	resume_systemd_setup
	cycle initdev "$INITRD"
}

atf_test_case systemd_stock_resume
systemd_stock_resume_head() {
	atf_set descr "dracut's default image (a systemd initrd), stock udevd: the same hibernation cycle"
	initdev_head "mkswap blkid bash" 1500
}
systemd_stock_resume_body() {
	resume_selected systemd_stock_resume
	resume_systemd_setup
	cycle stock "$STOCK_INITRD"
}

atf_init_test_cases() {
	atf_add_test_case initdev_resume
	atf_add_test_case stock_resume
	atf_add_test_case initdev_garbage_header
	atf_add_test_case stock_garbage_header
	atf_add_test_case systemd_initdev_resume
	atf_add_test_case systemd_stock_resume
}
