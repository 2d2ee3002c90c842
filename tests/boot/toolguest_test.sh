#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The tool guest (toolguest-lib.sh): a job runs inside QEMU with the
# stacking tools, sees the files and disks it was given, its output and
# exit status come back, its writes land in the disk images (read-only
# ones stay untouched), its stage is the one asked for, and
# tg_build_disks reuses what it made for the same inputs.
# Cache as in stacked_test.sh (harness_shared_cache).

# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

tg_head() {
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut cpio timeout sha256sum"
	atf_set timeout 300
}

tg_setup() {
	harness_shared_cache
	harness_setup
	# shellcheck source=tests/boot/toolguest-lib.sh
	. "$(atf_get_srcdir)/toolguest-lib.sh"
	img=$(tg_image "$cache") || atf_fail "cannot build the tool image"
	echo "tool image $img ($(stat -c %s "$img") bytes), ready in $(boot_elapsed "$t0")s"
}

# expect_out FILE LINE: FILE has LINE.
expect_out() {
	grep -Fqx -- "$2" "$1" && return 0
	echo "----- $1 -----"; cat "$1"
	atf_fail "no line '$2' in $1"
}

atf_test_case settled_job
settled_job_head() {
	atf_set descr "settled stage: files in, disks written and read, output and exit status back, cached disks reused"
	tg_head
}
settled_job_body() {
	tg_setup
	printf 'from the host\n' > note
	cat > job.sh <<'EOF'
echo "stage=$TG_STAGE"
cat /tg/files/note
[ -S /run/udev/control ] && echo "udevd=running"
[ -L /dev/disk/by-id/virtio-scratch ] && echo "coldplugged=yes"
for t in cryptsetup lvm mdadm dmsetup mkfs.ext4 sfdisk udevadm blkid; do
	command -v "$t" > /dev/null || echo "missing $t"
done
d=$(tg_disk scratch) || exit 9
echo "scratch=$d"
printf 'written in the guest' | dd of="$d" bs=512 conv=sync status=none
sync
exit 7
EOF
	# tg_build_disks: the job's status must be 0 there; this job's 7 is
	# checked with tg_run below
	sed 's/^exit 7$/exit 0/' job.sh > build.sh
	dir=$(tg_build_disks "$cache" tgtest build.sh -f note=/tg/files/note scratch:4) ||
		atf_fail "tg_build_disks failed"
	expect_out "$dir/job.out" "stage=settled"
	expect_out "$dir/job.out" "from the host"
	expect_out "$dir/job.out" "udevd=running"
	expect_out "$dir/job.out" "coldplugged=yes"
	expect_out "$dir/job.out" "scratch=/dev/vda"
	! grep '^missing' "$dir/job.out" || atf_fail "tools missing in the tool image (above)"
	[ "$(head -c 20 "$dir/scratch.img")" = "written in the guest" ] ||
		atf_fail "the guest's write is not in scratch.img"
	t1=$(boot_now)
	again=$(tg_build_disks "$cache" tgtest build.sh -f note=/tg/files/note scratch:4) ||
		atf_fail "tg_build_disks failed the second time"
	[ "$again" = "$dir" ] || atf_fail "same inputs, another directory: $again (first $dir)"
	echo "cached tg_build_disks in $(boot_elapsed "$t1")s"
	printf 'other\n' > note
	other=$(tg_disks_dir "$cache" tgtest build.sh -f note=/tg/files/note scratch:4) ||
		atf_fail "tg_disks_dir failed"
	[ "$other" != "$dir" ] || atf_fail "another file's contents, same cache directory"
	printf 'from the host\n' > note

	truncate -s 4M scratch.img
	tg_run -d scratch=scratch.img -f note=/tg/files/note job.sh job.out
	rc=$?
	[ $rc -eq 7 ] || { cat job.out; atf_fail "tg_run returned $rc, the job exited 7"; }
	expect_out job.out "scratch=/dev/vda"
}

atf_test_case pre_udev_job
pre_udev_job_head() {
	atf_set descr "pre-udev stage: no udevd; a program with its libraries (-p) runs; a read-only disk stays unchanged"
	tg_head
}
pre_udev_job_body() {
	tg_setup
	initdev_locate
	printf 'keep me' > ro.img
	truncate -s 1M ro.img
	before=$(sha256sum < ro.img)
	cat > job.sh <<'EOF'
echo "stage=$TG_STAGE"
[ -e /run/udev/control ] && echo "udevd=running"
pidof systemd-udevd > /dev/null && echo "udevd=process"
/tg/initdev --version
modprobe virtio_blk && modprobe virtio_pci
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 0.2; done
d=$(tg_disk ro) && dd if=/dev/zero of="$d" bs=512 count=1 status=none && echo "wrote=$d"
EOF
	tg_run -s pre-udev -r ro=ro.img -p "$INITDEV_BIN=/tg/initdev" job.sh job.out ||
		{ cat job.out job.out.console | tail -n 40; atf_fail "the job failed"; }
	expect_out job.out "stage=pre-udev"
	! grep -q '^udevd=' job.out || atf_fail "udevd runs at pre-udev: $(grep '^udevd=' job.out)"
	grep -q '^initdev ' job.out || { cat job.out; atf_fail "initdev did not run in the guest"; }
	expect_out job.out "wrote=/dev/vda"
	[ "$(sha256sum < ro.img)" = "$before" ] || atf_fail "the read-only disk changed"
}

atf_init_test_cases() {
	atf_add_test_case settled_job
	atf_add_test_case pre_udev_job
}
