# SPDX-License-Identifier: MIT
# The "tool guest": run a shell script inside a QEMU guest that has
# device-mapper, md, btrfs (the module; a job brings mkfs.btrfs with -p),
# cryptsetup, lvm, mdadm, mkfs.ext4, sfdisk, dmsetup and udevadm, with given
# disk images attached and given files added, and get its output and exit
# status back. POSIX sh, sourced after lib.sh (it uses
# boot_kver, boot_cache_dir, boot_cached_dracut_tree, boot_cached_initramfs).
#
# Why a guest: the host kernel has no device-mapper, no md and reads no
# partition tables (REFERENCE.md §8), so LUKS, LVM and md images, and
# anything that looks at dm/md devices (udevadm test on dm-0, ...), happen
# inside QEMU.
#
# The guest is a dracut image (99base's init.sh, systemd-udevd, the stock
# crypt dm lvm mdraid modules with their rules) plus the tools and three
# hooks. It is built once per dracut tree and kernel, cached by a key of
# every input. Each run appends a small cpio with the job and its files
# to that image (the kernel unpacks concatenated archives in order), so a
# new job never rebuilds the image.
#
#   tg_run [options] JOB OUT
#     JOB   shell script, sourced by the guest's /bin/sh after
#           /usr/lib/tg/lib.sh (guest helpers, below), cwd /tg
#     OUT   gets the job's stdout and stderr (the guest's ttyS1); the
#           console goes to OUT.console. Returns the job's exit status;
#           125 if the guest never reported one (boot failed, timeout).
#   options (each may repeat where it makes sense):
#     -d NAME=IMAGE   attach IMAGE (raw, read-write) as a virtio disk with
#                     serial NAME (<= 20 chars); disks appear as vda, vdb,
#                     ... in option order
#     -r NAME=IMAGE   the same, read-only (snapshot: writes are discarded)
#     -f HOST=GUEST   copy file or directory HOST to GUEST in the guest
#                     (cp -RH: symlinks inside a directory stay links)
#     -p HOST=GUEST   copy program HOST to GUEST with the shared libraries
#                     ldd lists (at their host paths)
#     -s STAGE        when the job runs: "settled" (default: udevd running,
#                     coldplug done, udevadm settle returned), "pre-trigger"
#                     (udevd running, nothing triggered: no disk driver is
#                     loaded yet), "pre-udev" (no udevd; modprobe yourself)
#     -a WORDS        more kernel command line words
#     -t SECONDS      kill the guest after this long (default 300)
#     -m MIB          guest memory (default 1024)
#     -q WORDS        more QEMU arguments (split at blanks: no quoting), e.g.
#                     "-device qemu-xhci,id=x -device usb-kbd,bus=x.0"
#
#   tg_build_disks CACHE NAME JOB [-f/-p/-r options] DISK:MIB...
#     Make blank disk images DISK.img of MIB MiB, run JOB on them (as -d
#     DISK=...), and keep them in CACHE under NAME and a key of every input
#     (JOB's text, the -f/-p/-r files' contents, the disk list, the tool
#     image). Prints the directory holding DISK.img ...; reused when the key
#     matches (tg_disks_dir, same arguments, prints it without building).
#     Making NAME anew removes NAME's directories made from other inputs. The job's output is there as job.out. Attach the images with
#     snapshot=on (or copy them): they are shared by every later run.
#
# Guest side (/usr/lib/tg/lib.sh, already sourced when JOB runs):
#   tg_disk NAME    prints /dev/vdX of the disk with serial NAME
#   TG_STAGE        the stage the job runs in
#   PATH has /usr/sbin:/usr/bin:/sbin:/bin; lvm is the multi-call binary
#   (`lvm pvcreate ...`: no pvcreate links). Everything the image has is
#   listed in its build log, IMAGE.log in the cache.
#   The kernel command line has rd.luks=0 rd.lvm=0 rd.md=0 so that dracut's
#   own hooks leave the job's devices alone (cryptroot-ask would prompt).
#
# Example (a job that lists the dm devices of a LUKS image):
#   printf '%s\n' 'cryptsetup open --key-file /tg/key "$(tg_disk c)" x' \
#       'dmsetup ls' > job.sh
#   tg_run -d c=luks.img -f key.bin=/tg/key job.sh job.out; cat job.out

# Stock dracut modules of the tool image, and the extra programs it gets.
TG_MODULES="base crypt dm lvm mdraid"
TG_DRIVERS="virtio_pci virtio_blk virtio_scsi sd_mod ext4 dm_mod dm_crypt md_mod raid0 raid1 loop btrfs"
TG_PROGRAMS="cryptsetup lvm mdadm dmsetup udevadm mkfs.ext4 mke2fs e2fsck tune2fs
dumpe2fs debugfs sfdisk blkid wipefs partx losetup dd sync sha256sum cmp od tr
sort find xargs stat tar base64 timeout head tail wc cut seq stty pidof awk"

# tg_hook_runner: /usr/lib/tg/run STAGE, run by the hooks. Runs /tg/job if
# the command line's tg.stage (default settled) is STAGE, then powers off.
tg_hook_runner() {
	cat <<'EOF'
#!/bin/sh
# tool guest job runner (tests/boot/toolguest-lib.sh)
. /lib/dracut-lib.sh
want=$(getarg tg.stage=)
[ "$1" = "${want:-settled}" ] || exit 0
[ -f /tg/job ] || { echo "TG-NOJOB"; exit 0; }
echo "TG-START $1"
cd /tg || exit 1
export TG_STAGE="$1" PATH=/usr/sbin:/usr/bin:/sbin:/bin
# raw: the job's bytes as they are (no \r added before \n)
stty -F /dev/ttyS1 raw -echo 2> /dev/null
/bin/sh -c '. /usr/lib/tg/lib.sh && . /tg/job' < /dev/null > /dev/ttyS1 2>&1
# (closing ttyS1 above waited until its output was sent)
echo "TG-EXIT $?"
sync
echo 1 > /proc/sys/kernel/sysrq
echo o > /proc/sysrq-trigger
sleep 30
EOF
}

# tg_hook_lib: /usr/lib/tg/lib.sh, the job's helpers.
tg_hook_lib() {
	cat <<'EOF'
# tool guest helpers for jobs (tests/boot/toolguest-lib.sh)
# tg_disk NAME: the /dev node of the virtio disk with serial NAME.
tg_disk() {
	for _s in /sys/class/block/*/serial; do
		[ -f "$_s" ] || continue
		[ "$(cat "$_s")" = "$1" ] || continue
		_s=${_s%/serial}
		echo "/dev/${_s##*/}"
		return 0
	done
	echo "tg_disk: no disk with serial $1" >&2
	return 1
}
EOF
}

# tg_hooks_dir CACHE: the tree --include'd into the tool image (the runner,
# its lib and the three hooks), in CACHE under a key of its text.
tg_hooks_dir() (
	key=$( { tg_hook_runner; tg_hook_lib; } | sha256sum | cut -c1-16)
	dir=$1/tg-hooks-$key
	[ -f "$dir/.complete" ] && { echo "$dir/tree"; return 0; }
	tmp=$(mktemp -d "$dir.tmp.XXXXXX") || return 1
	chmod 0755 "$tmp"
	t=$tmp/tree h=$tmp/tree/lib/dracut/hooks
	mkdir -p "$t/usr/lib/tg" "$h/pre-udev" "$h/pre-trigger" "$h/initqueue/settled" || return 1
	tg_hook_runner > "$t/usr/lib/tg/run" && chmod 0755 "$t/usr/lib/tg/run" &&
		tg_hook_lib > "$t/usr/lib/tg/lib.sh" || return 1
	for st in pre-udev pre-trigger initqueue/settled; do
		printf '/usr/lib/tg/run %s\n' "${st#initqueue/}" > "$h/$st/99-tg.sh" || return 1
	done
	: > "$tmp/.complete"
	mv -T "$tmp" "$dir" 2> /dev/null || rm -rf "$tmp"
	[ -f "$dir/.complete" ] && echo "$dir/tree"
)

# tg_image [CACHE]: build or reuse the tool image; prints its path. CACHE
# defaults to boot_cache_dir's; the kernel is boot_kver's.
tg_image() (
	cache=${1:-$(boot_cache_dir)} || return 1
	kver=$(boot_kver) || return 1
	tree=$(boot_cached_dracut_tree "$cache") || return 1
	hooks=$(tg_hooks_dir "$cache") || return 1
	# shellcheck disable=SC2086,SC2116 # one line of TG_PROGRAMS's words
	boot_cached_initramfs "$cache" "$tree" "$kver" "$TG_MODULES" "$TG_DRIVERS" \
		--install "$(echo $TG_PROGRAMS)" --include "$hooks" /
)

# tg_image_toplinks IMAGE: the image's top-level symlinks ("lib usr/lib",
# one a line; merged /usr), listed once into IMAGE.toplinks.
tg_image_toplinks() {
	if [ ! -f "$1.toplinks" ]; then
		cpio -itv --quiet < "$1" 2> /dev/null |
			awk '$1 ~ /^l/ && $9 !~ /\// && $10 == "->" { print $9, $11 }' > "$1.toplinks.tmp" &&
			mv "$1.toplinks.tmp" "$1.toplinks" || return 1
	fi
	cat "$1.toplinks"
}

# tg_overlay_merge STAGING IMAGE: move what STAGING has under a name that is
# a symlink at the image's top level (lib, bin, ...) to the link's target:
# the kernel would replace the image's symlink with the overlay's directory.
tg_overlay_merge() {
	tg_image_toplinks "$2" > "$1.toplinks" || return 1
	while read -r _name _target; do
		if [ ! -d "$1/$_name" ] || [ -L "$1/$_name" ]; then continue; fi
		case $_target in /* | *..*) continue ;; esac
		mkdir -p "$1/$_target" && cp -a "$1/$_name/." "$1/$_target/" &&
			rm -rf "${1:?}/$_name" || return 1
	done < "$1.toplinks"
}

# tg_overlay_add STAGING SPEC: copy HOST of SPEC (HOST=GUEST) to GUEST.
tg_overlay_add() (
	st=$1 host=${2%%=*} guest=${2#*=}
	case $guest in /*) ;; *) echo "tg_run: guest path $guest is not absolute" >&2; return 1 ;; esac
	mkdir -p "$st$(dirname "$guest")" && cp -RH "$host" "$st$guest"
)

# tg_overlay_program STAGING SPEC: HOST=GUEST with its libraries.
tg_overlay_program() (
	st=$1 host=${2%%=*} guest=${2#*=}
	mkdir -p "$st$(dirname "$guest")" && cp -L "$host" "$st$guest" || return 1
	libs=$(ldd "$host" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }') ||
		{ echo "tg_run: ldd $host failed" >&2; return 1; }
	for l in $libs; do
		[ -e "$st$l" ] && continue
		mkdir -p "$st$(dirname "$l")" && cp -L "$l" "$st$l" || return 1
	done
)

# tg_disk_args N NAME=IMAGE RO: the qemu arguments, one a line, for disk
# number N: a drive and the virtio-blk device with serial NAME.
tg_disk_args() {
	_n=${2%%=*} _f=${2#*=}
	case $_f in /*) ;; *) _f=$PWD/$_f ;; esac
	case $_n$_f in *,* | *"
"*) echo "tg_run: no commas or newlines in disk names or paths: $2" >&2; return 1 ;; esac
	[ -f "$_f" ] || { echo "tg_run: no disk image $_f" >&2; return 1; }
	printf '%s\n' -drive "if=none,id=tgd$1,file=$_f,format=raw$3" \
		-device "virtio-blk-pci,drive=tgd$1,serial=$_n"
}

# tg_run [options] JOB OUT: see the top of this file.
tg_run() (
	stage=settled append='' tmo=300 mem=1024 drives='' ndisk=0 qargs=
	work=$(mktemp -d "${TMPDIR:-/tmp}/tg-run.XXXXXX") || return 125
	trap 'rm -rf "$work"' EXIT
	st=$work/overlay
	mkdir -p "$st/tg" || return 125
	OPTIND=1 # (the caller's shell may have used getopts: atf-sh has)
	while getopts d:r:f:p:s:a:t:m:q: opt; do
		case $opt in
		d) a=$(tg_disk_args $ndisk "$OPTARG" "") || return 125
		   ndisk=$((ndisk + 1)) drives="$drives$a
" ;;
		r) a=$(tg_disk_args $ndisk "$OPTARG" ",snapshot=on") || return 125
		   ndisk=$((ndisk + 1)) drives="$drives$a
" ;;
		f) tg_overlay_add "$st" "$OPTARG" || return 125 ;;
		p) tg_overlay_program "$st" "$OPTARG" || return 125 ;;
		s) stage=$OPTARG ;;
		a) append="$append $OPTARG" ;;
		t) tmo=$OPTARG ;;
		m) mem=$OPTARG ;;
		q) qargs="$qargs $OPTARG" ;;
		*) echo "tg_run: bad option" >&2; return 125 ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -eq 2 ] || { echo "usage: tg_run [options] JOB OUT" >&2; return 125; }
	job=$1 out=$2
	cp "$job" "$st/tg/job" || return 125
	base=$(tg_image) || { echo "tg_run: cannot build the tool image" >&2; return 125; }
	kernel=$(boot_kernel "$(boot_kver)")
	tg_overlay_merge "$st" "$base" || return 125
	(cd "$st" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) \
		> "$work/overlay.cpio" || return 125
	cat "$base" "$work/overlay.cpio" > "$work/initrd" || return 125
	set --
	old_ifs=$IFS IFS='
'
	for a in $drives; do set -- "$@" "$a"; done
	IFS=$old_ifs
	rm -f "$out"
	t0=$(boot_now)
	timeout -k 5 "$tmo" qemu-system-x86_64 -accel tcg -m "$mem" -smp 2 \
		-nographic -no-reboot -nic none \
		-serial mon:stdio -serial file:"$out" \
		-kernel "$kernel" -initrd "$work/initrd" \
		-append "console=ttyS0 panic=-1 rd.shell=0 root=/dev/tg-no-root rd.luks=0 rd.lvm=0 rd.md=0 tg.stage=$stage$append" \
		$qargs "$@" < /dev/null > "$out.console" 2>&1
	qrc=$?
	[ -f "$out" ] || : > "$out"
	echo "tg_run: $job: qemu exit $qrc, wall $(boot_elapsed "$t0")s" >&2
	rc=$(tr -d '\r' < "$out.console" | sed -n 's/^TG-EXIT \([0-9]*\)$/\1/p' | tail -n 1)
	if [ -z "$rc" ]; then
		echo "tg_run: the guest reported no exit status; last console lines:" >&2
		tr -d '\r' < "$out.console" | tail -n 25 >&2
		return 125
	fi
	return "$rc"
)

# tg_tree_key PATH...: hash of the contents, names, modes and symlink
# targets of PATHs (files or directories; a symlink PATH itself followed,
# the ones inside kept, as cp -RH does).
tg_tree_key() {
	for p in "$@"; do
		find -H "$p" -printf '%P %m %y %l\n' | LC_ALL=C sort
		find -H "$p" -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum | cut -c1-64
	done | sha256sum | cut -c1-16
}

# tg_disks_dir CACHE NAME JOB [-f/-p/-r options] DISK:MIB...: the cache
# directory tg_build_disks uses for these inputs (made or not).
tg_disks_dir() (
	cache=$1 name=$2 job=$3
	shift 3
	img=$(tg_image "$cache") || return 1
	# the key: the job, the tool image, each option and the files it names
	key=$(
		{
			cat "$job"
			echo "$img"
			# (HOST=GUEST and NAME=IMAGE by the guest side and the contents:
			# the host path may be a fresh temporary directory each time)
			for a in "$@"; do
				case $a in
				*=*) printf '%s\n' "${a#*=}"; tg_tree_key "${a%%=*}" ;;
				*) printf '%s\n' "$a" ;;
				esac
			done
		} | sha256sum | cut -c1-16)
	echo "$cache/disks-$name-$key"
)

# tg_build_disks CACHE NAME JOB [-f/-p/-r options] DISK:MIB...: see the top.
tg_build_disks() (
	cache=$1
	dir=$(tg_disks_dir "$@") || return 1
	[ -f "$dir/.complete" ] && { echo "$dir"; return 0; }
	name=$2 job=$3
	shift 3
	tmp=$(mktemp -d "$dir.tmp.XXXXXX") || return 1
	set -- "$@" --
	while [ "$1" != -- ]; do
		case $1 in
		-[fpr]) set -- "$@" "$1" "$2"; shift 2 ;;
		*:*)
			d=${1%%:*}
			truncate -s "${1#*:}M" "$tmp/$d.img" || return 1
			set -- "$@" -d "$d=$tmp/$d.img"
			shift
			;;
		*) echo "tg_build_disks: bad argument $1" >&2; rm -rf "$tmp"; return 1 ;;
		esac
	done
	shift
	if ! BOOT_CACHE=$cache tg_run "$@" "$job" "$tmp/job.out"; then
		echo "tg_build_disks: $name: the job failed; its output:" >&2
		tail -n 40 "$tmp/job.out" >&2
		rm -rf "$tmp"
		return 1
	fi
	: > "$tmp/.complete"
	mv -T "$tmp" "$dir" 2> /dev/null || rm -rf "$tmp"
	[ -f "$dir/.complete" ] || return 1
	# the same NAME made from older inputs is stale (disk images add up)
	for old in "$cache/disks-$name-"*; do
		case $old in "$dir" | *.tmp.*) continue ;; esac
		[ -f "$old/.complete" ] && rm -rf "$old"
	done
	echo "$dir"
)
