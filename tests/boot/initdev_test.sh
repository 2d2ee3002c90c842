#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# dracut images built with `--add initdev` (the installed 90initdev), booted
# under QEMU/TCG: initdev, not systemd-udevd, populates /dev, loads the
# drivers by MODALIAS and makes the /dev/disk links dracut's stock
# non-systemd init.sh waits for; and those links match udev's, name for name.
#
# Inputs: what `make install` installed, staged by `make stage` (binary and
# 90initdev; see initdev_locate in initdev-lib.sh), never the source tree.
# make check passes the stage as the kyua variable stage_env. While
# developing:
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     atf-sh /work/main/tests/boot/initdev_test.sh -s /work/main/tests/boot CASE
# BOOT_CACHE / boot_cache as in stock_test.sh. The module is never added to
# the shared dracut tree copy: each (module, binary) pair gets its own tree.

STOCK_MODULES="base rootfs-block udev-rules"
DRIVERS="virtio_pci virtio_blk virtio_scsi sd_mod nvme ext4"
ROOT_UUID=5a0c7e21-9d43-4f6b-8e12-3c4d5e6f7081
ROOT_LABEL=initdevroot
PART_UUID=0e9f8d7c-6b5a-4493-8271-605f4e3d2c1b
PART_LABEL="initdev root"
PART_LABEL_ENC='initdev\x20root'
DATA_UUID=2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901
NVME_DATA_UUID=3c4d5e6f-7081-4293-a4b5-c6d7e8f90a12
MBR_DATA_UUID=4d5e6f70-8192-43a4-b5c6-d7e8f90a1b23
MISSING_UUID=00000000-1111-4222-8333-444444444444
# Hostile filesystem labels and their blkid_encode_string() form (REFERENCE §3).
HOSTILE_1='a/b c'
HOSTILE_1_ENC='a\x2fb\x20c'
HOSTILE_2='../x'
HOSTILE_2_ENC='..\x2fx'
# shellcheck disable=SC2016 # the label is the literal text $(x)
HOSTILE_3='$(x)'
HOSTILE_3_ENC='\x24\x28x\x29'
BOOT_TIMEOUT=150

# Next to this program (atf_get_srcdir is not known yet at this point).
# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

# expect_clean_handover: dracut's own init.sh switched root, no udevd ran,
# and all that is left of initdev in the real root is the handoff holder
# (dracut's `udevadm control --exit` made the daemon hand over; nobody
# adopts in these roots): one process, argv[0] @initdev-holder, and its
# socket, state and trace in /run/initdev. Every boot case ends with it (last, so
# that the case's own findings come first).
expect_clean_handover() {
	tr -d '\r' < boot.log | grep -q 'dracut: Switching root' ||
		fail_with_log "dracut's init.sh did not switch root"
	! tr -d '\r' < boot.log | grep -q '^Starting systemd-udevd' ||
		fail_with_log "the real systemd-udevd ran in the initramfs"
	[ "$(log_lines INITDEV-RUN)" = "present: handoff status.json trace" ] ||
		fail_with_log "/run/initdev after switch_root: $(log_lines INITDEV-RUN)"
	procs=$(log_lines INITDEV-PROC)
	case $procs in
	*"
"*) fail_with_log "more than the holder running after switch_root: $procs" ;;
	[0-9]*" "*" @initdev-holder "*) ;;
	*) fail_with_log "no handoff holder after switch_root: '$procs'" ;;
	esac
}

# expect_link NAME TARGET: the guest reported /dev/disk/NAME -> TARGET.
expect_link() {
	boot_has_link boot.log "$1" "$2" && return 0
	fail_with_log "guest has no /dev/disk/$1 -> $2"
}

# status_value GROUP KEY: a value from `initdev status` as saved at
# pre-pivot ("" GROUP for the top-level keys).
status_value() {
	log_lines INITDEV-STATUS | awk -v g="$1" -v k="$2" '
		/^[^ ]/ { grp = $1; sub(/:$/, "", grp)
			  if (g == "" && grp == k) { print $2; exit } }
		/^  / && grp == g { key = $1; sub(/:$/, "", key)
			  if (key == k) { print $2; exit } }'
}

# expect_modules NAME...: each module is loaded in the guest.
expect_modules() {
	for m in "$@"; do
		log_lines INITDEV-MODULE | grep -qx "$m" ||
			fail_with_log "module $m is not loaded in the guest"
	done
}

# expect_image_payload IMG: initdev in, udevd/udevadm only as links to it,
# no udev rules but 60-cdrom_id.rules (initdev runs it, with its own
# cdrom_id) and no udev helper programs.
expect_image_payload() {
	cpio -itv < "$1" > image.list 2> /dev/null || atf_fail "cannot list $1"
	grep -Eq '^-.* (usr/)?s?bin/initdev$' image.list ||
		atf_fail "no initdev binary in the image"
	for name in udevadm systemd-udevd; do
		grep -E "/$name( |$)" image.list > name.list
		[ -s name.list ] || atf_fail "no $name in the image"
		if grep -Ev '^l.* -> .*initdev$' name.list; then
			atf_fail "$name in the image is not a link to initdev (above)"
		fi
	done
	if grep -E 'udev/rules\.d/.+\.rules$|/(ata_id|scsi_id|cdrom_id)$' image.list |
		grep -v 'udev/rules\.d/60-cdrom_id\.rules$'; then
		atf_fail "udev rules or helpers in the image (above)"
	fi
}

# svg_count FILE CLASS: elements <g> of that class in the SVG
svg_count() {
	xmllint --xpath "count(//*[local-name()='g'][contains(concat(' ', @class, ' '), ' $2 ')])" "$1"
}

# expect_trace: the trace the daemon left in /run/initdev at its handoff
# (printed by the root's init with initdev.test.trace), read on the host by
# this build's initdev report: every trigger and module insertion of the
# boot is in it, and the SVG has an element (a row, or a tick in a fold
# row) for every device and module.
expect_trace() {
	log_lines INITDEV-TRACE > trace
	log_lines INITDEV-STATUSJSON > handoff-status.json
	[ -s trace ] || fail_with_log "no trace in /run/initdev after switch_root"
	"$INITDEV_BIN" report --trace "$PWD/trace" --svg "$PWD/boot.svg" > report.txt 2>&1 ||
		atf_fail "initdev report rejects the guest's trace: $(cat report.txt)"
	cat report.txt
	"$INITDEV_BIN" report --trace "$PWD/trace" --json > report.json ||
		atf_fail "initdev report --json failed"
	triggers=$(jq .devices.triggers handoff-status.json)
	loaded=$(jq .modules.loaded handoff-status.json)
	jq -e --argjson t "$triggers" --argjson l "$loaded" '.dropped == 0 and
		.settled_us != null and .triggers == $t and (.devices | length) >= $t and
		([.modules[] | select(.result == "loaded")] | length) == $l and $l >= 2' \
		report.json > /dev/null ||
		atf_fail "the trace does not match status.json ($triggers triggers, $loaded modules loaded)"
	for m in $(jq -r '.modules[] | select(.result == "loaded") | .name' report.json); do
		expect_modules "$m"
	done
	jq -e '[.modules[] | select(.name == "virtio_blk" and .result == "loaded" and
		.devpath != null)] | length == 1' report.json > /dev/null ||
		atf_fail "virtio_blk's insertion is not tied to the device that asked for it"
	jq -e '[.devices[] | select(.devpath | endswith("/block/vda")) |
		select(.handling_us > 0 and .events[0].handlers.disk > 0 and
		.events[0].received_us <= .events[0].handled_us)] | length == 1' report.json \
		> /dev/null || atf_fail "vda is not in the trace with its probe"
	xmllint --noout boot.svg || atf_fail "the SVG is not well-formed"
	[ "$(svg_count boot.svg device)" = "$(jq '.devices | length' report.json)" ] ||
		atf_fail "$(svg_count boot.svg device) device elements in the SVG, $(jq '.devices | length' report.json) devices"
	[ "$(svg_count boot.svg module)" = "$(jq '.modules | length' report.json)" ] ||
		atf_fail "$(svg_count boot.svg module) module elements in the SVG, $(jq '.modules | length' report.json) modules"
}

atf_test_case root_uuid_virtio_blk
root_uuid_virtio_blk_head() {
	atf_set descr "initdev image: root=UUID= on virtio-blk, drivers loaded by MODALIAS, initdev gone after switch_root, its trace read by initdev report"
	initdev_head "jq xmllint"
}
root_uuid_virtio_blk_body() {
	initdev_setup
	expect_image_payload "$INITRD"
	# rd.initdev.debug: initdev then logs to the kernel log in every boot
	initdev_boot "root=UUID=$ROOT_UUID rd.initdev.debug initdev.test.trace" \
		-drive file=root.ext4,if=virtio,format=raw
	expect_link "by-uuid/$ROOT_UUID" /dev/vda
	expect_link "by-label/$ROOT_LABEL" /dev/vda
	# no other loader is in the image: the disk appeared because initdev
	# loaded virtio_pci and virtio_blk; ext4 came with the mount
	expect_modules virtio_pci virtio_blk ext4
	[ "$(status_value "" phase)" = settled ] ||
		fail_with_log "initdev not settled at pre-pivot: phase '$(status_value "" phase)'"
	loaded=$(status_value modules loaded)
	[ "${loaded:-0}" -ge 2 ] ||
		fail_with_log "initdev status counts ${loaded:-no} modules loaded, expected >= 2"
	kmsg=$(log_lines INITDEV-KMSG-COUNT)
	[ "${kmsg:-0}" -gt 0 ] || fail_with_log "no initdev[pid]: line in the kernel log"
	# fs-lib's det_fs asks `udevadm info --query=property` for ID_FS_TYPE
	tr -d '\r' < boot.log | grep -q 'dracut: Checking ext4: ' ||
		fail_with_log "dracut did not learn the root's type (ID_FS_TYPE) from udevadm info"
	expect_trace
	expect_clean_handover
}

atf_test_case root_label_gpt_virtio_scsi
root_label_gpt_virtio_scsi_head() {
	atf_set descr "initdev image: root=LABEL= in a GPT partition on virtio-scsi"
	initdev_head
}
root_label_gpt_virtio_scsi_body() {
	initdev_setup
	boot_make_gpt_disk disk.img root.ext4 "$PART_LABEL" "$PART_UUID" ||
		atf_fail "cannot make the GPT disk image"
	initdev_boot "root=LABEL=$ROOT_LABEL" \
		-device virtio-scsi-pci \
		-drive if=none,id=d0,file=disk.img,format=raw \
		-device scsi-hd,drive=d0,serial=initdev-scsi0
	expect_link "by-label/$ROOT_LABEL" /dev/sda1
	expect_link "by-uuid/$ROOT_UUID" /dev/sda1
	expect_link "by-partuuid/$PART_UUID" /dev/sda1
	expect_link "by-partlabel/$PART_LABEL_ENC" /dev/sda1
	expect_link by-id/scsi-0QEMU_QEMU_HARDDISK_initdev-scsi0 /dev/sda
	expect_link by-id/scsi-0QEMU_QEMU_HARDDISK_initdev-scsi0-part1 /dev/sda1
	expect_modules virtio_scsi sd_mod
	expect_clean_handover
}

atf_test_case root_partuuid_gpt_virtio_scsi
root_partuuid_gpt_virtio_scsi_head() {
	atf_set descr "initdev image: root=PARTUUID= in a GPT partition on virtio-scsi"
	initdev_head
}
root_partuuid_gpt_virtio_scsi_body() {
	initdev_setup
	boot_make_gpt_disk disk.img root.ext4 "$PART_LABEL" "$PART_UUID" ||
		atf_fail "cannot make the GPT disk image"
	initdev_boot "root=PARTUUID=$PART_UUID" \
		-device virtio-scsi-pci \
		-drive if=none,id=d0,file=disk.img,format=raw \
		-device scsi-hd,drive=d0
	expect_link "by-partuuid/$PART_UUID" /dev/sda1
	expect_link "by-partlabel/$PART_LABEL_ENC" /dev/sda1
	expect_link "by-uuid/$ROOT_UUID" /dev/sda1
	expect_clean_handover
}

atf_test_case root_uuid_nvme
root_uuid_nvme_head() {
	atf_set descr "initdev image: root=UUID= on an NVMe namespace"
	initdev_head
}
root_uuid_nvme_body() {
	initdev_setup
	initdev_boot "root=UUID=$ROOT_UUID" \
		-drive if=none,id=nv0,file=root.ext4,format=raw \
		-device nvme,serial=initdev-nvme0,drive=nv0
	expect_link "by-uuid/$ROOT_UUID" /dev/nvme0n1
	expect_link "by-label/$ROOT_LABEL" /dev/nvme0n1
	expect_link by-id/nvme-QEMU_NVMe_Ctrl_initdev-nvme0 /dev/nvme0n1
	expect_modules nvme
	expect_clean_handover
}

# make_hostile_disks: h1..h3.ext4 with the hostile labels.
make_hostile_disks() {
	boot_make_ext4 h1.ext4 8 empty "" "$HOSTILE_1" || atf_fail "cannot make h1.ext4"
	boot_make_ext4 h2.ext4 8 empty "" "$HOSTILE_2" || atf_fail "cannot make h2.ext4"
	boot_make_ext4 h3.ext4 8 empty "" "$HOSTILE_3" || atf_fail "cannot make h3.ext4"
}

HOSTILE_QEMU_ARGS="-drive file=h1.ext4,if=virtio,format=raw
-drive file=h2.ext4,if=virtio,format=raw
-drive file=h3.ext4,if=virtio,format=raw"

atf_test_case hostile_labels
hostile_labels_head() {
	atf_set descr "initdev image: hostile filesystem labels become exactly the udev-encoded names in /dev/disk/by-label"
	initdev_head
}
hostile_labels_body() {
	initdev_setup
	make_hostile_disks
	# shellcheck disable=SC2086 # word splitting of the qemu arguments is wanted
	initdev_boot "root=UUID=$ROOT_UUID" \
		-drive file=root.ext4,if=virtio,format=raw $HOSTILE_QEMU_ARGS
	# targets as by-path names: vdX follow probe order, which parallel
	# driver loading varies; QEMU gives the drives PCI slots 3-6 in order
	boot_links boot.log | by_path_targets | grep '^by-label/' | LC_ALL=C sort > labels.got
	printf '%s\n' "by-label/$HOSTILE_3_ENC -> by-path/pci-0000:00:06.0" \
		"by-label/$HOSTILE_2_ENC -> by-path/pci-0000:00:05.0" \
		"by-label/$HOSTILE_1_ENC -> by-path/pci-0000:00:04.0" \
		"by-label/$ROOT_LABEL -> by-path/pci-0000:00:03.0" | LC_ALL=C sort > labels.want
	if ! diff -u labels.want labels.got; then
		fail_with_log "by-label links differ from the udev-encoded names (diff above)"
	fi
	bad=$(log_lines INITDEV-NOTLINK)
	[ -z "$bad" ] || fail_with_log "not symlinks under /dev/disk/by-*: $bad"
	for d in $(log_lines INITDEV-DISKDIR); do
		case $d in
		by-*) ;;
		*) fail_with_log "unexpected entry /dev/disk/$d" ;;
		esac
	done
	expect_clean_handover
}

atf_test_case cloned_root_on_usb
cloned_root_on_usb_head() {
	atf_set descr "initdev image: a USB stick with a copy of the root's UUID and label does not take the root's names; the tie is logged"
	initdev_head
}
cloned_root_on_usb_body() {
	# the USB host controller and usb-storage, in this case's image only
	DRIVERS="$DRIVERS xhci_pci usb_storage"
	initdev_setup
	# the stick: same UUID and label, an init that would say it was mounted
	cp -a staging stick-staging
	printf '#!/bin/sh\necho STICK-MOUNTED-AS-ROOT > /dev/console\necho o > /proc/sysrq-trigger\n' \
		> stick-staging/sbin/init
	boot_make_ext4 stick.ext4 32 stick-staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the stick's filesystem"
	# the USB controller's PCI address sorts before the disk's: the devpath
	# order a "lowest devpath wins" tie-break would follow
	initdev_boot "root=UUID=$ROOT_UUID" \
		-drive if=none,id=root,file=root.ext4,format=raw \
		-device virtio-blk-pci,drive=root,addr=0x9 \
		-device qemu-xhci,addr=0x3 -drive if=none,id=stick,file=stick.ext4,format=raw \
		-device usb-storage,drive=stick
	! tr -d '\r' < boot.log | grep -q STICK-MOUNTED-AS-ROOT ||
		fail_with_log "the stick was mounted as the root"
	expect_link "by-uuid/$ROOT_UUID" /dev/vda
	expect_link "by-label/$ROOT_LABEL" /dev/vda
	tr -d '\r' < boot.log | grep -q "initdev\[[0-9]*\]: disk/by-uuid/$ROOT_UUID: claimed by /dev/vda and /dev/sda (removable) at the same priority; /dev/vda keeps it (it is not removable)" ||
		fail_with_log "the tie was not logged naming both"
	expect_clean_handover
}

atf_test_case missing_root_emergency
missing_root_emergency_head() {
	atf_set descr "initdev image: a root that never appears is named with the devices seen, then dracut's emergency path within rd.retry"
	initdev_head
}
missing_root_emergency_body() {
	initdev_setup
	# rd.shell=0: no shell, dracut halts (exits init here: kernel panic,
	# panic=-1 and -no-reboot end QEMU). rd.retry=10 is 20 initqueue passes.
	if boot_qemu boot.log "$BOOT_TIMEOUT" "$KERNEL" "$INITRD" \
		"root=UUID=$MISSING_UUID rd.shell=0 rd.retry=10" \
		-drive file=root.ext4,if=virtio,format=raw; then
		fail_with_log "the guest booted without its root device"
	fi
	wall=$(cat boot.log.wall)
	echo "missing root: QEMU ended after ${wall}s"
	awk -v w="$wall" -v t="$BOOT_TIMEOUT" 'BEGIN { exit !(w < t - 10) }' ||
		fail_with_log "QEMU ran into the ${BOOT_TIMEOUT}s timeout: an endless initqueue loop?"
	tr -d '\r' < boot.log | grep -q 'Could not boot' ||
		fail_with_log "dracut's initqueue never gave up ('Could not boot')"
	tr -d '\r' < boot.log | grep -Fq "/dev/disk/by-uuid/$MISSING_UUID does not exist" ||
		fail_with_log "dracut's emergency message does not name the missing root"
	# initdev's emergency hook: the root asked for, and what was there
	tr -d '\r' < boot.log | grep -Fq "initdev: root device root=UUID=$MISSING_UUID was never found" ||
		fail_with_log "initdev did not name the missing root"
	tr -d '\r' < boot.log | grep -q "dracut Warning: /dev/vda (.*UUID=\"$ROOT_UUID\"" ||
		fail_with_log "initdev's list of devices seen lacks /dev/vda with UUID $ROOT_UUID"
	# guest time when the initqueue gave up: rd.retry=10 plus startup
	at=$(tr -d '\r' < boot.log | sed -n 's/^\[ *\([0-9]*\)\.[0-9]*\] dracut Warning: Could not boot.*/\1/p' | head -n 1)
	echo "missing root: 'Could not boot' at guest uptime ${at:-?}s"
	if [ -z "$at" ] || [ "$at" -ge 90 ]; then
		fail_with_log "the initqueue took ${at:-?}s to give up with rd.retry=10"
	fi
	! tr -d '\r' < boot.log | grep -q '^BOOT-RESULT' ||
		fail_with_log "BOOT-RESULT without a root"
}

# normalized_links LOG: boot_links with every by-diskseq/N that matches the
# kernel's diskseq of its target (INITDEV-DISKSEQ) written by-diskseq/=SEQ:
# diskseq numbers follow probe order, which parallel driver loading varies.
normalized_links() {
	log_lines INITDEV-DISKSEQ "$1" > diskseq.map
	boot_links "$1" | awk 'NR == FNR { seq[$1] = $2; next }
		$1 ~ /^by-diskseq\/[0-9]+/ {
			n = $1; sub(/^by-diskseq\//, "", n); rest = n
			sub(/-.*$/, "", n); sub(/^[0-9]+/, "", rest)
			if ((n "") == (seq[$3] "")) $1 = "by-diskseq/=SEQ" rest
		}
		{ print }' diskseq.map - | LC_ALL=C sort | by_path_targets | LC_ALL=C sort
}

# by_path_targets: "NAME -> /dev/X" lines (sorted) with each target written
# as its first by-path name: the kernel's sdX order varies between boots
# (SCSI targets are scanned in parallel), a device's by-path does not. The
# result is sorted again by the caller: lines sorted by /dev/sdX are not
# sorted once their targets are by-path names.
by_path_targets() {
	awk '{ name[NR] = $1; dev[NR] = $3 }
		$1 ~ /^by-path\// && !($3 in key) { key[$3] = $1 }
		END { for (i = 1; i <= NR; i++)
			print name[i], "->", (dev[i] in key ? key[dev[i]] : dev[i]) }'
}

# repart_hook: test instrumentation run at pre-pivot, in the initramfs, with
# initdev still running: give the blank disk vdb a GPT table (sfdisk re-reads it:
# the kernel sends change for vdb and add for vdb1), wait for initdev, note
# the links; then replace it with an MBR table and do it again.
repart_hook() {
	cat <<'EOF'
out=/run/initdev-test.repart
note() {
	for l in /dev/disk/by-partuuid/* /dev/disk/by-partlabel/* /dev/disk/by-path/*-part*; do
		[ -L "$l" ] && echo "$1 ${l#/dev/disk/} -> $(readlink -f "$l")"
	done >> $out
}
# sfdisk re-reads the table itself (BLKRRPART): the kernel announces the
# change then; udevadm settle is initdev's settle
printf 'label: gpt\nstart=2048, size=8192, name=fresh, uuid=9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d\n' |
	sfdisk -q /dev/vdb > /dev/null 2>&1 || echo "GPT sfdisk failed" >> $out
udevadm settle || echo "GPT settle failed" >> $out
note GPT
printf 'label: dos\nlabel-id: 0x0bad0bad\nstart=2048, size=8192, type=83\n' |
	sfdisk -q --wipe always /dev/vdb > /dev/null 2>&1 || echo "MBR sfdisk failed" >> $out
udevadm settle || echo "MBR settle failed" >> $out
note MBR
EOF
}

atf_test_case repartition_change
repartition_change_head() {
	atf_set descr "re-partitioning a disk (GPT, then MBR) while initdev runs updates its links"
	initdev_head
}
repartition_change_body() {
	initdev_setup
	repart_hook > repart-hook.sh
	itree=$(boot_initdev_tree "$cache" "$base") || atf_fail "cannot make the initdev tree"
	INITDEV_BINARY=$itree/initdev-test/initdev
	export INITDEV_BINARY
	img=$(boot_cached_initramfs "$cache" "$itree" "$KVER" "$STOCK_MODULES" "$DRIVERS" \
		--add initdev --install "sfdisk" \
		--include "$itree/initdev-test/status-hook.sh" \
		/lib/dracut/hooks/pre-pivot/98-initdev-test-status.sh \
		--include "$PWD/repart-hook.sh" /lib/dracut/hooks/pre-pivot/97-repart.sh) ||
		atf_fail "dracut could not build the image"
	truncate -s 16M blank.img
	INITRD=$img
	initdev_boot "root=UUID=$ROOT_UUID" \
		-drive file=root.ext4,if=virtio,format=raw -drive file=blank.img,if=virtio,format=raw
	log_lines INITDEV-REPART > repart.txt
	cat repart.txt
	grep -qx 'GPT by-partuuid/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d -> /dev/vdb1' repart.txt ||
		fail_with_log "no by-partuuid link after writing a GPT table"
	grep -qx 'GPT by-partlabel/fresh -> /dev/vdb1' repart.txt ||
		fail_with_log "no by-partlabel link after writing a GPT table"
	grep -qx 'GPT by-path/pci-[0-9a-f:.]*-part1 -> /dev/vdb1' repart.txt ||
		fail_with_log "no by-path -part1 link after writing a GPT table"
	grep -qx 'MBR by-partuuid/0bad0bad-01 -> /dev/vdb1' repart.txt ||
		fail_with_log "no MBR by-partuuid link after re-partitioning"
	! grep -q '^MBR by-partuuid/9a8b7c6d\|^MBR by-partlabel/fresh' repart.txt ||
		fail_with_log "the GPT partition's links survived re-partitioning"
	expect_clean_handover
}

atf_test_case naming_parity
naming_parity_head() {
	atf_set descr "same VM booted with the stock image and the initdev image: identical /dev/disk links"
	initdev_head
}
naming_parity_body() {
	initdev_setup stock
	stock_size=$(stat -c %s "$STOCK_INITRD")
	initdev_size=$(stat -c %s "$INITRD")
	echo "image sizes: stock $stock_size bytes, initdev $initdev_size bytes"
	[ "$initdev_size" -lt "$stock_size" ] ||
		atf_fail "the initdev image is not smaller than the stock one"
	boot_make_ext4 data.ext4 8 empty "$DATA_UUID" scsidata ||
		atf_fail "cannot make data.ext4"
	boot_make_gpt_disk gpt.img data.ext4 "$PART_LABEL" "$PART_UUID" ||
		atf_fail "cannot make the GPT disk image"
	boot_make_ext4 nvme.ext4 8 empty "$NVME_DATA_UUID" nvmedata ||
		atf_fail "cannot make nvme.ext4"
	# an MBR disk too: by-partuuid <disk id>-01 and the -part1 links
	boot_make_ext4 mbrdata.ext4 8 empty "$MBR_DATA_UUID" mbrdata ||
		atf_fail "cannot make mbrdata.ext4"
	boot_make_mbr_disk mbr.img mbrdata.ext4 0x1d15c0de || atf_fail "cannot make the MBR disk"
	make_hostile_disks
	set -- -drive if=none,id=r0,file=root.ext4,format=raw \
		-device virtio-blk-pci,drive=r0,serial=initdev-root \
		-device virtio-scsi-pci \
		-drive if=none,id=d0,file=gpt.img,format=raw \
		-device scsi-hd,drive=d0,serial=initdev-scsi0 \
		-drive if=none,id=d1,file=mbr.img,format=raw \
		-device scsi-hd,drive=d1,serial=initdev-scsi1 \
		-drive if=none,id=nv0,file=nvme.ext4,format=raw \
		-device nvme,serial=initdev-nvme0,drive=nv0
	# shellcheck disable=SC2086
	set -- "$@" $HOSTILE_QEMU_ARGS
	if ! try_boot stock.log "$STOCK_INITRD" "root=UUID=$ROOT_UUID" "$@"; then
		boot_log_tail stock.log
		atf_fail "the stock image did not boot this VM"
	fi
	initdev_boot "root=UUID=$ROOT_UUID" "$@"
	echo "uptime at BOOT-RESULT: stock $(boot_result_uptime stock.log)s," \
		"initdev $(boot_result_uptime boot.log)s"
	normalized_links stock.log > links.stock
	normalized_links boot.log > links.initdev
	[ "$(wc -l < links.stock)" -ge 20 ] ||
		atf_fail "the stock boot reported only $(wc -l < links.stock) links"
	if ! diff -u links.stock links.initdev; then
		atf_fail "/dev/disk links differ: '-' stock udev only, '+' initdev only"
	fi
	grep -q '^by-partuuid/1d15c0de-01 ' links.initdev ||
		atf_fail "no MBR by-partuuid link: $(cat links.initdev)"
	grep -q '^by-id/scsi-0QEMU_QEMU_HARDDISK_initdev-scsi1-part1 ' links.initdev ||
		atf_fail "no -part1 by-id link for the MBR partition"
	echo "parity: $(wc -l < links.stock) links identical"
	expect_clean_handover
}

# expect_refused LOG WHAT: dracut failed with initdev's refusal naming WHAT,
# and a line giving the reason for WHAT.
expect_refused() {
	if ! grep -q "dracut module 'initdev' cannot be combined with: .*$2" "$1"; then
		cat "$1"
		atf_fail "dracut did not refuse initdev together with $2 (log above)"
	fi
	if ! grep -Eq "  $2: .{20}" "$1"; then
		cat "$1"
		atf_fail "dracut's refusal does not say why $2 is refused (log above)"
	fi
}

# early_conflicts TREE: the modules 90initdev refuses that dracut resolves
# before it (their directories sort before 90initdev in TREE/modules.d).
early_conflicts() {
	refused=$(bash -c '. "$1"/modules.d/90initdev/module-setup.sh &&
		initdev_conflicting_modules' sh "$1" | tr -s ' ' '\n') || return 1
	[ -n "$refused" ] || return 1
	for d in "$1"/modules.d/*/; do
		d=${d%/} && d=${d##*/}
		[ "$(printf '%s\n' "$d" 90initdev | LC_ALL=C sort | head -n 1)" = "$d" ] ||
			continue
		name=${d#[0-9][0-9]}
		printf '%s\n' "$refused" | grep -qx -- "$name" && printf '%s ' "$name"
	done
	return 0
}

atf_test_case refuses_rule_modules
refuses_rule_modules_head() {
	atf_set descr "dracut refuses initdev with modules that need udev rules, in check() and in install()"
	atf_set require.user root
	atf_set require.progs "dracut sha256sum"
	atf_set timeout 300
}
refuses_rule_modules_body() {
	# shellcheck source=tests/boot/lib.sh
	. "$(atf_get_srcdir)/lib.sh"
	initdev_locate
	KVER=$(boot_kver) || atf_skip "no kernel with modules"
	cache=$(boot_cache_dir) || atf_fail "cannot create the boot cache dir"
	base=$(boot_cached_dracut_tree "$cache") || atf_fail "cannot copy /usr/lib/dracut"
	itree=$(boot_initdev_tree "$cache" "$base") || atf_fail "cannot make the initdev tree"
	INITDEV_BINARY=$itree/initdev-test/initdev
	export INITDEV_BINARY
	# asked for together: check() sees it
	if boot_make_initramfs network.img "$itree" "$KVER" "$STOCK_MODULES" "" \
		--add "initdev network" 2> /dev/null; then
		atf_fail "dracut built an image with initdev and network"
	fi
	expect_refused network.img.log network
	# dracut's default "all modules" mode: lunmask (95) and the like are
	# only known once install() runs. Which of the refused modules sorted
	# before 90initdev pass their own check() depends on the host's
	# packages (multipath-tools brings 90multipath), so all of those are omitted:
	# check() must let the build through for install() to be tested.
	early=$(early_conflicts "$itree") || atf_fail "cannot list 90initdev's refused modules"
	mkdir -p all/confdir all/tmp && : > all/dracut.conf
	if dracutbasedir=$itree dracut --conf all/dracut.conf --confdir all/confdir \
		--tmpdir "$PWD/all/tmp" --no-hostonly --kver "$KVER" --no-compress \
		--force --add initdev \
		--omit "crypt dm i18n systemd systemd-initrd dracut-systemd $early" \
		"$PWD/all.img" > all.log 2>&1; then
		atf_fail "dracut built a default-set image with initdev (see all.log)"
	fi
	expect_refused all.log lunmask
	[ ! -e all.img ] || atf_fail "a refused build left an image behind"
	grep -q 'Including module: initdev ' all.log ||
		atf_fail "the default-set build did not reach initdev's install()"
	# not asked for: never included, nothing said
	if ! dracutbasedir=$itree dracut --conf all/dracut.conf --confdir all/confdir \
		--tmpdir "$PWD/all/tmp" --no-hostonly --kver "$KVER" --no-compress \
		--force -m "$STOCK_MODULES" --omit "systemd systemd-initrd dracut-systemd" \
		"$PWD/plain.img" > plain.log 2>&1; then
		cat plain.log
		atf_fail "a build without initdev failed"
	fi
	! grep -q "module: initdev \|module 'initdev'" plain.log ||
		atf_fail "initdev showed up in a build that did not ask for it"
}

atf_test_case checks_image_rules
checks_image_rules_head() {
	atf_set descr "dracut builds initdev with crypt, dm, lvm and mdraid and their rules; a rules line initdev cannot run fails the build, named"
	atf_set require.user root
	atf_set require.progs "dracut sha256sum cpio"
	atf_set timeout 300
}
checks_image_rules_body() {
	# shellcheck source=tests/boot/lib.sh
	. "$(atf_get_srcdir)/lib.sh"
	initdev_locate
	KVER=$(boot_kver) || atf_skip "no kernel with modules"
	cache=$(boot_cache_dir) || atf_fail "cannot create the boot cache dir"
	base=$(boot_cached_dracut_tree "$cache") || atf_fail "cannot copy /usr/lib/dracut"
	itree=$(boot_initdev_tree "$cache" "$base") || atf_fail "cannot make the initdev tree"
	INITDEV_BINARY=$itree/initdev-test/initdev
	export INITDEV_BINARY
	stack="crypt dm lvm mdraid"
	boot_make_initramfs stack.img "$itree" "$KVER" "$STOCK_MODULES initdev $stack" "" ||
		atf_fail "dracut refused initdev with $stack: $(tail -n 20 stack.img.log)"
	cpio -it < stack.img > stack.list 2> /dev/null
	for f in 64-lvm.rules 11-dm.rules 59-persistent-storage-dm.rules 63-md-raid-arrays.rules; do
		grep -q "udev/rules.d/$f\$" stack.list || atf_fail "$f is not in the image"
	done
	# udev's own rules stay out: the native handlers do their work
	! grep -q 'rules.d/60-persistent-storage.rules$' stack.list ||
		atf_fail "udev's 60-persistent-storage.rules is in the image"
	# a rules file initdev cannot run (an unsupported builtin) fails the build
	mkdir -p bad/etc/udev/rules.d
	printf '%s\n' '# a comment' 'KERNEL=="sd*", IMPORT{builtin}="net_id"' \
		> bad/etc/udev/rules.d/50-bad.rules
	if boot_make_initramfs bad.img "$itree" "$KVER" "$STOCK_MODULES initdev dm" "" \
		--include "$PWD/bad/etc/udev/rules.d" /etc/udev/rules.d 2> /dev/null; then
		atf_fail "dracut built an image with a rule initdev cannot run"
	fi
	grep -q "50-bad.rules:2: net_id: not supported by initdev" bad.img.log ||
		atf_fail "the build log does not name the line: $(grep initdev bad.img.log | tail -n 5)"
	# the same file masked in /etc (a link to /dev/null), as the daemon reads it: no error
	mkdir -p masked/usr/lib/udev/rules.d masked/etc/udev/rules.d
	cp bad/etc/udev/rules.d/50-bad.rules masked/usr/lib/udev/rules.d/
	ln -s /dev/null masked/etc/udev/rules.d/50-bad.rules
	boot_make_initramfs masked.img "$itree" "$KVER" "$STOCK_MODULES initdev dm" "" \
		--include "$PWD/masked" / 2> /dev/null ||
		atf_fail "a masked rules file failed the build: $(grep initdev masked.img.log | tail -n 5)"
	cpio -itv < masked.img 2> /dev/null | grep -q 'etc/udev/rules.d/50-bad.rules -> /dev/null' ||
		atf_fail "the mask is not in the image (the test did not test masking)"
}

atf_init_test_cases() {
	atf_add_test_case checks_image_rules
	atf_add_test_case root_uuid_virtio_blk
	atf_add_test_case root_label_gpt_virtio_scsi
	atf_add_test_case root_partuuid_gpt_virtio_scsi
	atf_add_test_case root_uuid_nvme
	atf_add_test_case hostile_labels
	atf_add_test_case cloned_root_on_usb
	atf_add_test_case missing_root_emergency
	atf_add_test_case naming_parity
	atf_add_test_case repartition_change
	atf_add_test_case refuses_rule_modules
}
