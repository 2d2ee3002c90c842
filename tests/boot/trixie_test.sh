#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# Debian 13 (trixie: udev 257, dracut 106, kernel 6.12), issue 24. Each case
# makes or reuses the trixie tree (scripts/trixie-tree: initdev built and
# installed inside it by trixie's gcc 14) and runs the tree's own initdev.
#   rules_check   `initdev rules check` over the whole of trixie's
#                 /usr/lib/udev/rules.d and dracut 106's modules' rules
#   parity_loop   `initdev rules test` against udev 257's `udevadm test`
#                 (tests/rules/parity.sh run in the tree) on host loop
#                 devices, with dracut 106's dm/lvm/mdraid rules
#   plain_boot    kernel 6.12 and dracut 106's images (built in the tree:
#                 stock, and with --add initdev), booted in QEMU on a
#                 virtio root disk and a second one with a GPT partition
#                 (ext4; label and partlabel with '/', ' ' and ".."): both
#                 reach the root with the same links, udev 257's
#                 partition names (by-diskseq/N-partM, by-path/<ID_PATH>-part/
#                 by-{partnum,partuuid,partlabel,uuid,label}/X) among them
#   stock_lvm_luks, initdev_lvm_luks, stock_md_both, initdev_md_both
#                 stacked_test's LVM on LUKS2 and md RAID1 disks booted by
#                 dracut 106's images (crypt dm lvm mdraid, non-systemd
#                 init) on kernel 6.12: stock, then with --add initdev,
#                 compared (root, dm/md names, links, udev database).
#                 stacked_set=ci runs only TRIXIE_STACKED_CI_CASES.
#   default_image trixie's default image (the systemd initrd, systemd 257
#                 as PID 1) with --add initdev and 90initdev's refused
#                 modules omitted, next to the stock default image, on a
#                 plain root: same links (stacked_set=all only)
# Cold, the tree takes minutes to make (trixie-tree): the timeout allows it.

# shellcheck source=tests/boot/trixie-lib.sh
. "$(dirname "$0")/trixie-lib.sh"
# boot_selected, the boot harness' setup (stacked cases)
# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

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
	# what initdev lacks on purpose (net_id, net_setup_link, uaccess, NAME=, ...)
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
# STOCK_MODULES and DRIVERS (TRIXIE_FLOW=default: dracut's default module
# set, the systemd initrd); NAME.img.log is dracut's output. The args see
# the tree's /var/tmp/initdev-test-$$ holding status-hook.sh and the
# contents of the directory TRIXIE_IMAGE_FILES, if set.
trixie_image() {
	name=$1
	shift
	w=/var/tmp/initdev-test-$$
	rm -rf "$TRIXIE_TREE$w" && mkdir -p "$TRIXIE_TREE$w" || atf_fail "cannot write in the tree"
	boot_status_hook > "$TRIXIE_TREE$w/status-hook.sh"
	if [ -n "${TRIXIE_IMAGE_FILES:-}" ]; then
		cp -R "$TRIXIE_IMAGE_FILES/." "$TRIXIE_TREE$w/" || atf_fail "cannot copy the image's files"
	fi
	[ "${TRIXIE_FLOW:-}" = default ] || set -- -m "$STOCK_MODULES" \
		--omit "systemd systemd-initrd dracut-systemd" --add-drivers "$DRIVERS" "$@"
	trixie_chroot dracut --no-hostonly --kver "$TKVER" --no-compress --force \
		--no-early-microcode --nostrip "$@" "$w/$name.img" > "$name.img.log" 2>&1
	rc=$?
	mv "$TRIXIE_TREE$w/$name.img" . 2> /dev/null
	rm -rf "$TRIXIE_TREE$w"
	[ $rc -eq 0 ] && [ -s "$name.img" ] ||
		{ tail -n 30 "$name.img.log"; atf_fail "dracut 106 could not build $name.img (above)"; }
	echo "$name.img: $(stat -c %s "$name.img") bytes"
}

# trixie_parity SYSPATH ACTION...: tests/rules/parity.sh in the tree (its
# udevadm 257, the initdev built there) with dracut 106's dm, lvm and
# mdraid rules (scripts/dracut-rules-set run in the tree), one run per
# ACTION; outputs in the tree's /tmp/out-ACTION are printed on a difference.
# Returns the last non-zero status of parity.sh (3: not comparable).
trixie_parity() {
	trixie_chroot sh -c '
		s=$1; shift; rc=0
		sh /run/files/dracut-rules-set /tmp/drs > /dev/null
		for a in "$@"; do
			PARITY_OUT=/tmp/out-$a sh /run/files/parity.sh /usr/local/sbin/initdev /tmp/drs "$s" "$a" || rc=$?
		done
		exit $rc' parity "$@"
}

# attach IMG: a loop device on the host for IMG, noted for the cleanup; its syspath
attach() {
	l=$(losetup --find --show "$1") || atf_skip "no loop devices here"
	echo "$l" >> loops
	echo "/sys/class/block/$(basename "$l")"
}

atf_test_case parity_loop cleanup
parity_loop_head() {
	atf_set descr "udev 257's udevadm test and initdev rules test agree on loop devices (ext4 with a hostile label, swap, vfat, empty, LUKS2): properties, links, RUN list, permissions"
	trixie_head 900 "losetup mkfs.ext4 mkswap mkfs.vfat cryptsetup pvcreate"
}
parity_loop_body() {
	trixie_setup
	: > loops
	mkdir files
	cp "$srcdir/tests/rules/parity.sh" "$srcdir/scripts/dracut-rules-set" files/ ||
		atf_fail "no parity.sh or dracut-rules-set in $srcdir"
	TRIXIE_RUN_FILES=$PWD/files
	export TRIXIE_RUN_FILES
	truncate -s 32M a.img b.img c.img d.img luks.img pv.img
	mkfs.ext4 -q -F -L 'lab el$x/..' a.img || atf_fail "mkfs.ext4"
	mkswap -q -L 'sw ap' b.img || atf_fail "mkswap"
	mkfs.vfat -n 'DOS$' c.img > /dev/null 2>&1 || atf_fail "mkfs.vfat"
	printf k > key
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file key luks.img || atf_fail "cryptsetup luksFormat"
	for i in a b c d luks; do
		s=$(attach $i.img)
		trixie_parity "$s" add change remove > "parity-$i.out" 2>&1
		rc=$?
		cat "parity-$i.out"
		[ $rc -eq 0 ] || atf_fail "$i.img: initdev and udev 257 differ (above)"
	done
	# what is new in udev 257 was compared, not only what 252 had too
	grep -q 'ID_FS_SIZE=\|fields equal' parity-a.out || atf_fail "no comparison ran"
	trixie_chroot initdev rules test "/sys/class/block/$(basename "$(sed -n 1p loops)")" > a-add.out 2>&1
	for want in 'ID_FS_SIZE=' 'ID_LOOP_BACKING_INODE=' '/dev/disk/by-loop-inode/' '/dev/disk/by-loop-ref/'; do
		grep -q "$want" a-add.out || { cat a-add.out; atf_fail "initdev gave no $want: udev 257's additions were not compared"; }
	done
	# an LVM PV: 64-lvm.rules runs a PROGRAM, which 257's udevadm test skips
	pvcreate -q -ff -y "$(losetup --find --show pv.img | tee -a loops)" > /dev/null 2>&1 ||
		atf_fail "pvcreate"
	s=/sys/class/block/$(basename "$(tail -n 1 loops)")
	trixie_parity "$s" add > parity-pv.out 2>&1
	rc=$?
	cat parity-pv.out
	[ $rc -eq 3 ] || atf_fail "an LVM PV should be reported not comparable (3), got $rc"
}
parity_loop_cleanup() {
	[ -f loops ] && while read -r l; do losetup -d "$l" 2> /dev/null; done < loops
	true
}

# a loop device whose name (lo_file_name, set by whoever attached it) holds
# a line end: udev 257 exports it raw; initdev keeps it only encoded
atf_test_case loop_name_hostile cleanup
loop_name_hostile_head() {
	atf_set descr "a loop device's backing name with a line end, '/' and '..': only the encoded name is exported, its by-loop-ref link is one component"
	trixie_head 900 losetup
}
loop_name_hostile_body() {
	trixie_setup
	: > loops
	# short: the kernel keeps 63 bytes of the name, and udev drops a name that long
	top=$(mktemp -d /tmp/initdev-l.XXXXXX) && echo "$top" > top || atf_fail "mktemp"
	d=$top/$(printf 'x\nS:vda')
	mkdir "$d" && truncate -s 8M "$d/..img" || atf_fail "cannot make the image"
	s=$(attach "$d/..img")
	trixie_chroot initdev --log-target stderr rules test "$s" > out 2> err
	cat out
	grep -q '^ID_LOOP_BACKING_FILENAME=' out && atf_fail "the raw name with a line end was exported"
	grep -q '^ID_LOOP_BACKING_FILENAME_ENC=.*x\\x0aS:vda\\x2f\.\.img$' out ||
		atf_fail "no encoded name (\\x0a for the line end, \\x2f for '/')"
	grep -q 'by-loop-ref/[^ /]*x\\x0aS:vda\\x2f\.\.img' out || atf_fail "no one-component by-loop-ref link"
	grep -q '^S:vda' out && atf_fail "a line of the output was forged"
	true
}
loop_name_hostile_cleanup() {
	[ -f loops ] && while read -r l; do losetup -d "$l" 2> /dev/null; done < loops
	[ -f top ] && rm -rf "$(cat top)"
	true
}

# gpt_disk IMG PARTUUID FSUUID: a 16 MiB disk image with a GPT (sfdisk on
# the file) and one partition at 1 MiB, partlabel "p/ar t..", holding an
# ext4 filesystem labelled "da ta/.." (mkfs.ext4 at that offset). Nothing
# is mounted or attached.
gpt_disk() {
	rm -f "$1" && truncate -s 16M "$1" || return 1
	printf 'label: gpt\nstart=2048, size=24576, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=%s, name="p/ar t.."\n' \
		"$2" | sfdisk -q "$1" > /dev/null || return 1
	mkfs.ext4 -q -F -L 'da ta/..' -U "$3" -E offset=1048576 "$1" 12M > /dev/null
}

atf_test_case plain_boot
plain_boot_head() {
	atf_set descr "Debian 13's kernel 6.12 and dracut 106: the image with initdev boots a plain root as the stock one does, with the same /dev/disk links, udev 257's partition names on a second (GPT) disk among them"
	trixie_head 1200 "qemu-system-x86_64 mkfs.ext4 sfdisk"
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
	partuuid=$(cat /proc/sys/kernel/random/uuid)
	fsuuid=$(cat /proc/sys/kernel/random/uuid)
	gpt_disk parts.img "$partuuid" "$fsuuid" || atf_fail "cannot make parts.img"
	# (-drive serial= is gone from QEMU: the disk is a -device, at slot 5 so that
	# it enumerates after the root's and is vdb)
	for n in stock initdev; do
		if ! boot_qemu "$n.log" 900 "$KERNEL" "$n.img" "root=UUID=$uuid rd.retry=30" \
			-drive file=root.ext4,if=virtio,format=raw \
			-drive file=parts.img,if=none,id=parts,format=raw \
			-device virtio-blk-pci,drive=parts,serial=initdev-parts,addr=0x5; then
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
	# udev 257's partition names were compared, not only what 252 made too
	pl='p\\x2far\\x20t..' fl='da\\x20ta\\x2f..'
	for want in "by-diskseq/[0-9]*-part1" "by-id/virtio-initdev-parts-part1" \
		"by-path/[^/]*-part/by-partnum/1" "by-path/[^/]*-part/by-partuuid/$partuuid" \
		"by-path/[^/]*-part/by-partlabel/$pl" "by-path/[^/]*-part/by-uuid/$fsuuid" \
		"by-path/[^/]*-part/by-label/$fl" "by-partlabel/$pl" "by-label/$fl"; do
		grep -qx "$want -> /dev/vdb1" stock.links ||
			atf_fail "udevd 257 made no $want for vdb1: revisit this case"
	done
	tr -d '\r' < initdev.log | grep -q '^INITDEV-STATUS phase: settled' ||
		{ boot_log_tail initdev.log; atf_fail "initdev was not settled at pre-pivot"; }
	tr -d '\r' < stock.log | grep -q 'INITDEV-PROC' &&
		atf_fail "the stock image ran initdev"
	true
}

# ---- stacked roots (LVM on LUKS2, md RAID1) in dracut 106's non-systemd init
# The disks are stacked_test's (stacked-lib.sh: made once by Debian 12's
# cryptsetup, lvm2 and mdadm in a tool guest, cached in the shared boot
# cache); trixie's kernel 6.12 and dracut 106 boot them, its cryptsetup
# 2.7, lvm2 2.03.31 and mdadm 4.4 open them in the images. stock_* boots
# trixie's stock image (dracut's crypt dm lvm mdraid modules, udevd 257)
# and keeps its console log for the initdev_* case of the same scenario,
# which boots the same image with --add initdev (booting the stock one
# first when no log is cached) and compares: root device, dm/md names,
# every link under /dev/disk, /dev/mapper, /dev/md and the VG's directory,
# the udev database the root finds.
#
# The cases of the "ci" set (stacked_set=ci, as scripts/check runs them):
# a list of its own, so that it can be emptied (or filled) apart from
# stacked_test's. The others run with stacked_set=all.
TRIXIE_STACKED_CI_CASES="initdev_lvm_luks"
TRIXIE_STACKED_TIMEOUT=240

# trixie_stacked_setup CASE: skip unless selected; the tree, the boot
# harness and its shared cache, the stacked disks (DISKS); KERNEL and TKVER
# are trixie's.
trixie_stacked_setup() {
	boot_selected "$1" "$TRIXIE_STACKED_CI_CASES"
	trixie_setup
	harness_shared_cache
	harness_setup
	# shellcheck source=tests/boot/toolguest-lib.sh
	. "$(atf_get_srcdir)/toolguest-lib.sh"
	# shellcheck source=tests/boot/stacked-lib.sh
	. "$(atf_get_srcdir)/stacked-lib.sh"
	DISKS=$(stacked_disks "$cache") || atf_fail "the tool guest could not make the disks"
	echo "stacked: disks in $DISKS (made by Debian 12's tools), ready in $(boot_elapsed "$t0")s"
	TKVER=$(ls "$TRIXIE_TREE/usr/lib/modules" | head -n 1)
	KERNEL=$TRIXIE_TREE/boot/vmlinuz-$TKVER
	[ -f "$KERNEL" ] || atf_fail "no kernel $KERNEL in the tree"
	BOOT_TIMEOUT=$TRIXIE_STACKED_TIMEOUT
}

# trixie_stacked_image stock|initdev: dracut 106's image for the stacked
# roots (STACKED_MODULES and udev-rules, STACKED_DRIVERS, the key file at
# STACKED_KEY_PATH, the pre-mount hook; initdev adds --add initdev and the
# status hook), cached in the boot cache under a key of the tree, the
# initdev built in it and every argument. Sets IMG.
trixie_stacked_image() {
	kind=$1
	rm -rf imgfiles && mkdir -p "imgfiles/keys$(dirname "$STACKED_KEY_PATH")" ||
		atf_fail "cannot make imgfiles"
	stacked_key "imgfiles/keys$STACKED_KEY_PATH" && stacked_premount_hook > imgfiles/premount.sh ||
		atf_fail "cannot write the image's files"
	w=/var/tmp/initdev-test-$$
	set -- --include "$w/keys" / --include "$w/premount.sh" \
		/lib/dracut/hooks/pre-mount/10-stack-premount.sh
	[ "$kind" = stock ] || set -- "$@" --add initdev --include "$w/status-hook.sh" \
		/lib/dracut/hooks/pre-pivot/98-initdev-test-status.sh
	STOCK_MODULES="$STACKED_MODULES udev-rules" DRIVERS=$STACKED_DRIVERS
	key=$( {
		printf '%s\n' "$TRIXIE_TREE" "$TKVER" "$STOCK_MODULES" "$DRIVERS" "$kind"
		cat imgfiles/premount.sh
		# (initdev's build: only the initdev image holds it)
		[ "$kind" = stock ] || { cat "$TRIXIE_TREE/usr/src/initdev.key"; boot_status_hook; }
	} | sha256sum | cut -c1-16)
	IMG=$cache/trixie-stacked-$kind-$key.img
	if [ ! -s "$IMG" ]; then
		TRIXIE_IMAGE_FILES=$PWD/imgfiles
		# (the args name the work directory of trixie_image's process: $$ is ours)
		trixie_image "$kind" "$@"
		unset TRIXIE_IMAGE_FILES
		cp "$kind.img.log" "$IMG.log" && cp "$kind.img" "$IMG.tmp" && mv "$IMG.tmp" "$IMG" ||
			atf_fail "cannot keep $kind.img in the cache"
	fi
	grep -q 'Including module: systemd ' "$IMG.log" &&
		atf_fail "dracut 106 included its systemd module: /init would not be init.sh"
	for m in crypt dm lvm mdraid; do
		grep -q "Including module: $m " "$IMG.log" ||
			{ cat "$IMG.log"; atf_fail "dracut 106 did not include $m"; }
	done
	if [ "$kind" = initdev ]; then
		grep -q 'Including module: initdev ' "$IMG.log" ||
			{ cat "$IMG.log"; atf_fail "dracut 106 did not include initdev"; }
	fi
	echo "$kind: image $IMG ($(stat -c %s "$IMG") bytes)"
}

# trixie_stacked_boot SCENARIO IMAGE LOG: checked_stacked_boot (initdev-lib.sh),
# and the guest ran trixie's kernel.
trixie_stacked_boot() {
	checked_stacked_boot "$@"
	tr -d '\r' < "$3" | grep -q 'Linux version 6\.12\.' ||
		{ boot_log_tail "$3"; atf_fail "$1: the guest did not run kernel 6.12"; }
}

# trixie_stock_log_path SCENARIO: where the stock boot of SCENARIO with
# these disks and this image keeps its console log.
trixie_stock_log_path() {
	k=$(printf '%s\n' "$1" "$STOCK_IMG" "$DISKS" "$(stacked_append "$1")" | sha256sum | cut -c1-16)
	echo "$cache/trixie-stock-boot-$1-$k.log"
}

# trixie_stock_case SCENARIO
trixie_stock_case() {
	trixie_stacked_setup "stock_$(echo "$1" | tr - _)"
	trixie_stacked_image stock
	STOCK_IMG=$IMG
	trixie_stacked_boot "$1" "$STOCK_IMG" boot.log
	tr -d '\r' < boot.log | grep -q '^Starting systemd-udevd version 257' ||
		atf_fail "systemd-udevd 257 did not start in the stock image"
	log=$(trixie_stock_log_path "$1")
	cp boot.log "$log.tmp" && mv "$log.tmp" "$log"
}

# trixie_initdev_case SCENARIO
trixie_initdev_case() {
	trixie_stacked_setup "initdev_$(echo "$1" | tr - _)"
	trixie_stacked_image initdev
	INITDEV_IMG=$IMG
	trixie_stacked_image stock
	STOCK_IMG=$IMG
	stock_log=$(trixie_stock_log_path "$1")
	if [ ! -s "$stock_log" ]; then
		echo "$1: no stock boot log in the cache, booting the stock image first"
		trixie_stacked_boot "$1" "$STOCK_IMG" stock.log
		stock_log=stock.log
	fi
	trixie_stacked_boot "$1" "$INITDEV_IMG" boot.log
	tr -d '\r' < boot.log | grep -q '^Starting systemd-udevd' &&
		atf_fail "$1: systemd-udevd started in the initdev image"
	stacked_initdev_compare "$1" "$stock_log" boot.log
}

trixie_stacked_head() {
	trixie_head 1200 "qemu-system-x86_64 dracut mkfs.ext4 cpio mkfifo timeout sha256sum awk"
}

atf_test_case stock_lvm_luks
stock_lvm_luks_head() {
	atf_set descr "trixie's stock image (dracut 106, udevd 257, kernel 6.12) boots LVM on LUKS2 (key file in the image): dm-1 vgcrypt-root, the links"
	trixie_stacked_head
}
stock_lvm_luks_body() { trixie_stock_case lvm-luks; }

atf_test_case initdev_lvm_luks
initdev_lvm_luks_head() {
	atf_set descr "dracut 106's image with initdev boots LVM on LUKS2 as trixie's stock image does: same root, mapper names, links and udev database"
	trixie_stacked_head
}
initdev_lvm_luks_body() { trixie_initdev_case lvm-luks; }

atf_test_case stock_md_both
stock_md_both_head() {
	atf_set descr "trixie's stock image boots an md RAID1 root (both disks, mdadm 4.4): md127 md/mdroot, the links"
	trixie_stacked_head
}
stock_md_both_body() { trixie_stock_case md-both; }

atf_test_case initdev_md_both
initdev_md_both_head() {
	atf_set descr "dracut 106's image with initdev boots the md RAID1 root as trixie's stock image does: same array, links and udev database"
	trixie_stacked_head
}
initdev_md_both_body() { trixie_initdev_case md-both; }


atf_test_case default_image
default_image_head() {
	atf_set descr "trixie's default image (dracut 106's systemd initrd, systemd 257 as PID 1) with --add initdev and only 90initdev's refused modules omitted boots a plain root as the stock default image does, with the same links"
	trixie_head 1500 "qemu-system-x86_64 mkfs.ext4"
}
default_image_body() {
	boot_selected default_image ""
	trixie_setup
	# shellcheck source=tests/boot/lib.sh
	. "$(atf_get_srcdir)/lib.sh"
	[ -x /bin/busybox ] || atf_skip "busybox-static is not installed"
	TKVER=$(ls "$TRIXIE_TREE/usr/lib/modules" | head -n 1)
	KERNEL=$TRIXIE_TREE/boot/vmlinuz-$TKVER
	[ -f "$KERNEL" ] || atf_fail "no kernel $KERNEL in the tree"
	TRIXIE_FLOW=default
	trixie_image stock
	grep -q 'Including module: systemd-initrd ' stock.img.log ||
		{ cat stock.img.log; atf_fail "trixie's default image is not a systemd initrd"; }
	# the modules 90initdev (as installed in the tree) refuses that the stock build has
	refused=$(trixie_chroot bash -c '. /usr/lib/dracut/modules.d/90initdev/module-setup.sh &&
		initdev_conflicting_modules' | tr -s ' ' '\n') && [ -n "$refused" ] ||
		atf_fail "cannot list 90initdev's refused modules"
	omit=$(sed -n 's/.*Including module: \([^ ]*\) .*/\1/p' stock.img.log |
		while read -r m; do printf '%s\n' "$refused" | grep -qx -- "$m" && printf '%s ' "$m"; done)
	omit=${omit% }
	echo "refused modules the stock default image includes, omitted: ${omit:-none}"
	trixie_image initdev --add initdev ${omit:+--omit "$omit"}
	for m in initdev systemd-initrd; do
		grep -q "Including module: $m " initdev.img.log ||
			{ cat initdev.img.log; atf_fail "the initdev image has no $m"; }
	done
	uuid=$(cat /proc/sys/kernel/random/uuid)
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	boot_make_ext4 root.ext4 32 staging "$uuid" trixiesysd || atf_fail "cannot make root.ext4"
	for n in stock initdev; do
		if ! boot_qemu "$n.log" 420 "$KERNEL" "$n.img" \
			"root=UUID=$uuid rd.emergency=poweroff $BOOT_DRACUT_APPEND" \
			-drive file=root.ext4,if=virtio,format=raw; then
			boot_log_tail "$n.log"
			atf_fail "the $n default image did not reach the root (above)"
		fi
		# by-diskseq/N: the kernel's numbers differ between boots
		boot_links "$n.log" | grep -v '^by-diskseq/' > "$n.links"
		echo "$n: root reached, wall $(cat "$n.log.wall")s, $(wc -l < "$n.links") links"
	done
	grep -qx "by-uuid/$uuid -> /dev/vda" initdev.links ||
		{ boot_log_tail initdev.log; atf_fail "no by-uuid link to the root"; }
	diff -u stock.links initdev.links ||
		atf_fail "/dev/disk links differ: '-' udevd 257 only, '+' initdev only"
	tr -d '\r' < initdev.log | grep -q 'initdev\[[0-9]*\]: settled at kernel SEQNUM' ||
		{ boot_log_tail initdev.log; atf_fail "initdev did not settle in the systemd initrd"; }
	tr -d '\r' < stock.log | grep -q 'initdev\[' && atf_fail "the stock image ran initdev"
	true
}

atf_init_test_cases() {
	atf_add_test_case rules_check
	atf_add_test_case parity_loop
	atf_add_test_case loop_name_hostile
	atf_add_test_case plain_boot
	atf_add_test_case stock_lvm_luks
	atf_add_test_case initdev_lvm_luks
	atf_add_test_case stock_md_both
	atf_add_test_case initdev_md_both
	atf_add_test_case default_image
}
