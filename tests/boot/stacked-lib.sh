# SPDX-License-Identifier: MIT
# Stacked roots for the boot tests (issue 14): LUKS2, LVM, md RAID1, LVM on
# LUKS and hostile names. POSIX sh, sourced after lib.sh and
# toolguest-lib.sh. Prefix stacked_.
#
# - stacked_disks CACHE: every disk image of every scenario, made in one
#   tool-guest run (toolguest-lib.sh) and cached by a key of its inputs.
# - stacked_image CACHE stock|initdev: the dracut image that boots them,
#   stock (99base's init.sh with systemd-udevd) or with --add initdev.
# - stacked_boot SCENARIO DISKDIR IMAGE LOG: boot one scenario; the root's init
#   reports what it sees (STACK-* lines, below); stacked_links LOG is the
#   comparable listing, stacked_compare_links STOCK OTHER compares two.
#
# Scenario names (stacked_append and stacked_disk_list give their command
# line and disks): luks-key, luks-pass, lvm-mapper, lvm-uuid, md-both,
# md-degraded, lvm-luks, hostile.

# The dracut modules and drivers of the images that boot the roots.
STACKED_MODULES="base rootfs-block crypt dm lvm mdraid"
STACKED_DRIVERS="virtio_pci virtio_blk ext4 dm_mod dm_crypt md_mod raid0 raid1"
# Key file (inside the image, for rd.luks.key=PATH:/) and passphrase; both
# open every LUKS volume below (key slots 0 and 1).
STACKED_KEY_PATH=/etc/stacked.key
STACKED_PASSPHRASE="stacked pass phrase"
# Fixed identities: the inner filesystems, LUKS headers and md arrays.
# LVM's own UUIDs are random (made once, then cached with the disks).
STACKED_LUKS_UUID=7b1d0c9e-25a4-4f8e-9c61-1a2b3c4d5e01
STACKED_LUKS_FS=c1000000-0000-4000-8000-000000000001
STACKED_LUKS_LABEL=cryptroot
STACKED_LVM_FS=c1000000-0000-4000-8000-000000000002
STACKED_MD_UUID=5d3c2b1a-0f9e-8d7c-6b5a-493827160501
STACKED_MD_UUID_COLON=5d3c2b1a:0f9e8d7c:6b5a4938:27160501
STACKED_MD_FS=c1000000-0000-4000-8000-000000000003
STACKED_LL_UUID=7b1d0c9e-25a4-4f8e-9c61-1a2b3c4d5e02
STACKED_LL_FS=c1000000-0000-4000-8000-000000000004
# hostile: a LUKS label with "../", a VG and LV with every character LVM
# allows besides [A-Za-z0-9] (+ _ . -), an md array name with a "/"
STACKED_H_UUID=7b1d0c9e-25a4-4f8e-9c61-1a2b3c4d5e03
STACKED_H_LABEL=../x
STACKED_H_LABEL_ENC='..\x2fx'
STACKED_H_VG=h+_.-vg
STACKED_H_LV=r+_.-lv
STACKED_H_DM=h+_.--vg-r+_.--lv
STACKED_H_FS=c1000000-0000-4000-8000-000000000005
STACKED_H_MD_NAME=a/b
STACKED_H_MD_UUID=5d3c2b1a-0f9e-8d7c-6b5a-493827160502
STACKED_H_MD_UUID_COLON=5d3c2b1a:0f9e8d7c:6b5a4938:27160502
STACKED_H_MD_FS=c1000000-0000-4000-8000-000000000006
# bad input: a RAID0 of two disks (r0a, r0b) of which only r0a is attached
STACKED_R0_UUID=5d3c2b1a-0f9e-8d7c-6b5a-493827160503
STACKED_R0_FS=c1000000-0000-4000-8000-000000000007

# stacked_key FILE: the key file's contents (fixed, so images cache).
stacked_key() {
	printf 'initdev stacked-roots test key, not a secret: %s\n' \
		0123456789abcdef0123456789abcdef > "$1"
}

# stacked_write_init STAGING: a reporting /sbin/init in front of the
# harness one (kept as /sbin/init-disk, which prints BOOT-RESULT, the
# /dev/disk links as BOOT-LINK and BOOT-END). It adds, one a line:
#   STACK-ROOT MAJ:MIN KNAME FSTYPE SOURCE what / is mounted from
#   STACK-LINK PATH -> TARGET              every symlink under /dev but
#                                          fd, std*, core, char/* (PATH
#                                          without /dev/, TARGET readlink -f)
#   STACK-NODE PATH b|c MAJ:MIN            block nodes outside /dev's top
#                                          level (/dev/mapper/NAME nodes)
#   STACK-DM dm-N NAME UUID                each dm device (sysfs)
#   STACK-MD mdN STATE DEGRADED LEVEL MEMBERS
#   STACK-DB FILE MODE                     each /run/udev/data entry left
#   STACK-DBLINE FILE LINE                 after switch_root (db_persist)
#                                          and its lines
#   STACK-UDEVRUN PATH TYPE                everything under /run/udev
#   STACK-UDEVCONTROL present|absent       /run/udev/control
#   STACK-PREMOUNT NAME -> TARGET|node     /dev/mapper and /dev/md before
#                                          the root was mounted (the
#                                          pre-mount hook's record)
# A disk with the serial stacktools (STACKED_EXTRA_DISK) is mounted at
# /tools and its /tools/run is run before the harness' init.
stacked_write_init() {
	mv "$1/sbin/init" "$1/sbin/init-disk" || return 1
	{
		boot_init_head
		cat <<'EOF'
line=$(grep -E '^[0-9]+ [0-9]+ [0-9]+:[0-9]+ [^ ]+ / ' /proc/self/mountinfo | tail -n 1)
fs=${line#* - }
set -- $line
kname=$(readlink "/sys/dev/block/$3")
echo "STACK-ROOT $3 ${kname##*/} ${fs% *}"
find /dev \( -path /dev/fd -o -path /dev/char \) -prune -o -type l -print | sort | while read -r l; do
	case $l in /dev/std* | /dev/core) continue ;; esac
	echo "STACK-LINK ${l#/dev/} -> $(readlink -f "$l")"
done
find /dev -mindepth 2 \( -type b -o -type c \) ! -path '/dev/pts/*' ! -path '/dev/shm/*' |
	sort | while read -r n; do
	t=c; [ -b "$n" ] && t=b
	echo "STACK-NODE ${n#/dev/} $t $(printf '%d:%d' 0x$(stat -c '%t 0x%T' "$n"))"
done
for d in /sys/block/dm-*; do
	[ -d "$d/dm" ] || continue
	echo "STACK-DM ${d##*/} $(cat "$d/dm/name") $(cat "$d/dm/uuid")"
done
for d in /sys/block/md*; do
	[ -d "$d/md" ] || continue
	echo "STACK-MD ${d##*/} $(cat "$d/md/array_state") $(cat "$d/md/degraded" 2> /dev/null || echo -)" \
		"$(cat "$d/md/level") $(ls "$d/slaves" | tr '\n' ' ')"
done
for f in /run/udev/data/*; do
	[ -f "$f" ] || continue
	echo "STACK-DB ${f##*/} $(stat -c '%a' "$f")"
	sed "s|^|STACK-DBLINE ${f##*/} |" "$f"
done
[ -d /run/udev ] && find /run/udev -mindepth 1 | sort | while read -r f; do
	t=f; [ -d "$f" ] && t=d; [ -L "$f" ] && t="l $(readlink "$f")"; [ -S "$f" ] && t=s
	echo "STACK-UDEVRUN ${f#/run/udev/} $t"
done
if [ -e /run/udev/control ]; then echo "STACK-UDEVCONTROL present"; else echo "STACK-UDEVCONTROL absent"; fi
[ -f /run/stack-premount ] && sed 's/^/STACK-PREMOUNT /' /run/stack-premount
tools=
for b in /sys/block/vd*; do
	[ "$(cat "$b/serial" 2> /dev/null)" = stacktools ] && tools=/dev/${b##*/}
done
if [ -n "$tools" ] && mkdir -p /tools && mount -o ro "$tools" /tools && [ -x /tools/run ]; then
	/tools/run
fi
exec /sbin/init-disk
EOF
	} > "$1/sbin/init"
	chmod 0755 "$1/sbin/init"
}

# stacked_root_tree DIR: the root tree every scenario's root filesystem
# holds (made fresh in DIR).
stacked_root_tree() {
	rm -rf "$1"
	boot_make_rootfs "$1" && stacked_write_init "$1"
}

# stacked_job: the tool-guest job that makes every scenario's disks. The
# root tree is at /tg/root and the key at /tg/key in the guest.
stacked_job() {
	cat <<EOF
set -eu
key=/tg/key
pass='$STACKED_PASSPHRASE'
root() { mkfs.ext4 -q -F -d /tg/root -U "\$2" -L "\${3:-stackroot}" "\$1"; }
luks() { # DISK UUID LABEL NAME: LUKS2, key file slot 0, passphrase slot 1, opened as NAME
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \\
		--uuid "\$2" --label "\$3" --key-file "\$key" "\$1"
	printf '%s' "\$pass" | cryptsetup luksAddKey -q --pbkdf pbkdf2 \\
		--pbkdf-force-iterations 1000 --key-file "\$key" "\$1" -
	cryptsetup open --key-file "\$key" "\$1" "\$4"
}
lv() { # PV VG LV: a VG on PV with a 16 MiB LV
	lvm pvcreate -q "\$1"
	lvm vgcreate -q "\$2" "\$1"
	lvm lvcreate -q -y -L 16M -n "\$3" "\$2"
	udevadm settle
}
md() { # NAME UUID DISK DISK [LEVEL]: RAID1 (or LEVEL), metadata 1.2
	mdadm --create "/dev/md/tg\$\$" --name="\$1" --uuid="\$2" --metadata=1.2 \\
		--level="\${5:-1}" --raid-devices=2 --run --assume-clean "\$3" "\$4"
	udevadm settle
}
step() { echo "== \$* (uptime \$(cut -d' ' -f1 /proc/uptime))"; }

step luks
luks "\$(tg_disk luks)" $STACKED_LUKS_UUID $STACKED_LUKS_LABEL c1
root /dev/mapper/c1 $STACKED_LUKS_FS
cryptsetup close c1

step lvm
lv "\$(tg_disk lvm)" vgroot root
root /dev/vgroot/root $STACKED_LVM_FS
lvm vgchange -q -an vgroot

step md
md mdroot $STACKED_MD_UUID "\$(tg_disk md1)" "\$(tg_disk md2)"
root "/dev/md/tg\$\$" $STACKED_MD_FS
mdadm --stop "/dev/md/tg\$\$"

step lvm-luks
luks "\$(tg_disk lvmluks)" $STACKED_LL_UUID cryptpv c2
lv /dev/mapper/c2 vgcrypt root
root /dev/vgcrypt/root $STACKED_LL_FS
lvm vgchange -q -an vgcrypt
cryptsetup close c2

step hostile
luks "\$(tg_disk hluks)" $STACKED_H_UUID '$STACKED_H_LABEL' c3
lv /dev/mapper/c3 '$STACKED_H_VG' '$STACKED_H_LV'
root '/dev/$STACKED_H_VG/$STACKED_H_LV' $STACKED_H_FS
lvm vgchange -q -an '$STACKED_H_VG'
cryptsetup close c3
md '$STACKED_H_MD_NAME' $STACKED_H_MD_UUID "\$(tg_disk hmd1)" "\$(tg_disk hmd2)"
mkfs.ext4 -q -F -U $STACKED_H_MD_FS -L mddata "/dev/md/tg\$\$"
mdadm --detail --export "/dev/md/tg\$\$"
mdadm --stop "/dev/md/tg\$\$"

step raid0
md r0 $STACKED_R0_UUID "\$(tg_disk r0a)" "\$(tg_disk r0b)" 0
mkfs.ext4 -q -F -U $STACKED_R0_FS -L r0data "/dev/md/tg\$\$"
mdadm --stop "/dev/md/tg\$\$"

step done
blkid
EOF
}

# stacked_disks CACHE: build or reuse every scenario's disks; prints the
# directory (luks.img lvm.img md1.img md2.img lvmluks.img hluks.img
# hmd1.img hmd2.img, and job.out, the job's output).
stacked_disks() (
	cache=$1
	work=$(mktemp -d "$cache/.stacked-inputs.XXXXXX") || return 1
	trap 'rm -rf "$work"' EXIT
	stacked_root_tree "$work/root" || return 1
	stacked_key "$work/key" && stacked_job > "$work/job.sh" || return 1
	tg_build_disks "$cache" stacked "$work/job.sh" \
		-f "$work/root=/tg/root" -f "$work/key=/tg/key" \
		luks:40 lvm:32 md1:32 md2:32 lvmluks:48 hluks:48 hmd1:24 hmd2:24 r0a:16 r0b:16
)

# stacked_bad_disks DIR: the bad-input disks, derived on the host from the
# good ones in DIR (stacked_disks) once: luksbad.img (luks.img with both
# LUKS2 JSON metadata areas zeroed: the binary headers, and so blkid's
# view, are intact, their checksums are not) and lvmtrunc.img (lvm.img cut
# to 8 MiB: the PV says 32 MiB, the LV's extents lie beyond the end).
stacked_bad_disks() (
	dir=$1
	if [ ! -f "$dir/luksbad.img" ]; then
		cp "$dir/luks.img" "$dir/.luksbad.tmp" &&
			dd if=/dev/zero of="$dir/.luksbad.tmp" bs=4096 seek=1 count=3 conv=notrunc 2> /dev/null &&
			dd if=/dev/zero of="$dir/.luksbad.tmp" bs=4096 seek=5 count=3 conv=notrunc 2> /dev/null &&
			mv "$dir/.luksbad.tmp" "$dir/luksbad.img" || return 1
	fi
	if [ ! -f "$dir/lvmtrunc.img" ]; then
		cp "$dir/lvm.img" "$dir/.lvmtrunc.tmp" && truncate -s 8M "$dir/.lvmtrunc.tmp" &&
			mv "$dir/.lvmtrunc.tmp" "$dir/lvmtrunc.img" || return 1
	fi
)

# stacked_keyfile_dir CACHE: a directory holding the key file at
# STACKED_KEY_PATH, for --include into the images. Prints its path.
stacked_keyfile_dir() (
	dir=$1/stacked-keyfile
	mkdir -p "$dir$(dirname "$STACKED_KEY_PATH")" &&
		stacked_key "$dir$STACKED_KEY_PATH" && echo "$dir"
)

# stacked_premount_hook: a pre-mount hook (test instrumentation, in both
# images alike) recording what /dev/mapper and /dev/md hold once dracut
# found the root and before it mounts it, for the root's init to report.
stacked_premount_hook() {
	cat <<'EOF'
# stacked-roots boot test: /dev/mapper and /dev/md before the root is mounted
for _stk in /dev/mapper/* /dev/md/*; do
	if [ -L "$_stk" ]; then
		echo "${_stk#/dev/} -> $(readlink -f "$_stk")"
	elif [ -b "$_stk" ]; then
		echo "${_stk#/dev/} node"
	fi
done > /run/stack-premount
unset _stk
EOF
}

# stacked_image CACHE stock|initdev: build or reuse the image that boots
# the stacked roots (STACKED_MODULES, plus initdev for "initdev", which
# needs INITDEV_BIN and INITDEV_MODULE as for boot_initdev_image); the key
# file is included at STACKED_KEY_PATH. Prints its path. KVER must be set.
# Fails if dracut does (its output's tail on stderr); the build log is
# IMAGE.log (IMAGE.failed.log after a failure).
stacked_image() (
	cache=$1 kind=$2
	keys=$(stacked_keyfile_dir "$cache") || return 1
	hook=$keys.premount.sh
	stacked_premount_hook > "$hook" || return 1
	base=$(boot_cached_dracut_tree "$cache") || return 1
	case $kind in
	stock)
		boot_cached_initramfs "$cache" "$base" "$KVER" "$STACKED_MODULES" \
			"$STACKED_DRIVERS" --include "$keys" / \
			--include "$hook" /lib/dracut/hooks/pre-mount/10-stack-premount.sh
		;;
	initdev)
		itree=$(boot_initdev_tree "$cache" "$base") || return 1
		INITDEV_BINARY=$itree/initdev-test/initdev
		export INITDEV_BINARY
		boot_cached_initramfs "$cache" "$itree" "$KVER" "$STACKED_MODULES" \
			"$STACKED_DRIVERS" --add initdev --include "$keys" / \
			--include "$hook" /lib/dracut/hooks/pre-mount/10-stack-premount.sh \
			--include "$itree/initdev-test/status-hook.sh" \
			/lib/dracut/hooks/pre-pivot/98-initdev-test-status.sh
		;;
	*) echo "stacked_image: unknown kind $kind" >&2; return 1 ;;
	esac
)

# stacked_key_arg: the rd.luks.key word for the key file in the image:
# PATH:/ (dracut's parse-keydev.sh: keydev "/" is the initramfs) or, with
# STACKED_SYSTEMD set, PATH (systemd-cryptsetup-generator's form, which a
# systemd initrd reads; there a :DEVICE after PATH names a key device).
stacked_key_arg() {
	if [ -n "${STACKED_SYSTEMD:-}" ]; then
		echo "rd.luks.key=$STACKED_KEY_PATH"
	else
		echo "rd.luks.key=$STACKED_KEY_PATH:/"
	fi
}

# stacked_append SCENARIO: its kernel command line (root and rd.* words).
stacked_append() {
	case $1 in
	luks-key) echo "root=UUID=$STACKED_LUKS_FS rd.luks.uuid=$STACKED_LUKS_UUID $(stacked_key_arg)" ;;
	luks-pass) echo "root=UUID=$STACKED_LUKS_FS rd.luks.uuid=$STACKED_LUKS_UUID" ;;
	lvm-mapper) echo "root=/dev/mapper/vgroot-root rd.lvm.lv=vgroot/root" ;;
	lvm-uuid) echo "root=UUID=$STACKED_LVM_FS rd.lvm.lv=vgroot/root" ;;
	md-both | md-degraded) echo "root=UUID=$STACKED_MD_FS rd.md.uuid=$STACKED_MD_UUID" ;;
	lvm-luks) echo "root=/dev/mapper/vgcrypt-root rd.luks.uuid=$STACKED_LL_UUID" \
		"$(stacked_key_arg) rd.lvm.lv=vgcrypt/root" ;;
	hostile) echo "root=/dev/mapper/$STACKED_H_DM rd.luks.uuid=$STACKED_H_UUID" \
		"$(stacked_key_arg) rd.lvm.lv=$STACKED_H_VG/$STACKED_H_LV rd.md.uuid=$STACKED_H_MD_UUID" ;;
	luks-handoff) stacked_append luks-key ;;
	# bad input and withheld devices: cryptsetup's prompt is bounded
	# (rd.luks.timeout), the initqueue gives up after rd.retry (late words)
	luks-wrongpass) echo "root=UUID=$STACKED_LUKS_FS rd.luks.uuid=$STACKED_LUKS_UUID rd.luks.timeout=5" ;;
	luks-badheader) echo "$(stacked_append luks-key) rd.luks.timeout=5" ;;
	md-gone) stacked_append md-both ;;
	lvm-truncated) stacked_append lvm-mapper ;;
	md-missing) echo "root=UUID=$STACKED_R0_FS rd.md.uuid=$STACKED_R0_UUID" ;;
	*) echo "stacked_append: unknown scenario $1" >&2; return 1 ;;
	esac
}

# stacked_append_late SCENARIO: words that go after BOOT_DRACUT_APPEND
# (dracut takes the last of a repeated rd.* word): md-degraded's shorter
# rd.retry, as dracut starts a degraded array only after 2/3 of it.
stacked_append_late() {
	case $1 in
	md-degraded | luks-wrongpass | luks-badheader | md-gone | lvm-truncated | md-missing)
		echo "rd.retry=10" ;;
	esac
}

# stacked_disk_list SCENARIO: its disks, NAME (image NAME.img, virtio
# serial NAME), in attachment order.
stacked_disk_list() {
	case $1 in
	luks-key | luks-pass) echo luks ;;
	lvm-mapper | lvm-uuid) echo lvm ;;
	md-both) echo md1 md2 ;;
	md-degraded) echo md1 ;;
	lvm-luks) echo lvmluks ;;
	hostile) echo hluks hmd1 hmd2 ;;
	luks-handoff | luks-wrongpass) echo luks ;;
	luks-badheader) echo luksbad ;;
	md-gone) ;;
	lvm-truncated) echo lvmtrunc ;;
	md-missing) echo r0a ;;
	*) echo "stacked_disk_list: unknown scenario $1" >&2; return 1 ;;
	esac
}

# stacked_boot SCENARIO DISKDIR IMAGE LOG [qemu args]: boot SCENARIO's
# disks (snapshot=on: the cached images stay as made) with IMAGE; the
# console in LOG. Succeeds if the root's init reported (BOOT-END). For
# luks-pass (luks-wrongpass), STACKED_PASSPHRASE ("wrong pass phrase") is
# typed when cryptsetup asks. STACKED_EXTRA_DISK, if set, is attached
# read-only after the scenario's disks, with the serial stacktools.
stacked_boot() (
	sc=$1 dir=$2 img=$3 log=$4
	shift 4
	list=$(stacked_disk_list "$sc") && append=$(stacked_append "$sc") || return 1
	append="$append $BOOT_DRACUT_APPEND $(stacked_append_late "$sc")"
	n=0
	for d in $list ${STACKED_EXTRA_DISK:+stacktools}; do
		f=$dir/$d.img
		[ "$d" = stacktools ] && f=$STACKED_EXTRA_DISK
		set -- "$@" -drive "if=none,id=stk$n,file=$f,format=raw,snapshot=on" \
			-device "virtio-blk-pci,drive=stk$n,serial=$d"
		n=$((n + 1))
	done
	case $sc in
	luks-pass) STACKED_TYPE=$STACKED_PASSPHRASE stacked_qemu_typing "$log" "$img" "$append" "$@" ;;
	luks-wrongpass) STACKED_TYPE="wrong pass phrase" stacked_qemu_typing "$log" "$img" "$append" "$@" ;;
	*) boot_qemu "$log" "$BOOT_TIMEOUT" "$KERNEL" "$img" "$append" "$@" ;;
	esac
)

# stacked_qemu_typing LOG IMAGE APPEND [qemu args]: boot_qemu, but with the
# console's input on a FIFO: once LOG shows cryptsetup's passphrase
# prompt, STACKED_TYPE and a newline are typed (once). The console is
# QEMU's stdio, muxed with the monitor (-nographic): Ctrl-A would reach
# the monitor, so the passphrase must not hold one.
stacked_qemu_typing() (
	log=$1 img=$2 append=$3
	shift 3
	fifo=$log.in
	rm -f "$fifo" && mkfifo "$fifo" || return 1
	# read-write open: never blocks, and QEMU never sees end of input
	exec 3<> "$fifo"
	t0=$(boot_now)
	timeout -k 5 "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -m 1024 -smp 2 \
		-nographic -no-reboot -nic none -kernel "$KERNEL" -initrd "$img" \
		-append "console=ttyS0 panic=-1 $append" "$@" < "$fifo" > "$log" 2>&1 &
	qpid=$!
	typed=0 i=0
	while kill -0 "$qpid" 2> /dev/null && [ $i -lt $((BOOT_TIMEOUT * 5)) ]; do
		if [ $typed -eq 0 ] && grep -q 'Enter passphrase for' "$log"; then
			sleep 0.5
			printf '%s\n' "$STACKED_TYPE" >&3
			echo "stacked_qemu_typing: passphrase typed after $(boot_elapsed "$t0")s" >&2
			typed=1
		fi
		sleep 0.2
		i=$((i + 1))
	done
	wait "$qpid"
	rc=$?
	exec 3>&-
	rm -f "$fifo"
	boot_elapsed "$t0" > "$log.wall"
	echo "stacked_qemu_typing: $log: qemu exit $rc, wall $(cat "$log.wall")s, typed=$typed" >&2
	tr -d '\r' < "$log" | grep -qx 'BOOT-END'
)

# stacked_lines PREFIX LOG: the guest's PREFIX lines, prefix removed.
stacked_lines() {
	tr -d '\r' < "$2" | sed -n "s/^$1 //p"
}

# stacked_links LOG: the links to compare between images: every link under
# /dev/disk, /dev/mapper, /dev/md and the VG directories ("PATH ->
# TARGET", sorted), but by-diskseq (numbers differ between boots) and
# /dev/block (udev's MAJ:MIN links for every device) and /dev/rtc. A
# target that is a whole virtio disk is written /dev/virtio-SERIAL (from
# the log's own by-id links): which disk becomes vdb and which vdc follows
# the kernel's parallel probe order, which varies from boot to boot.
stacked_links() {
	stacked_lines STACK-LINK "$1" |
		grep -Ev '^(disk/by-diskseq/|block/|rtc )' |
		awk '{ line[NR] = $0 }
			$1 ~ /^disk\/by-id\/virtio-/ && $3 ~ /^\/dev\/vd[a-z]+$/ {
				s = $1; sub(/^disk\/by-id\/virtio-/, "", s); disk[$3] = "/dev/virtio-" s
			}
			END {
				for (i = 1; i <= NR; i++) {
					k = index(line[i], " -> "); t = substr(line[i], k + 4)
					if (t in disk) t = disk[t]
					print substr(line[i], 1, k - 1) " -> " t
				}
			}' |
		LC_ALL=C sort
}

# stacked_expected SCENARIO: stacked_expected_links with /dev/vdX (the
# X-th disk of stacked_disk_list) written as stacked_links writes it.
stacked_expected() {
	stacked_expected_links "$1" | awk -v disks="$(stacked_disk_list "$1" | tr '\n' ' ')" '
		BEGIN { n = split(disks, d, " ")
			for (i = 1; i <= n; i++) map["/dev/vd" substr("abcdefgh", i, 1)] = "/dev/virtio-" d[i] }
		{ k = index($0, " -> "); t = substr($0, k + 4); if (t in map) t = map[t]
		  print substr($0, 1, k - 1) " -> " t }'
}

# stacked_compare_links STOCK OTHER: every link of STOCK's listing is in
# OTHER's with the same target; prints the differences, fails if any.
# OTHER may have more links (say so, but pass).
stacked_compare_links() (
	stacked_links "$1" > "$1.links" && stacked_links "$2" > "$2.links" || return 1
	missing=$(LC_ALL=C comm -23 "$1.links" "$2.links")
	extra=$(LC_ALL=C comm -13 "$1.links" "$2.links")
	[ -z "$extra" ] || printf 'only in %s:\n%s\n' "$2" "$extra"
	[ -z "$missing" ] && return 0
	printf 'in %s, missing or different in %s:\n%s\n' "$1" "$2" "$missing"
	return 1
)

# stacked_udev_waits LOG: console lines (the root's STACK-/BOOT- report
# aside) that tell of a device-mapper udev cookie wait or fallback (the
# messages of lvm2's libdm/libdm-common.c and lib/activate/fs.c) or a udev
# event timeout. A good boot has none; prints them.
stacked_udev_waits() {
	tr -d '\r' < "$1" | grep -v -e '^STACK-' -e '^BOOT-' |
		grep -Ei 'cookie|semaphore|by udev|udev state|udev is not running|DM_DISABLE_UDEV|udev.*(time.?out|killed)|(time.?out|killed).*udev|taking a long time'
}

# stacked_expected_root SCENARIO: "KNAME DM_NAME" of the device the root
# is mounted from (DM_NAME "-" for md).
stacked_expected_root() {
	case $1 in
	luks-key | luks-pass | luks-handoff) echo "dm-0 luks-$STACKED_LUKS_UUID" ;;
	lvm-mapper | lvm-uuid) echo "dm-0 vgroot-root" ;;
	md-both | md-degraded) echo "md127 -" ;;
	lvm-luks) echo "dm-1 vgcrypt-root" ;;
	hostile) echo "dm-1 $STACKED_H_DM" ;;
	*) return 1 ;;
	esac
}

# stacked_expected_links SCENARIO: links ("PATH -> TARGET", PATH under
# /dev) the stock image makes for SCENARIO; a "*" in PATH stands for
# LVM's random UUIDs.
stacked_expected_links() {
	case $1 in
	luks-key | luks-pass | luks-handoff) cat <<EOF
mapper/luks-$STACKED_LUKS_UUID -> /dev/dm-0
disk/by-id/dm-name-luks-$STACKED_LUKS_UUID -> /dev/dm-0
disk/by-id/dm-uuid-CRYPT-LUKS2-$(echo "$STACKED_LUKS_UUID" | tr -d -)-luks-$STACKED_LUKS_UUID -> /dev/dm-0
disk/by-uuid/$STACKED_LUKS_FS -> /dev/dm-0
disk/by-uuid/$STACKED_LUKS_UUID -> /dev/vda
disk/by-label/$STACKED_LUKS_LABEL -> /dev/vda
EOF
		;;
	lvm-mapper | lvm-uuid) cat <<EOF
mapper/vgroot-root -> /dev/dm-0
vgroot/root -> /dev/dm-0
disk/by-id/dm-name-vgroot-root -> /dev/dm-0
disk/by-id/dm-uuid-LVM-* -> /dev/dm-0
disk/by-uuid/$STACKED_LVM_FS -> /dev/dm-0
EOF
		;;
	md-both | md-degraded) cat <<EOF
md/mdroot -> /dev/md127
disk/by-id/md-uuid-$STACKED_MD_UUID_COLON -> /dev/md127
disk/by-id/md-name-_none_:mdroot -> /dev/md127
disk/by-uuid/$STACKED_MD_FS -> /dev/md127
EOF
		;;
	lvm-luks) cat <<EOF
mapper/luks-$STACKED_LL_UUID -> /dev/dm-0
disk/by-id/dm-name-luks-$STACKED_LL_UUID -> /dev/dm-0
disk/by-label/cryptpv -> /dev/vda
mapper/vgcrypt-root -> /dev/dm-1
vgcrypt/root -> /dev/dm-1
disk/by-id/dm-name-vgcrypt-root -> /dev/dm-1
disk/by-id/dm-uuid-LVM-* -> /dev/dm-1
disk/by-uuid/$STACKED_LL_FS -> /dev/dm-1
EOF
		;;
	hostile) cat <<EOF
disk/by-label/$STACKED_H_LABEL_ENC -> /dev/vda
mapper/$STACKED_H_DM -> /dev/dm-1
$STACKED_H_VG/$STACKED_H_LV -> /dev/dm-1
disk/by-id/dm-name-$STACKED_H_DM -> /dev/dm-1
disk/by-uuid/$STACKED_H_FS -> /dev/dm-1
md/a-b -> /dev/md127
disk/by-id/md-name-_none_:a/b -> /dev/md127
disk/by-id/md-uuid-$STACKED_H_MD_UUID_COLON -> /dev/md127
disk/by-uuid/$STACKED_H_MD_FS -> /dev/md127
EOF
		;;
	*) return 1 ;;
	esac
}

# stacked_has_link LINKS WANT: the listing LINKS (a file, stacked_links's
# form) holds WANT (stacked_expected_links's form, "*" matching
# [A-Za-z0-9]+).
stacked_has_link() {
	case $2 in
	*"*"*)
		awk -v pre="${2%%\**}" -v post="${2#*\*}" '
			index($0, pre) == 1 && substr($0, length($0) - length(post) + 1) == post {
				mid = substr($0, length(pre) + 1, length($0) - length(pre) - length(post))
				if (mid ~ /^[A-Za-z0-9]+$/) { found = 1; exit }
			}
			END { exit !found }' "$1"
		;;
	*) grep -Fqx -- "$2" "$1" ;;
	esac
}

# stacked_problems SCENARIO LOG: what is wrong with LOG's boot of
# SCENARIO, one problem a line (see stacked_check).
stacked_problems() (
	sc=$1 log=$2
	# shellcheck disable=SC2046 # two words
	set -- $(stacked_expected_root "$sc")
	kname=$1 dmname=$2
	root=$(stacked_lines STACK-ROOT "$log")
	case $root in
	*" $kname ext4 "*) ;;
	*) echo "root mounted from '$root', not $kname" ;;
	esac
	if [ "$dmname" != - ] && ! stacked_lines STACK-DM "$log" | grep -Fq "$kname $dmname "; then
		echo "$kname is not the dm device $dmname"
	fi
	stacked_links "$log" > "$log.links"
	stacked_expected "$sc" | while IFS= read -r want; do
		stacked_has_link "$log.links" "$want" || echo "no link $want"
	done
	stacked_lines STACK-LINK "$log" | grep -v ' -> /dev/' | sed 's/^/link outside \/dev: /'
	# running (clean, active, active-idle, read-auto: all fine right after
	# the root's mount), degraded 0 with both members, 1 with one
	md=$(stacked_lines STACK-MD "$log")
	case $sc:$md in
	md-both:"md127 "*" 0 raid1 vda vdb "* | md-degraded:"md127 "*" 1 raid1 vda "*)
		case $md in
		"md127 "*clear* | "md127 "*inactive* | "md127 "*suspended*) echo "md array not running: '$md'" ;;
		esac
		;;
	md-*) echo "md array: '$md'" ;;
	esac
	stacked_udev_waits "$log" | sed 's/^/udev wait: /'
	# /dev/mapper holds links udev's rules made, never a node libdevmapper
	# made itself (it does when it believes no udev runs): no node twice
	stacked_lines STACK-NODE "$log" | grep '^mapper/' | grep -v '^mapper/control ' |
		sed 's/^/a node in \/dev\/mapper (libdevmapper saw no udev): /'
	# the root's dm or md name was there before the root was mounted
	if [ "$dmname" != - ]; then want="mapper/$dmname -> /dev/$kname"; else want="md/mdroot -> /dev/$kname"; fi
	stacked_lines STACK-PREMOUNT "$log" | grep -Fqx -- "$want" ||
		echo "not there before the root was mounted: $want"
)

# stacked_db STOCK|OTHER LOG: the udev database entries LOG's root found,
# comparable between images: "FILE MODE", "FILE S:LINK" and "FILE
# E:KEY=VALUE" lines and the link index entries ("links/NAME/ID l
# PRIO:DEVNODE"), sorted; properties that tell only which event came last
# (DM_OPEN, DM_ACTIVATION: udevd's inotify watch makes one more change
# event once fsck closes the root) and I: (a time) left out.
stacked_db() {
	{
		stacked_lines STACK-DB "$1"
		stacked_lines STACK-DBLINE "$1" | grep -E '^[^ ]+ (S:|E:)' |
			grep -Ev '^[^ ]+ E:(DM_OPEN|DM_ACTIVATION)='
		stacked_lines STACK-UDEVRUN "$1" | grep -E '^links/[^/ ]+/[^ ]+ l '
	} | LC_ALL=C sort
}

# stacked_compare_db STOCK OTHER: OTHER's root found the same udev database
# entries as STOCK's (stacked_db); prints the differences, fails if any.
stacked_compare_db() (
	stacked_db "$1" > "$1.db" && stacked_db "$2" > "$2.db" || return 1
	LC_ALL=C cmp -s "$1.db" "$2.db" && return 0
	echo "udev database entries, - $1 + $2:"
	diff -U0 "$1.db" "$2.db" | grep '^[-+][^-+]'
	return 1
)

# stacked_initdev_problems LOG: what only an initdev image must show: its
# /run/udev/control gone after the handoff (the real root's tools must not
# believe udev runs), no link it found taken, no cookie the rules had to
# leave to initdev's safety net.
stacked_initdev_problems() {
	stacked_lines STACK-UDEVCONTROL "$1" | grep -qx absent ||
		echo "/run/udev/control outlived the handoff"
	tr -d '\r' < "$1" | grep -e 'something else is there' -e 'released by initdev' |
		sed 's/^/initdev: /'
}

# stacked_check SCENARIO LOG: what every image must show for SCENARIO
# (stock and initdev alike): the root mounted from the expected device,
# the expected links, every link resolving under /dev, the md array
# degraded or not as the scenario says, no udev wait. Prints each problem
# on a line of its own; fails if there is any.
stacked_check() {
	stacked_problems "$1" "$2" > "$2.problems" || return 1
	[ -s "$2.problems" ] || return 0
	cat "$2.problems"
	return 1
}
