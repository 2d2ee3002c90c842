# SPDX-License-Identifier: MIT
# QEMU boot harness for initramfs tests (POSIX sh, sourced by atf-sh tests).
#
# Every function is prefixed boot_; none touches anything outside the paths
# its caller passes (plus reading /boot, /lib/modules, /usr/lib/dracut and
# the busybox binary). Function bodies run in subshells "( ... )" so their
# variables stay private without the non-POSIX "local". They report errors
# on stderr and return non-zero; the test decides whether that is a failure.
#
# Machine facts (REFERENCE.md §8): KVM hangs here, so QEMU runs with
# -accel tcg; images are built without root mounts (mkfs.ext4 -d, sfdisk on
# plain files); the host kernel reads no partition tables, so partitions are
# only ever looked at inside the guest.
# Beyond POSIX it relies on GNU coreutils/findutils (stat -c, find -printf,
# date +%N, sort -V, mv -T, timeout), as on the Debian hosts it targets.

# Busybox applets linked into the test root: what /sbin/init and a person
# debugging a failed boot need.
BOOT_APPLETS="sh ash mount umount ls cat find readlink poweroff reboot sleep
echo printf mkdir grep sed head tail tr cut sort dmesg stat blkid uname"

# Kernel command line words for dracut boots: no emergency shell (a failure
# ends the boot instead of waiting for a keyboard), and a short device wait.
# shellcheck disable=SC2034 # used by the tests that source this file
BOOT_DRACUT_APPEND="rd.shell=0 rd.retry=20"

# boot_kver: the newest kernel with both /boot/vmlinuz-KVER and
# /lib/modules/KVER; BOOT_KVER overrides.
boot_kver() (
	if [ -n "${BOOT_KVER:-}" ]; then
		echo "$BOOT_KVER"
		return 0
	fi
	best=
	for k in /boot/vmlinuz-*; do
		[ -f "$k" ] || continue
		v=${k#/boot/vmlinuz-}
		[ -f "/lib/modules/$v/modules.dep" ] || continue
		best="$best$v
"
	done
	best=$(printf '%s' "$best" | sort -V | tail -n 1)
	if [ -z "$best" ]; then
		echo "boot_kver: no kernel with both /boot/vmlinuz-* and /lib/modules/*" >&2
		return 1
	fi
	echo "$best"
)

# boot_kernel KVER: path of the kernel image for KVER.
boot_kernel() { echo "/boot/vmlinuz-$1"; }

# boot_now: seconds since the epoch with fractions, for wall-clock timing.
boot_now() { date +%s.%N; }

# boot_elapsed START: seconds since START (from boot_now), 2 decimals.
boot_elapsed() { awk -v a="$1" -v b="$(boot_now)" 'BEGIN { printf "%.2f\n", b - a }'; }

# boot_dracut_tree DIR: private copy of /usr/lib/dracut in DIR, for use as
# dracutbasedir=DIR. Reused when DIR holds a complete copy (marker written
# last); built under a temporary name and renamed, so a crashed or
# concurrent copy never leaves a half tree behind under DIR.
boot_dracut_tree() (
	dir=$1
	[ -f "$dir/.boot-tree-complete" ] && return 0
	src=/usr/lib/dracut
	[ -x "$src/dracut-install" ] || {
		echo "boot_dracut_tree: $src/dracut-install missing (dracut-core not installed?)" >&2
		return 1
	}
	mkdir -p "$(dirname "$dir")" || return 1
	# $$ is the caller's pid in every subshell: mktemp gives each copy its own.
	tmp=$(mktemp -d "$dir.tmp.XXXXXX") || return 1
	if ! cp -a "$src/." "$tmp" || ! : > "$tmp/.boot-tree-complete"; then
		rm -rf "$tmp"
		return 1
	fi
	[ -f "$dir/.boot-tree-complete" ] || rm -rf "$dir"
	# mv -T never moves into an existing tree; if a concurrent copy won, ours goes.
	mv -T "$tmp" "$dir" 2> /dev/null || rm -rf "$tmp"
	[ -f "$dir/.boot-tree-complete" ]
)

# boot_init_mounts: the lines every guest init the boot tests write starts
# with (after its #! line and PATH): /proc, /sys and /dev mounted unless
# they are, the console as standard input, output and error
boot_init_mounts() {
	cat <<'EOF'
[ -e /proc/self ] || mount -t proc proc /proc
[ -d /sys/kernel ] || mount -t sysfs sysfs /sys
[ -e /dev/null ] || mount -t devtmpfs devtmpfs /dev
exec < /dev/console > /dev/console 2>&1
EOF
}

# boot_init_head [PATH]: how every guest init the boot tests write as a
# shell script starts: the #! line, PATH (default /bin), the mounts above,
# and the kernel's messages kept off the console, where they would split
# the report lines on the serial port.
boot_init_head() {
	printf '#!/bin/sh\nexport PATH=%s\n' "${1:-/bin}"
	boot_init_mounts
	echo 'echo 1 > /proc/sys/kernel/printk'
}

# boot_write_init FILE: the test root's /sbin/init. It reports the boot and
# every /dev/disk/by-* link on the console, then powers off. Links one level
# down (by-uuid/X) and udev 257's three levels down
# (by-path/<ID_PATH>-part/by-uuid/X); the directories between are not links.
boot_write_init() {
	{
		boot_init_head
		cat <<'EOF'
read -r up _ < /proc/uptime
echo "BOOT-RESULT ok uptime=$up"
for l in /dev/disk/by-*/* /dev/disk/by-*/*/*/*; do
	[ -e "$l" ] || [ -L "$l" ] || continue
	[ -d "$l" ] && [ ! -L "$l" ] && continue
	name=${l#/dev/disk/}
	printf 'BOOT-LINK %s -> %s\n' "$name" "$(readlink -f "$l")"
done
echo BOOT-END
poweroff -f
# poweroff failed: exiting panics the kernel, panic=-1 and -no-reboot end QEMU
exit 1
EOF
	} > "$1"
	chmod 0755 "$1"
}

# boot_make_rootfs STAGING: a tiny root tree in STAGING (created; start from
# a fresh or empty dir, anything already there goes into the image too): static busybox with applet links, /sbin/init, and the
# mount points dracut's usable_root() wants (proc, sys, dev) plus run, which
# switch_root moves along.
boot_make_rootfs() (
	st=$1
	bb=/bin/busybox
	# The guest root has no libraries: busybox must be the static build.
	if [ ! -x "$bb" ] || ldd "$bb" > /dev/null 2>&1; then
		echo "boot_make_rootfs: $bb missing or dynamic (install busybox-static)" >&2
		return 1
	fi
	mkdir -p "$st/bin" "$st/sbin" "$st/etc" "$st/proc" "$st/sys" \
		"$st/dev" "$st/run" "$st/tmp" "$st/root" || return 1
	cp "$bb" "$st/bin/busybox" || return 1
	chmod 0755 "$st/bin/busybox"
	for a in $BOOT_APPLETS; do
		ln -sf busybox "$st/bin/$a" || return 1
	done
	boot_write_init "$st/sbin/init" || return 1
	printf 'ID=initdev-test\nNAME="initdev boot test"\n' > "$st/etc/os-release"
	printf 'root:x:0:0:root:/root:/bin/sh\n' > "$st/etc/passwd"
)

# boot_add_program STAGING SRC DEST: the ELF program SRC (symlinks
# followed) at DEST in STAGING, with every shared library ldd lists (the
# dynamic loader too) at its host path.
boot_add_program() (
	st=$1 src=$2 dest=$3
	mkdir -p "$st${dest%/*}" && cp -L "$src" "$st$dest" || return 1
	libs=$(ldd "$src" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }') ||
		{ echo "boot_add_program: ldd $src failed" >&2; return 1; }
	for l in $libs; do
		[ -e "$st$l" ] && continue
		mkdir -p "$st${l%/*}" && cp -L "$l" "$st$l" || return 1
	done
)

# boot_make_ext4 IMG SIZE_MB STAGING [UUID] [LABEL]: ext4 image file with
# STAGING's contents, built without mounting anything.
boot_make_ext4() (
	img=$1 size=$2 st=$3 uuid=${4:-} label=${5:-}
	rm -f "$img"
	truncate -s "${size}M" "$img" || return 1
	set -- -q -F -d "$st"
	[ -n "$uuid" ] && set -- "$@" -U "$uuid"
	[ -n "$label" ] && set -- "$@" -L "$label"
	mkfs.ext4 "$@" "$img" >&2 || { echo "boot_make_ext4: mkfs.ext4 failed for $img" >&2; return 1; }
)

# boot_disk_sectors FSIMG: 512-byte sectors FSIMG occupies (rounded up).
boot_disk_sectors() {
	echo $(( ($(stat -c %s "$1") + 511) / 512 ))
}

# boot_write_table DISK FSIMG SCRIPT: size DISK for one partition holding
# FSIMG at 1 MiB (plus 1 MiB slack for the backup GPT), write the sfdisk
# SCRIPT, copy FSIMG in.
boot_write_table() (
	disk=$1 fs=$2 script=$3
	fsbytes=$(stat -c %s "$fs") || return 1
	rm -f "$disk"
	truncate -s $((fsbytes + 2 * 1048576)) "$disk" || return 1
	printf '%s\n' "$script" | sfdisk -q --no-reread --no-tell-kernel "$disk" >&2 || {
		echo "boot_write_table: sfdisk failed on $disk" >&2
		return 1
	}
	dd if="$fs" of="$disk" bs=1M seek=1 conv=notrunc status=none || return 1
)

# boot_make_gpt_disk DISK FSIMG PARTLABEL PARTUUID [DISKGUID]: GPT disk
# image, partition 1 (Linux filesystem type) at 1 MiB holds FSIMG.
boot_make_gpt_disk() {
	boot_write_table "$1" "$2" "label: gpt
label-id: ${5:-8e7d5b7a-0c2f-4b57-9d3e-6a1f00000001}
unit: sectors
first-lba: 2048
start=2048, size=$(boot_disk_sectors "$2"), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=$4, name=\"$3\""
}

# boot_make_mbr_disk DISK FSIMG [DISKID]: MBR disk image, partition 1
# (type 83) at 1 MiB holds FSIMG. DISKID is 0xXXXXXXXX (default 0x1d15c0de);
# the guest then sees PARTUUID=XXXXXXXX-01 (lower case).
boot_make_mbr_disk() {
	boot_write_table "$1" "$2" "label: dos
label-id: ${3:-0x1d15c0de}
unit: sectors
start=2048, size=$(boot_disk_sectors "$2"), type=83"
}

# boot_make_initramfs OUT DRACUT_TREE KVER "MODULES" "DRIVERS" [dracut args]:
# build an uncompressed image with the tree's dracut, isolated from the host:
# - -m replaces dracut's default module set, so only MODULES and their
#   dependencies go in; systemd, systemd-initrd and dracut-systemd are also
#   omitted, so 99base's own (non-systemd) init.sh is /init and
#   systemd-udevd comes in through udev-rules;
# - MODULES "" means dracut's default module set instead (no -m, nothing
#   omitted but what the arguments omit): where systemd is installed, a
#   systemd initrd, as a plain `dracut` builds it;
# - --conf/--confdir point at empty files under OUT's directory, so
#   /etc/dracut.conf{,.d} cannot add modules; --tmpdir keeps scratch there;
# - --no-early-microcode, --no-compress, --nostrip keep it quick;
# - no kernel-modules module: with --no-hostonly it pulls ~750 modules
#   (120 MB); --add-drivers alone installs DRIVERS and their dependencies.
# The build log is OUT.log. The image is made 0644 (dracut writes 0600).
boot_make_initramfs() (
	out=$1 tree=$2 kver=$3 mods=$4 drivers=$5
	shift 5
	case $out in /*) ;; *) out=$PWD/$out ;; esac
	case $tree in /*) ;; *) tree=$PWD/$tree ;; esac
	work=$out.dracut
	rm -rf "$work"
	mkdir -p "$work/confdir" "$work/tmp" || return 1
	: > "$work/dracut.conf"
	if [ -n "$mods" ]; then
		set -- -m "$mods" --omit "systemd systemd-initrd dracut-systemd" "$@"
	fi
	dracutbasedir=$tree dracut --conf "$work/dracut.conf" \
		--confdir "$work/confdir" --tmpdir "$work/tmp" \
		--no-hostonly --kver "$kver" --no-compress --force \
		--no-early-microcode --nostrip \
		--add-drivers "$drivers" "$@" "$out" > "$out.log" 2>&1
	rc=$?
	rm -rf "$work"
	if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
		echo "boot_make_initramfs: dracut failed ($rc), last lines of $out.log:" >&2
		tail -n 20 "$out.log" >&2
		return 1
	fi
	chmod 0644 "$out"
)

# boot_tree_fingerprint TREE: hash of TREE's file names, sizes and mtimes:
# changes whenever a module is added to or edited in the tree.
boot_tree_fingerprint() {
	(cd "$1" && find . \( -type f -o -type l \) ! -name .boot-tree-complete \
		-printf '%p %s %T@\n' | LC_ALL=C sort) |
		sha256sum | cut -c1-16
}

# boot_cache_dir: BOOT_CACHE if set (share it across test cases and runs),
# else ./boot-cache (the test case's own work dir). Created; path printed.
boot_cache_dir() (
	d=${BOOT_CACHE:-$PWD/boot-cache}
	case $d in /*) ;; *) d=$PWD/$d ;; esac
	mkdir -p "$d" || return 1
	echo "$d"
)

# boot_cached_dracut_tree CACHE: boot_dracut_tree in CACHE, named after the
# system dracut's fingerprint (an upgraded dracut gets a fresh copy). Prints
# the tree's path.
boot_cached_dracut_tree() (
	tree=$1/dracut-$(boot_tree_fingerprint /usr/lib/dracut) || return 1
	boot_dracut_tree "$tree" || return 1
	echo "$tree"
)

# boot_cached_initramfs CACHE DRACUT_TREE KVER "MODULES" "DRIVERS" [args]:
# like boot_make_initramfs, but the image lives in CACHE under a key made of
# every input (kver, modules, drivers, args, the tree's fingerprint, the
# kernel's modules.dep). Built to a temporary name and renamed. Prints the
# image path. A failed build leaves its log as IMAGE.failed.log.
boot_cached_initramfs() (
	cache=$1 tree=$2 kver=$3 mods=$4 drivers=$5
	shift 5
	key=$( {
		printf '%s\n' "$kver" "$mods" "$drivers" "$@"
		boot_tree_fingerprint "$tree"
		stat -c '%s %Y' "/lib/modules/$kver/modules.dep"
	} | sha256sum | cut -c1-16)
	img=$cache/initramfs-$key.img
	if [ ! -s "$img" ]; then
		tmp=$(mktemp "$cache/.initramfs-$key.XXXXXX") || return 1
		if ! boot_make_initramfs "$tmp" "$tree" "$kver" "$mods" "$drivers" "$@"; then
			# one log per key (the last failure's), not one per attempt
			mv "$tmp.log" "$img.failed.log" 2> /dev/null
			rm -f "$tmp"
			return 1
		fi
		mv "$tmp.log" "$img.log"
		mv "$tmp" "$img" || return 1
	fi
	echo "$img"
)

# boot_qemu LOG TIMEOUT_S KERNEL INITRD "APPEND" [qemu args...]: boot under
# TCG with the serial console in LOG (stdin closed, no NIC), killed after
# TIMEOUT_S. "console=ttyS0 panic=-1" come first in the command line, then
# APPEND. Succeeds if the log shows BOOT-END. The wall time goes to stderr
# and to LOG.wall. Guest memory: BOOT_MEM MiB (default 1024).
boot_qemu() (
	log=$1 tmo=$2 kernel=$3 initrd=$4 append=$5
	shift 5
	t0=$(boot_now)
	timeout -k 5 "$tmo" qemu-system-x86_64 -accel tcg -m "${BOOT_MEM:-1024}" -smp 2 \
		-nographic -no-reboot -nic none \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $append" "$@" \
		< /dev/null > "$log" 2>&1
	rc=$?
	wall=$(boot_elapsed "$t0")
	echo "$wall" > "$log.wall"
	echo "boot_qemu: $log: qemu exit $rc, wall ${wall}s" >&2
	[ $rc -eq 124 ] && echo "boot_qemu: killed after ${tmo}s" >&2
	tr -d '\r' < "$log" | grep -qx 'BOOT-END'
)

# boot_log_tail LOG: last 60 lines of LOG, carriage returns dropped. A
# kernel panic's backtrace is cut off after its first line so that what led
# to it (dracut's warnings, say) stays in view.
boot_log_tail() {
	echo "----- last 60 lines of $1 -----"
	tr -d '\r' < "$1" | awk '{ print } /Kernel panic - not syncing/ { exit }' |
		tail -n 60
	echo "----- end of $1 -----"
}

# boot_result_uptime LOG: guest uptime (s) at BOOT-RESULT; fails if absent.
boot_result_uptime() {
	tr -d '\r' < "$1" | sed -n 's/^BOOT-RESULT ok uptime=\([0-9.]*\).*/\1/p' | grep .
}

# boot_links LOG: the BOOT-LINK lines, "NAME -> TARGET", sorted.
boot_links() {
	tr -d '\r' < "$1" | sed -n 's/^BOOT-LINK //p' | LC_ALL=C sort
}

# boot_has_link LOG NAME TARGET: LOG shows /dev/disk/NAME resolving to TARGET.
boot_has_link() {
	boot_links "$1" | grep -Fxq -- "$2 -> $3"
}

# ---- images with initdev (dracut --add initdev) --------------------------
# These use INITDEV_BIN (the binary), INITDEV_MODULE (the installed
# 90initdev), KVER, STOCK_MODULES and DRIVERS, set by the caller
# (tests/boot/initdev_test, scripts/demo, scripts/bench/boot), taken from
# make install's files with boot_load_stage.

# boot_load_stage ENV: read the file `make stage` wrote (the build's
# stage.env: make install DESTDIR=STAGE and the configured directories) and
# set INITDEV_BIN, INITDEV_MODULE and INITDEV_REALROOT to the staged binary,
# dracut module and real-root files; fail if any is missing. Nothing from
# the source tree: a file make install leaves out is missing here too.
boot_load_stage() {
	case ${1:-} in
	/*) ;;
	*) echo "boot_load_stage: '${1:-}' is not an absolute path to stage.env" >&2; return 1 ;;
	esac
	[ -f "$1" ] || { echo "boot_load_stage: no $1 (make stage writes it)" >&2; return 1; }
	# shellcheck disable=SC1090 # written by make stage
	. "$1" || return 1
	INITDEV_BIN=$INITDEV_STAGE$INITDEV_SBINDIR/initdev
	INITDEV_MODULE=$INITDEV_STAGE$INITDEV_DRACUTMODULESDIR/90initdev
	INITDEV_REALROOT=$INITDEV_STAGE$INITDEV_PKGDATADIR/real-root
	if [ ! -f "$INITDEV_BIN" ] || [ ! -x "$INITDEV_BIN" ]; then
		echo "boot_load_stage: no staged binary $INITDEV_BIN" >&2
		return 1
	fi
	[ -f "$INITDEV_MODULE/module-setup.sh" ] ||
		{ echo "boot_load_stage: no staged module $INITDEV_MODULE" >&2; return 1; }
	[ -d "$INITDEV_REALROOT" ] ||
		{ echo "boot_load_stage: no staged real-root files $INITDEV_REALROOT" >&2; return 1; }
}

# boot_status_hook: a pre-pivot hook (test instrumentation, not part of the
# module) that saves the daemon's counters where the root's /sbin/init can
# read them: switch_root moves /run into the new root.
boot_status_hook() {
	cat <<'EOF'
# initdev boot test: the daemon's view, for the root's /sbin/init
initdev status > /run/initdev-test.status 2>&1 ||
	echo "initdev status failed: $?" >> /run/initdev-test.status
EOF
}

# boot_initdev_tree CACHE BASE: BASE (a copy of /usr/lib/dracut) plus the module
# under test, a copy of the binary and the status hook, in CACHE under a key
# made of their contents; built under a temporary name and renamed, as
# boot_dracut_tree does. Prints its path.
boot_initdev_tree() (
	cache=$1 base=$2
	key=$( {
		boot_tree_fingerprint "$base"
		(cd "$INITDEV_MODULE" && find . -type f | LC_ALL=C sort | xargs sha256sum)
		sha256sum < "$INITDEV_BIN"
		boot_status_hook
	} | sha256sum | cut -c1-16)
	tree=$cache/dracut-initdev-$key
	if [ ! -f "$tree/.boot-tree-complete" ]; then
		tmp=$(mktemp -d "$tree.tmp.XXXXXX") || return 1
		if cp -a "$base/." "$tmp" && rm -rf "$tmp/.boot-tree-complete" \
			"$tmp/modules.d/90initdev" && mkdir "$tmp/modules.d/90initdev" \
			"$tmp/initdev-test" &&
			cp -a "$INITDEV_MODULE/." "$tmp/modules.d/90initdev" &&
			cp "$INITDEV_BIN" "$tmp/initdev-test/initdev" &&
			boot_status_hook > "$tmp/initdev-test/status-hook.sh" &&
			: > "$tmp/.boot-tree-complete"; then
			mv -T "$tmp" "$tree" 2> /dev/null || rm -rf "$tmp"
		else
			rm -rf "$tmp"
			return 1
		fi
	fi
	[ -f "$tree/.boot-tree-complete" ] && echo "$tree"
)

# boot_initdev_image CACHE BASE [dracut args]: build or reuse the `--add
# initdev` image (the stock module set plus initdev, with the status hook
# and any further arguments). Prints its path.
boot_initdev_image() {
	icache=$1
	itree=$(boot_initdev_tree "$1" "$2") || return 1
	shift 2
	INITDEV_BINARY=$itree/initdev-test/initdev
	export INITDEV_BINARY
	boot_cached_initramfs "$icache" "$itree" "$KVER" "$STOCK_MODULES" "$DRIVERS" \
		--add initdev \
		--include "$itree/initdev-test/status-hook.sh" \
		/lib/dracut/hooks/pre-pivot/98-initdev-test-status.sh "$@"
}

# boot_write_report_init STAGING: put a reporting /sbin/init in front of the
# harness one (kept as /sbin/init-report): what is left of initdev after
# switch_root, its counters, (with initdev.test.trace on the kernel command
# line) the trace and status.json it left in /run/initdev, the loaded modules, /dev/disk's top level,
# anything under /dev/disk/by-* that is not a symlink (below udev 257's
# by-path/<ID_PATH>-part/by-xxx/ directories too), each disk's diskseq,
# and the links whose names start with a dot (the harness' glob skips them).
boot_write_report_init() {
	mv "$1/sbin/init" "$1/sbin/init-report" || return 1
	{
		boot_init_head
		cat <<'EOF'
if [ -e /run/initdev ]; then
	echo "INITDEV-RUN present:" $(ls -A /run/initdev)
else
	echo "INITDEV-RUN absent"
fi
for p in /proc/[0-9]*; do
	comm=$(cat "$p/comm" 2> /dev/null) || continue
	exe=$(readlink "$p/exe" 2> /dev/null)
	arg0=$(tr '\0' '\n' < "$p/cmdline" 2> /dev/null | head -n 1)
	case "$comm $exe $arg0" in
	*initdev* | *udevd* | *udevadm*) echo "INITDEV-PROC ${p#/proc/} $comm $arg0 $exe" ;;
	esac
done
echo "INITDEV-KMSG-COUNT $(dmesg | grep -c 'initdev\[[0-9]*\]:')"
dmesg | grep 'initdev\[[0-9]*\]:' | head -n 5 | sed 's/^/INITDEV-KMSG /'
[ -f /run/initdev-test.status ] && sed 's/^/INITDEV-STATUS /' /run/initdev-test.status
if grep -qw initdev.test.trace /proc/cmdline; then
	[ -f /run/initdev/trace ] && sed 's/^/INITDEV-TRACE /' /run/initdev/trace
	[ -f /run/initdev/status.json ] && sed 's/^/INITDEV-STATUSJSON /' /run/initdev/status.json
fi
[ -f /run/initdev-test.repart ] && sed 's/^/INITDEV-REPART /' /run/initdev-test.repart
while read -r m _; do echo "INITDEV-MODULE $m"; done < /proc/modules
for e in /dev/disk/* /dev/disk/.[!.]* /dev/disk/..?*; do
	[ -e "$e" ] || [ -L "$e" ] || continue
	echo "INITDEV-DISKDIR ${e#/dev/disk/}"
done
for e in /dev/disk/by-*/* /dev/disk/by-*/.[!.]* /dev/disk/by-*/..?*; do
	[ -e "$e" ] || [ -L "$e" ] || continue
	# udev 257's by-path/<ID_PATH>-part/by-xxx/ directories: what is in them
	case $e in
	/dev/disk/by-path/*-part) if [ -d "$e" ] && [ ! -L "$e" ]; then
		for f in "$e"/* "$e"/*/* "$e"/*/.[!.]* "$e"/*/..?*; do
			[ -e "$f" ] || [ -L "$f" ] || continue
			[ -L "$f" ] || [ "${f%/*}" = "$e" ] || echo "INITDEV-NOTLINK ${f#/dev/disk/}"
		done
		continue
	fi ;;
	esac
	[ -L "$e" ] || echo "INITDEV-NOTLINK ${e#/dev/disk/}"
done
for b in /sys/class/block/*; do
	if [ -f "$b/partition" ]; then s=$(cat "$b/../diskseq" 2> /dev/null)
	else s=$(cat "$b/diskseq" 2> /dev/null); fi
	[ -n "$s" ] && echo "INITDEV-DISKSEQ /dev/${b##*/} $s"
done
for l in /dev/disk/by-*/.[!.]* /dev/disk/by-*/..?* /dev/disk/by-path/*/*/.[!.]* \
	/dev/disk/by-path/*/*/..?*; do
	[ -L "$l" ] || continue
	printf 'BOOT-LINK %s -> %s\n' "${l#/dev/disk/}" "$(readlink -f "$l")"
done
exec /sbin/init-report
EOF
	} > "$1/sbin/init"
	chmod 0755 "$1/sbin/init"
}

