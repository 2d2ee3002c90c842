# SPDX-License-Identifier: MIT
# Many disks in a guest (POSIX sh, sourced after lib.sh): used by
# tests/boot/scale_test and scripts/bench/scale.
#
# The disks are scsi_debug LUNs (REFERENCE.md §9): T targets x L LUNs of
# 1 MiB each, loaded by rd.driver.pre= before the device manager coldplugs;
# with max_queue=1 every command of every disk waits for the one before
# (slow disks). The images are "generic": dracut's kernel-modules module
# without hostonly (every storage driver, ~750 modules) plus scsi_debug, so
# the device manager has as much to do as on a distribution's default
# image. The root sits on virtio-blk, a second virtio disk (vdb) takes the
# root's report: at thousands of disks the link list is megabytes, too much
# for the serial console.

# shellcheck disable=SC2034 # used by the scripts that source this file
SCALE_MODULES="base rootfs-block udev-rules kernel-modules"
# shellcheck disable=SC2034
SCALE_DRIVERS="scsi_debug virtio_pci virtio_blk ext4"
# the report disk: plenty for 4,096 disks' links (listed twice)
SCALE_REPORT_MB=64

# scale_cmdline N [slow]: kernel command line words for N scsi_debug disks
# (N a multiple of 16 up to 256, of 32 above: T x L with T = L or L = 32,
# T <= 128; scsi_debug scans LUNs 0..max_luns-1 on targets 0..num_tgts-1).
scale_cmdline() (
	n=$1
	if [ "$n" -le 256 ]; then l=16; else l=32; fi
	t=$((n / l))
	if [ $((t * l)) -ne "$n" ] || [ "$t" -lt 1 ] || [ "$t" -gt 128 ]; then
		echo "scale_cmdline: $n disks is not T x $l with 1 <= T <= 128" >&2
		return 1
	fi
	printf 'rd.driver.pre=scsi_debug scsi_debug.num_tgts=%s scsi_debug.max_luns=%s scsi_debug.dev_size_mb=1' "$t" "$l"
	[ "${2:-}" = slow ] && printf ' scsi_debug.max_queue=1'
	echo
)

# Kernel command line words for every scale boot: the kernel's own messages
# (six lines a disk) stay off the serial console, whose speed would
# otherwise be measured; the log buffer keeps them all, and the marks, for
# the root to read; /dev/kmsg is not rate limited (by default a writer that
# keeps it open, as the daemon does, loses lines past 10 in 5 s).
# shellcheck disable=SC2034
SCALE_APPEND="loglevel=4 log_buf_len=16M printk.devkmsg=on"

# scale_mem_mb N: guest memory for N disks (REFERENCE.md §9: about 3 GiB
# at 1,024 disks; the generic image alone takes ~400 MiB unpacked).
scale_mem_mb() {
	echo $((1024 + 2 * $1))
}

# scale_hooks DIR: write the instrumentation hooks into a directory below
# DIR named by their contents (the image cache keys on the arguments, not
# on the files) and print the dracut arguments that put them into an image
# (no spaces in DIR):
# - pre-udev, pre-mount and pre-pivot marks in the kernel log ("bench-mark
#   NAME"; a shell builtin writing to /dev/kmsg, no process started): the
#   device phase's bounds, as scripts/bench/boot takes them, and the
#   mount's end;
# - a cleanup hook that wraps init.sh's `udevadm control --exit` (hooks are
#   sourced, so the function replaces the command for the rest of init.sh)
#   and marks its start and end in the kernel log ("scale-mark exit-start",
#   "scale-mark exit-end RC"): the handoff's cost in guest time; right
#   before, `initdev status` goes to the kernel log ("scale-status LINE"),
#   and the daemon's memory from /proc ("scale-mem LINE");
# - with `scale.settle=S` on the command line, a pre-trigger hook that makes
#   init.sh's bare `udevadm settle` (after coldplug) give up after S seconds
#   instead of udevadm's 120: the boot then goes on, as on a machine whose
#   disks take longer than the settle timeout, and hands over while the
#   device manager is still busy; with `scale.trace=1` it marks the start
#   and end (with the exit code) of every udevadm call in the kernel log.
scale_hooks() (
	tmp=$(mktemp -d "$1/.hooks.XXXXXX") || return 1
	for h in pre-udev pre-mount pre-pivot; do
		printf '#!/bin/sh\necho "bench-mark %s" > /dev/kmsg\n' "$h" > "$tmp/$h.sh" || return 1
	done
	cat > "$tmp/settle-bound.sh" <<'HOOK' || return 1
#!/bin/sh
# scale test instrumentation: scale.settle=S bounds the settle after
# coldplug; scale.trace=1 marks every udevadm call's start and end
_scale_settle=$(getarg scale.settle=)
_scale_trace=$(getarg scale.trace=)
if [ -n "$_scale_settle$_scale_trace" ]; then
	udevadm() {
		if [ -n "$_scale_settle" ] && [ $# -eq 1 ] && [ "$1" = settle ]; then
			echo "scale-mark settle-bounded $_scale_settle" > /dev/kmsg
			set -- settle --timeout="$_scale_settle"
		fi
		[ -n "$_scale_trace" ] && echo "scale-mark udevadm $*" > /dev/kmsg
		command udevadm "$@"
		set -- $? "$@"
		[ -n "$_scale_trace" ] && echo "scale-mark udevadm-end $*" > /dev/kmsg
		return "$1"
	}
fi
HOOK
	cat > "$tmp/exit-timer.sh" <<'HOOK' || return 1
#!/bin/sh
# scale test instrumentation: how long `udevadm control --exit` takes
udevadm() {
	if [ "$1" = control ] && [ "$2" = --exit ]; then
		# the device manager's state as the handoff begins (initdev only)
		if command -v initdev > /dev/null; then
			initdev status 2>&1 | while read -r l; do
				echo "scale-status $l" > /dev/kmsg
			done
			# where the daemon's memory is (peak RSS questions)
			read -r _pid < /run/initdev/pid &&
				cat "/proc/$_pid/smaps_rollup" "/proc/$_pid/status" 2> /dev/null |
				while read -r l; do
					case $l in Rss:* | Pss_Anon:* | Pss_File:* | Anonymous:* | VmHWM:* | VmRSS:* | RssAnon:* | RssFile:* | Threads:*)
						echo "scale-mem $l" > /dev/kmsg ;;
					esac
				done
		fi
		echo "scale-mark exit-start" > /dev/kmsg
		command udevadm "$@"
		set -- $?
		echo "scale-mark exit-end $1" > /dev/kmsg
		return "$1"
	fi
	command udevadm "$@"
}
HOOK
	d=$1/hooks-$(cat "$tmp"/* | sha256sum | cut -c1-16)
	if [ -d "$d" ]; then rm -rf "$tmp"; else mv -T "$tmp" "$d" || return 1; fi
	echo "--include $d/pre-udev.sh /lib/dracut/hooks/pre-udev/00-bench-mark.sh"
	echo "--include $d/pre-mount.sh /lib/dracut/hooks/pre-mount/00-bench-mark.sh"
	echo "--include $d/pre-pivot.sh /lib/dracut/hooks/pre-pivot/00-bench-mark.sh"
	echo "--include $d/settle-bound.sh /lib/dracut/hooks/pre-trigger/99-scale-settle-bound.sh"
	echo "--include $d/exit-timer.sh /lib/dracut/hooks/cleanup/99-scale-exit-timer.sh"
)

# scale_write_init FILE: the root's /sbin/init. Everything it reports goes
# to /run/scale.report, then onto the report disk (/dev/vdb), NUL padded;
# short lines go to the console as well. What it reports (SCALE-* lines):
# its start (ROOT, guest uptime), what is left of initdev and udevd from the
# initramfs (PROC: pid, comm, state, argv[0]), the kernel's SEQNUM,
# initdev's status.json and the
# test status hook's text, the kernel log's marks and handoff lines, every
# /dev/disk/by-* link as the initramfs left it (LINK initramfs NAME TARGET),
# and how many of scsi_debug's disks exist (DISKS-AT-ROOT). With
# `scale.udevd=1` on the command line it then starts Debian's systemd-udevd
# through `initdev adopt`, waits for the kernel's scan to make every disk
# and for udevd to record each (DB), triggers and settles as systemd-udev-trigger.service does (TRIGGER-SEQNUM:
# the kernel's SEQNUM before the trigger), lists the links again (LINK udevd
# ...) and, from udevd's database, the SEQNUM of the first event udevd
# handled for each disk (FIRST MAJ:MIN SEQNUM). Last, each sd disk's
# diskseq (DISK) and device number (DEVNUM), and their count (DISKS).
scale_write_init() {
	{
		boot_init_head /bin:/usr/sbin
		cat <<'EOF'
read -r up _ < /proc/uptime
R=/run/scale.report
say() { echo "SCALE-$*" >> $R; echo "SCALE-$*"; }
note() { echo "SCALE-$*" >> $R; }
say "ROOT $up"
for p in /proc/[0-9]*; do
	comm=$(cat "$p/comm" 2> /dev/null) || continue
	case $comm in *initdev* | *udev*) ;; *) continue ;; esac
	state=$(sed 's/.*) //; s/ .*//' "$p/stat" 2> /dev/null)
	say "PROC ${p#/proc/} $comm $state $({ tr '\0' '\n' < "$p/cmdline"; } 2> /dev/null | head -n 1)"
done
say "SEQNUM $(cat /sys/kernel/uevent_seqnum)"
[ -f /run/initdev/status.json ] && say "STATUS $(cat /run/initdev/status.json)"
[ -f /run/initdev-test.status ] && sed 's/^/SCALE-PREPIVOT /' /run/initdev-test.status >> $R
say "RUN $(ls -A /run | tr '\n' ' ')"
grep ' /run ' /proc/mounts | sed 's/^/SCALE-MOUNT /' >> $R
dmesg | grep -e 'bench-mark' -e 'scale-mark' -e 'scale-status' -e 'scale-mem' -e 'initdev\[[0-9]*\]:' -e 'dracut' |
	sed 's/^/SCALE-KMSG /' >> $R
while read -r k v _; do
	case $k in MemTotal: | MemAvailable:) say "MEM $k $v" ;; esac
done < /proc/meminfo
# list TAG: every link of /dev/disk/by-*, one ls a directory
list() {
	for d in /dev/disk/by-*; do
		[ -d "$d" ] || continue
		ls -l "$d" | sed -n "s|.* \([^ ]*\) -> \(.*\)\$|SCALE-LINK $1 ${d##*/}/\1 \2|p" >> $R
	done
}
list initramfs
# disks() : how many sd disks the kernel has made so far
disks() { ls -d /sys/block/sd* 2> /dev/null | wc -l; }
# the disks scsi_debug makes: num_tgts x max_luns
want=1
for w in $(cat /proc/cmdline); do
	case $w in scsi_debug.num_tgts=* | scsi_debug.max_luns=*) want=$((want * ${w#*=})) ;; esac
done
say "DISKS-AT-ROOT $(disks) of $want"
# in_db: sd disks (majors 8, 65-71, 128-135) with the test rule's record
in_db() {
	grep -l '^E:INITDEV_TEST_FIRST=' /run/udev/data/b8:* /run/udev/data/b6[5-9]:* \
		/run/udev/data/b7[01]:* /run/udev/data/b12[89]:* /run/udev/data/b13[0-5]:* \
		2> /dev/null | wc -l
}
# list_disks: each sd disk's diskseq and device number
list_disks() {
	grep -H . /sys/block/sd*/diskseq 2> /dev/null |
		sed -n 's|^/sys/block/\([^/]*\)/diskseq:\(.*\)|SCALE-DISK \1 \2|p' >> $R
	grep -H . /sys/block/sd*/dev 2> /dev/null |
		sed -n 's|^/sys/block/\([^/]*\)/dev:\(.*\)|SCALE-DEVNUM \1 \2|p' >> $R
	say "DISKS $(disks)"
}
case " $(cat /proc/cmdline) " in
*" scale.udevd=1 "*)
	mkdir -p /run/udev
	initdev adopt --timeout 5 -- /lib/systemd/systemd-udevd > /run/udevd.log 2>&1 &
	c=0
	while [ ! -S /run/udev/control ] && [ $c -lt 1200 ]; do sleep 0.1; c=$((c + 1)); done
	say "UDEVD control after ${c}00ms"
	# the kernel may still be scanning: before the trigger, every disk is
	# there and udevd has handled an event of it (the test rule's record;
	# a disk's add comes after its partition scan, so sysfs has it first)
	c=0
	while [ "$(disks)" -lt "$want" ] && [ $c -lt 1800 ]; do sleep 0.5; c=$((c + 1)); done
	say "SCAN done after $((c / 2)) s in the root"
	c=0
	while [ "$(in_db)" -lt "$want" ] && [ $c -lt 300 ]; do sleep 2; c=$((c + 1)); done
	say "DB $(in_db) of $want disks in udevd's database after $((c * 2)) s"
	say "TRIGGER-SEQNUM $(cat /sys/kernel/uevent_seqnum)"
	read -r t0 _ < /proc/uptime
	udevadm trigger --type=subsystems --action=add
	udevadm trigger --type=devices --action=add
	udevadm settle --timeout=900
	rc=$?
	read -r t1 _ < /proc/uptime
	say "SETTLE rc=$rc $t0 $t1"
	list udevd
	# the test rule's record: the first event udevd handled for each disk
	grep -H '^E:INITDEV_TEST_FIRST=' /run/udev/data/b* 2> /dev/null |
		sed -n 's|^/run/udev/data/b\([0-9:]*\):E:INITDEV_TEST_FIRST=|SCALE-FIRST \1 |p' >> $R
	grep initdev /run/udevd.log | sed 's/^/SCALE-ADOPT /' >> $R
	dmesg | grep 'initdev\[[0-9]*\]:' | sed 's/^/SCALE-KMSG-AFTER /' >> $R
	for p in /proc/[0-9]*; do
		[ "$({ tr '\0' '\n' < "$p/cmdline"; } 2> /dev/null | head -n 1)" = @initdev-holder ] &&
			say "HOLDER-AFTER ${p#/proc/}"
	done
	udevadm control --exit ;;
esac
list_disks
say END
if [ -b /dev/vdb ]; then
	cat $R > /dev/vdb
	sync
fi
echo BOOT-END
poweroff -f
exit 1
EOF
	} > "$1"
	chmod 0755 "$1"
}

# scale_make_root DIR IMG UUID: the root (busybox, the init above, Debian's
# udevd with its persistent-storage rules and scsi_id, initdev for adopt)
# as ext4 image IMG. INITDEV_BIN must be set.
scale_make_root() (
	st=$1 img=$2 uuid=$3
	rm -rf "$st"
	boot_make_rootfs "$st" || return 1
	scale_write_init "$st/sbin/init" || return 1
	udevadm=$(command -v udevadm) || { echo "scale_make_root: no udevadm" >&2; return 1; }
	[ "$(readlink -f "$udevadm")" != "$(readlink -f "$INITDEV_BIN")" ] ||
		{ echo "scale_make_root: $udevadm is initdev, not udev's" >&2; return 1; }
	boot_add_program "$st" "$udevadm" /bin/udevadm || return 1
	# udevd 252 as Debian builds it runs its helpers from /lib/udev
	boot_add_program "$st" /usr/lib/udev/scsi_id /lib/udev/scsi_id || return 1
	boot_add_program "$st" "$INITDEV_BIN" /usr/sbin/initdev || return 1
	mkdir -p "$st/lib/systemd" "$st/usr/lib/udev/rules.d" "$st/etc/udev/rules.d" || return 1
	ln -sf /bin/udevadm "$st/lib/systemd/systemd-udevd"
	# the rules that make /dev/disk/by-* (scsi_id gives SCSI disks their by-id)
	cp /usr/lib/udev/rules.d/60-persistent-storage.rules "$st/usr/lib/udev/rules.d/" || return 1
	# the test rule: udevd's database keeps the SEQNUM of the first event it
	# handled for each disk (a handed event, or its own trigger's)
	# shellcheck disable=SC2016 # udev's $env{}, not the shell's
	printf '%s\n' 'SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", IMPORT{db}="INITDEV_TEST_FIRST"' \
		'SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", ENV{INITDEV_TEST_FIRST}!="?*", ENV{INITDEV_TEST_FIRST}="$env{SEQNUM}"' \
		> "$st/etc/udev/rules.d/50-initdev-scale-test.rules" || return 1
	ln -sf busybox "$st/bin/wc"
	printf 'root:x:0:\n' > "$st/etc/group"
	boot_make_ext4 "$img" 128 "$st" "$uuid" scaleroot
)

# scale_report REPORT_DISK: the root's report, NULs dropped.
scale_report() {
	tr -d '\0' < "$1"
}
