#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# initdev in dracut's default image, which on a host with systemd is a
# systemd initrd (PID 1 = systemd, udev started by systemd-udevd.service
# from its socket units; REFERENCE.md §10). Two images of dracut's default
# module set (no -m), booted under QEMU/TCG on the root disk of the other
# boot tests:
#   stock    plain `dracut`;
#   initdev  `dracut --add initdev --omit "<what 90initdev refuses that the
#            stock build includes>"` (computed: the module's refusal list
#            against the stock build's "Including module" lines).
# Both carry the same pre-pivot hook, which saves systemd's view of udev in
# /run (switch-root moves /run into the root; the root's init prints it).
# For the initdev image: the root is reached; systemd-udevd.service's main
# process is initdev (/proc/MAINPID/exe); the root disk's device units have
# the stock image's states; /run/udev/tags/systemd holds the same devices;
# /run/udev/data the same S: (link) lines.
#
# Inputs as for initdev_test (the staged install: INITDEV_STAGE_ENV or the
# kyua variable stage_env; BOOT_CACHE). While developing:
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     atf-sh /work/main/tests/boot/systemd_initrd_test.sh -s /work/main/tests/boot default_image
# (two image builds of ~130 MB and two boots of 1-2 minutes each under TCG).

# dracut's default set: every driver comes with kernel-modules
STOCK_MODULES=""
DRIVERS=""
ROOT_UUID=6e8f9a0b-2c3d-4e5f-9a6b-7c8d9e0f1a2b
ROOT_LABEL=sysdinitrdroot
BOOT_TIMEOUT=420
# the root disk as the guest sees it (one virtio disk)
ROOT_DISK=vda

# Next to this program (atf_get_srcdir is not known yet at this point).
# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

# report_hook: the pre-pivot hook both images carry (test instrumentation):
# systemd-udevd.service's main process, every device unit's state and
# sysfs path, the systemd tag index and every S: line of udev's database,
# as SYSD-* lines in /run/initdev-test.sysd.
report_hook() {
	cat <<'EOF'
# initdev boot test: systemd's view of udev in the initrd, for the root's init
{
	pid=$(systemctl show -p MainPID --value systemd-udevd.service)
	echo "SYSD-MAINPID $pid"
	echo "SYSD-EXE $(readlink "/proc/$pid/exe")"
	echo "SYSD-ACTIVE" $(systemctl is-active systemd-udevd.service \
		systemd-udevd-kernel.socket systemd-udevd-control.socket)
	units=$(systemctl list-units --type=device --all --plain --no-legend --full |
		while read -r a b _; do
			case $a in *.device) echo "$a" ;; *) echo "$b" ;; esac
		done)
	# one block of properties a unit, blank line between
	systemctl show -p Id,ActiveState,SubState,SysFSPath $units | {
		id= act= sub= sys=
		while IFS= read -r l || [ -n "$id" ]; do
			case $l in
			Id=*) id=${l#Id=} ;;
			ActiveState=*) act=${l#ActiveState=} ;;
			SubState=*) sub=${l#SubState=} ;;
			SysFSPath=*) sys=${l#SysFSPath=} ;;
			"") [ -n "$id" ] && echo "SYSD-UNIT $id $act $sub ${sys:--}"
			    id= act= sub= sys= ;;
			esac
		done
	}
	for f in /run/udev/tags/systemd/*; do
		[ -e "$f" ] && echo "SYSD-TAG ${f##*/}"
	done
	for f in /run/udev/data/*; do
		[ -f "$f" ] && sed -n "s|^S:|SYSD-LINK ${f##*/} |p" "$f"
	done
	# the kernel's disk sequence numbers (by-diskseq names carry them)
	for b in /sys/class/block/*; do
		if [ -f "$b/partition" ]; then s=$(cat "$b/../diskseq" 2> /dev/null)
		else s=$(cat "$b/diskseq" 2> /dev/null); fi
		[ -n "$s" ] && echo "SYSD-DISKSEQ ${b##*/} b$(cat "$b/dev") $s"
	done
	echo "SYSD-FAILED" $(systemctl list-units --failed --plain --no-legend | while read -r a b _; do
		case $a in *.*) echo "$a" ;; *) echo "$b" ;; esac
	done)
} > /run/initdev-test.sysd 2>&1
EOF
}

# write_sysd_init STAGING: a /sbin/init in front of the harness' (kept as
# /sbin/init-report) that prints what the hook saved.
write_sysd_init() {
	mv "$1/sbin/init" "$1/sbin/init-report" || return 1
	{
		printf '#!/bin/sh\nexport PATH=/bin\n'
		boot_init_mounts
		cat <<'EOF'
echo 1 > /proc/sys/kernel/printk
if [ -f /run/initdev-test.sysd ]; then cat /run/initdev-test.sysd; else echo "SYSD-NOREPORT"; fi
exec /sbin/init-report
EOF
	} > "$1/sbin/init"
	chmod 0755 "$1/sbin/init"
}

# sysd_setup: both images (cached), the root disk. Sets STOCK_INITRD,
# INITRD, OMIT.
sysd_setup() {
	harness_setup
	initdev_locate
	[ -x /lib/systemd/systemd ] || atf_skip "systemd is not installed: dracut's default image is not a systemd initrd"
	hook=$cache/sysd-report-$(report_hook | sha256sum | cut -c1-16).sh
	[ -s "$hook" ] || { report_hook > "$hook.tmp" && mv "$hook.tmp" "$hook"; } ||
		atf_fail "cannot write the report hook"
	hookdest=/lib/dracut/hooks/pre-pivot/97-initdev-test-sysd.sh
	STOCK_INITRD=$(boot_cached_initramfs "$cache" "$base" "$KVER" "" "" \
		--include "$hook" "$hookdest") || atf_fail "dracut could not build the stock default image"
	grep -q 'Including module: systemd-initrd ' "$STOCK_INITRD.log" ||
		atf_fail "the stock default image is not a systemd initrd (see $STOCK_INITRD.log)"
	echo "stock: image $STOCK_INITRD ($(stat -c %s "$STOCK_INITRD") bytes)"
	OMIT=$(refused_included "$STOCK_INITRD.log") || atf_fail "cannot list 90initdev's refused modules"
	OMIT=${OMIT% }
	echo "initdev: refused modules the stock build includes, omitted: ${OMIT:-none}"
	INITRD=$(boot_initdev_image "$cache" "$base" ${OMIT:+--omit "$OMIT"} \
		--include "$hook" "$hookdest") || atf_fail "dracut could not build the initdev default image"
	grep -q 'Including module: initdev ' "$INITRD.log" ||
		atf_fail "dracut did not include initdev (see $INITRD.log)"
	grep -q 'Including module: systemd-initrd ' "$INITRD.log" ||
		atf_fail "the initdev image is not a systemd initrd (see $INITRD.log)"
	echo "initdev: image $INITRD ($(stat -c %s "$INITRD") bytes), ready in $(boot_elapsed "$t0")s"
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	write_sysd_init staging || atf_fail "cannot write the reporting init"
	boot_make_ext4 root.ext4 32 staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the root filesystem image"
}

# sysd_boot NAME IMAGE: boot IMAGE on the root disk into NAME.log; fail
# with the log's tail unless the root was reached and the hook's report is
# there.
sysd_boot() {
	if ! try_boot "$1.log" "$2" "root=UUID=$ROOT_UUID rd.emergency=poweroff" \
		-drive file=root.ext4,if=virtio,format=raw; then
		boot_log_tail "$1.log"
		atf_fail "$1: the guest did not reach the root (see the log above)"
	fi
	up=$(boot_result_uptime "$1.log") || { boot_log_tail "$1.log"; atf_fail "$1: no 'BOOT-RESULT ok' line"; }
	echo "$1: root reached at guest uptime ${up}s, wall $(cat "$1.log.wall")s"
	if [ -n "$(log_lines SYSD-NOREPORT "$1.log")" ] || [ -z "$(log_lines SYSD-EXE "$1.log")" ]; then
		boot_log_tail "$1.log"
		atf_fail "$1: the pre-pivot hook's report is missing"
	fi
	echo "$1: udevd's main process: $(log_lines SYSD-EXE "$1.log"); active: $(log_lines SYSD-ACTIVE "$1.log")"
	echo "$1: failed units: $(log_lines SYSD-FAILED "$1.log")"
}

# disk_units LOG: "UNIT ACTIVE SUB" of every device unit of the root disk
# (its sysfs path is the disk's or one of its partitions'), sorted. The
# disk's sequence number is the kernel's count of disks made so far, which
# depends on the order the drivers loaded in (initdev loads the root's
# first): a by-diskseq unit naming the disk's own number says DISKSEQ.
disk_units() {
	seq=$(log_lines SYSD-DISKSEQ "$1" | awk -v d="$ROOT_DISK" '$1 == d { print $3 }')
	log_lines SYSD-UNIT "$1" | awk -v d="$ROOT_DISK" -v s="$seq" '
		$4 ~ ("/block/" d "$") || $4 ~ ("/block/" d "/") {
			u = $1
			p = "dev-disk-by\\x2ddiskseq-" s
			if (s != "" && (u == p ".device" || index(u, p "\\x2dpart") == 1))
				u = "dev-disk-by\\x2ddiskseq-DISKSEQ" substr(u, length(p) + 1)
			print u, $2, $3
		}' | LC_ALL=C sort
}

# db_links LOG: "DBFILE LINK" for every S: line of udev's database, sorted;
# a by-diskseq link naming its device's own number says DISKSEQ.
db_links() {
	{
		log_lines SYSD-DISKSEQ "$1" | sed 's/^/SEQ /'
		log_lines SYSD-LINK "$1" | sed 's/^/LINK /'
	} | awk '
		$1 == "SEQ" { seq[$3] = $4; next }
		{
			l = $3
			p = "disk/by-diskseq/" seq[$2]
			if (($2 in seq) && (l == p || index(l, p "-part") == 1))
				l = "disk/by-diskseq/DISKSEQ" substr(l, length(p) + 1)
			print $2, l
		}' | LC_ALL=C sort
}

# compare STOCK_LOG INITDEV_LOG: the assertions (also run on edited logs
# to see each of them fail).
compare() {
	exe=$(log_lines SYSD-EXE "$2")
	[ "$exe" = /usr/sbin/initdev ] ||
		atf_fail "initdev image: systemd-udevd.service's main process is '$exe', not /usr/sbin/initdev"
	sexe=$(log_lines SYSD-EXE "$1")
	case $sexe in
	*initdev* | "") atf_fail "stock image: udevd's main process is '$sexe'" ;;
	esac
	disk_units "$1" > units.stock
	disk_units "$2" > units.initdev
	uuid_unit="dev-disk-by\\x2duuid-$(echo "$ROOT_UUID" | sed 's/-/\\x2d/g').device"
	grep -Fxq "$uuid_unit active plugged" units.stock ||
		atf_fail "stock image: the root's by-uuid device unit is not plugged: $(cat units.stock)"
	if ! diff -u units.stock units.initdev; then
		atf_fail "the root disk's device units differ: '-' stock, '+' initdev"
	fi
	echo "device units of $ROOT_DISK: $(wc -l < units.stock), same states"
	log_lines SYSD-TAG "$1" | LC_ALL=C sort > tags.stock
	log_lines SYSD-TAG "$2" | LC_ALL=C sort > tags.initdev
	[ -s tags.stock ] || atf_fail "stock image: no /run/udev/tags/systemd entries"
	if ! diff -u tags.stock tags.initdev; then
		atf_fail "/run/udev/tags/systemd differs: '-' stock, '+' initdev"
	fi
	echo "tags/systemd: $(wc -l < tags.stock) devices, the same"
	db_links "$1" > links.stock
	db_links "$2" > links.initdev
	[ -s links.stock ] || atf_fail "stock image: no S: lines in /run/udev/data"
	if ! diff -u links.stock links.initdev; then
		atf_fail "S: lines in /run/udev/data differ: '-' stock, '+' initdev"
	fi
	echo "S: lines: $(wc -l < links.stock), the same"
}

atf_test_case default_image
default_image_head() {
	atf_set descr "dracut's default image (a systemd initrd) with --add initdev: initdev is systemd-udevd.service's process and systemd sees the root disk's devices, tags and links as with stock udevd"
	initdev_head "bash" 1500
}
default_image_body() {
	if [ -n "${SYSD_LOGS:-}" ]; then
		# while developing: only the comparison, of two earlier boots'
		# logs (SYSD_LOGS/stock.log and initdev.log; edit one to see an
		# assertion fail)
		. "$(atf_get_srcdir)/lib.sh"
		compare "$SYSD_LOGS/stock.log" "$SYSD_LOGS/initdev.log"
		return
	fi
	sysd_setup
	sysd_boot stock "$STOCK_INITRD"
	sysd_boot initdev "$INITRD"
	echo "uptime at the root: stock $(boot_result_uptime stock.log)s, initdev $(boot_result_uptime initdev.log)s"
	compare stock.log initdev.log
}

atf_init_test_cases() {
	atf_add_test_case default_image
}
