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
# /run/udev/data the same S: (link) lines (case default_image). Stacked
# roots (lvm_luks, md_raid1; stacked_set=all only) further down.
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
# the stacked scenarios' names, identities, disks and checks
# shellcheck source=tests/boot/stacked-lib.sh
. "$(dirname "$0")/stacked-lib.sh"

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
		boot_init_head
		cat <<'EOF'
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
	default_images -- --include "$hook" "$hookdest"
	echo "images ready in $(boot_elapsed "$t0")s"
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
	same_listing tags sysd_tags "$1" "$2" "/run/udev/tags/systemd entries"
	same_listing links db_links "$1" "$2" "S: lines in /run/udev/data"
}

# sysd_tags LOG: the devices in /run/udev/tags/systemd, sorted
sysd_tags() { log_lines SYSD-TAG "$1" | LC_ALL=C sort; }

# same_listing NAME LISTER STOCK_LOG INITDEV_LOG WHAT: LISTER's listing of
# each log (into NAME.stock, NAME.initdev) is the same, and the stock one
# not empty; prints the count.
same_listing() {
	$2 "$3" > "$1.stock"
	$2 "$4" > "$1.initdev"
	[ -s "$1.stock" ] || atf_fail "stock image: no $5"
	if ! diff -u "$1.stock" "$1.initdev"; then
		atf_fail "$5 differ: '-' stock, '+' initdev"
	fi
	echo "$5: $(wc -l < "$1.stock"), the same"
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

# ---- stacked roots in the systemd initrd (issue 20 item 3) ----
# Two of stacked_test's scenarios on its disks (made in the tool guest,
# cached in the shared boot cache) booted by dracut's default image, stock
# and with --add initdev as above, both images carrying the key file at
# STACKED_KEY_PATH, stacked_test's pre-mount hook and stk_hook (below):
#   lvm_luks  LVM on LUKS2: systemd-cryptsetup-generator makes
#             systemd-cryptsetup@luks-UUID.service from rd.luks.uuid=, which
#             opens it with the key file in the image (rd.luks.key=PATH,
#             systemd's form: dracut's PATH:/ is the other flow's); dracut's
#             lvm_scan (64-lvm.rules, the initqueue) activates rd.lvm.lv=;
#             root=/dev/mapper/vgcrypt-root;
#   md_raid1  md RAID1 (metadata 1.2, both disks), rd.md.uuid=, root=UUID=.
# The root's init prints stacked_test's report (STACK-*) and, from a small
# extra disk (serial stacktools), the pre-pivot hooks' SYSD-* report.
# Asserted for both images: the root reached from the expected device, the
# expected links (stacked_check). Then initdev's against stock's: every
# link under /dev/disk, /dev/mapper, /dev/md and the VG's directory; the
# udev database the root finds; every device unit PID 1 knows (the
# stacked devices' (dm-N, md127) and their members') in the same states;
# the same /run/udev/tags/systemd entries; the dm and md devices' udev
# properties before the pivot; for lvm_luks, systemd-cryptsetup@'s unit
# active. Not in the ci set: stacked_set=all only.

# stk_hook: the second pre-pivot hook of the stacked images: every service
# unit's state, the dm and md devices' udev database entries, journal lines
# of priority warning or worse; appended to the report_hook's file.
stk_hook() {
	cat <<'EOF2'
# initdev boot test: services, dm/md database entries, warnings (stacked roots)
{
	systemctl list-units --type=service --all --plain --no-legend --full |
		while read -r a b c d e _; do
			case $a in *.service) echo "SYSD-SERVICE $a $c $d" ;; *) echo "SYSD-SERVICE $b $d $e" ;; esac
		done
	for d in /sys/class/block/dm-* /sys/class/block/md*; do
		[ -f "$d/dev" ] || continue
		f=/run/udev/data/b$(cat "$d/dev")
		if [ -f "$f" ]; then sed "s|^|SYSD-STKDB ${d##*/} |" "$f"
		else echo "SYSD-STKDB ${d##*/} none"; fi
	done
	journalctl -b -p warning -n 60 --no-pager -o short-monotonic 2>&1 |
		sed 's/^/SYSD-JOURNAL /'
} >> /run/initdev-test.sysd 2>&1
EOF2
}

# stk_cached HOOKFN: HOOKFN's output in the cache, named by its hash
stk_cached() {
	f=$cache/sysd-$1-$($1 | sha256sum | cut -c1-16).sh
	[ -s "$f" ] || { $1 > "$f.tmp" && mv "$f.tmp" "$f"; } || return 1
	echo "$f"
}

# stk_setup: the disks (DISKS), both images (STOCK_INITRD, INITRD) and the
# extra report disk (tools.img).
stk_setup() {
	harness_shared_cache
	harness_setup
	initdev_locate
	[ -x /lib/systemd/systemd ] || atf_skip "systemd is not installed: dracut's default image is not a systemd initrd"
	# shellcheck source=tests/boot/toolguest-lib.sh
	. "$(atf_get_srcdir)/toolguest-lib.sh"
	DISKS=$(stacked_disks "$cache") || atf_fail "the tool guest could not make the disks"
	echo "stacked: disks in $DISKS, ready in $(boot_elapsed "$t0")s"
	keys=$(stacked_keyfile_dir "$cache") && hook=$(stk_cached report_hook) &&
		shook=$(stk_cached stk_hook) && phook=$(stk_cached stacked_premount_hook) ||
		atf_fail "cannot write the key file and the hooks"
	set -- --include "$keys" / --include "$hook" /lib/dracut/hooks/pre-pivot/97-initdev-test-sysd.sh \
		--include "$shook" /lib/dracut/hooks/pre-pivot/98-initdev-test-stk.sh \
		--include "$phook" /lib/dracut/hooks/pre-mount/10-stack-premount.sh
	default_images crypt dm lvm mdraid -- "$@"
	echo "images ready in $(boot_elapsed "$t0")s"
	rm -rf tools && mkdir tools && cat > tools/run <<'EOF2' || atf_fail "cannot write tools/run"
#!/bin/sh
if [ -f /run/initdev-test.sysd ]; then cat /run/initdev-test.sysd; else echo SYSD-NOREPORT; fi
EOF2
	chmod 0755 tools/run
	boot_make_ext4 tools.img 8 tools "" stacktools || atf_fail "cannot make the report disk"
	STACKED_EXTRA_DISK=$PWD/tools.img
	export STACKED_EXTRA_DISK
	# stacked_boot's command line: systemd's rd.luks.key form; rw, as the
	# root's init mounts the report disk at /tools, made there
	STACKED_SYSTEMD=1
	BOOT_DRACUT_APPEND="rw rd.emergency=poweroff $BOOT_DRACUT_APPEND"
}

# stk_boot NAME SCENARIO IMAGE: boot SCENARIO's disks and the report disk
# with IMAGE into NAME.log (stacked_boot, as stk_setup set it up); fail with the log's tail unless the root was reached, the hooks reported
# and stacked_check's checks pass.
stk_boot() {
	name=$1 sc=$2 img=$3
	if ! stacked_boot "$sc" "$DISKS" "$img" "$name.log"; then
		boot_log_tail "$name.log"
		atf_fail "$name: the guest did not reach the root (see the log above)"
	fi
	up=$(boot_result_uptime "$name.log") || { boot_log_tail "$name.log"; atf_fail "$name: no 'BOOT-RESULT ok' line"; }
	echo "$name: root reached at guest uptime ${up}s, wall $(cat "$name.log.wall")s"
	if [ -n "$(log_lines SYSD-NOREPORT "$name.log")" ] || [ -z "$(log_lines SYSD-EXE "$name.log")" ]; then
		boot_log_tail "$name.log"
		atf_fail "$name: the pre-pivot hooks' report is missing"
	fi
	echo "$name: udevd's main process: $(log_lines SYSD-EXE "$name.log"); failed units: $(log_lines SYSD-FAILED "$name.log")"
	echo "$name: command line: $(tr -d '\r' < "$name.log" | grep -o 'Command line: .*' | head -n 1)"
	echo "$name: links:"
	stacked_links "$name.log" | sed 's/^/  /'
	# /dev/log is journald's socket link in a systemd initrd. The md
	# array's name: systemd sets the hostname "localhost", which is not the
	# array's home host "(none)" (the tool guest's), so mdadm names it in
	# full (md/_none_:mdroot) where the other flow says md/mdroot.
	mdl="md/_none_:mdroot -> /dev/md127"
	stacked_problems "$sc" "$name.log" |
		grep -vFx -e 'link outside /dev: log -> /run/systemd/journal/dev-log' \
			-e 'no link md/mdroot -> /dev/md127' \
			-e 'not there before the root was mounted: md/mdroot -> /dev/md127' > "$name.log.problems"
	if [ "$sc" = md-both ]; then
		stacked_has_link "$name.log.links" "$mdl" || echo "no link $mdl" >> "$name.log.problems"
		stacked_lines STACK-PREMOUNT "$name.log" | grep -Fqx -- "$mdl" ||
			echo "not there before the root was mounted: $mdl" >> "$name.log.problems"
	fi
	if [ -s "$name.log.problems" ]; then
		boot_log_tail "$name.log"
		atf_fail "$name: $(tr '\n' ';' < "$name.log.problems")"
	fi
}

# stk_units LOG: "UNIT ACTIVE SUB" of every device unit PID 1 knows,
# sorted, names made comparable between boots: a by-diskseq unit naming
# its device's own number says DISKSEQ (the numbers follow the order the
# disks were probed in), and a virtio disk's kernel name (vdb) is written
# virtio-SERIAL (which disk becomes vdb varies as in stacked_links).
stk_units() {
	{
		log_lines SYSD-DISKSEQ "$1" | sed 's/^/SEQ /'
		log_lines STACK-LINK "$1" | sed 's/^/LINK /'
		log_lines SYSD-UNIT "$1" | sed 's/^/UNIT /'
	} | awk '
		$1 == "SEQ" { seq[$2] = $4; next }
		$1 == "LINK" && $2 ~ /^disk\/by-id\/virtio-/ && $4 ~ /^\/dev\/vd[a-z]+$/ {
			s = $2; sub(/^disk\/by-id\//, "", s)
			k = $4; sub(/^\/dev\//, "", k); ser[k] = s
			next
		}
		$1 == "UNIT" { n++; unit[n] = $2; state[n] = $3 " " $4; sys[n] = $5 }
		END {
			for (i = 1; i <= n; i++) {
				u = unit[i]; k = sys[i]; sub(/.*\//, "", k)
				p = "dev-disk-by\\x2ddiskseq-" seq[k] ".device"
				if ((k in seq) && u == p) u = "dev-disk-by\\x2ddiskseq-DISKSEQ.device"
				if (k in ser) gsub(k, ser[k], u)
				print u, state[i]
			}
		}' | LC_ALL=C sort
}

# stk_db LOG: the dm and md devices' udev properties before the pivot,
# "KNAME KEY=VALUE" sorted, but those that tell only which event came last
# or when (as stacked_db leaves out) and the disk sequence number.
stk_db() {
	log_lines SYSD-STKDB "$1" | grep -E '^[^ ]+ (E:|none$)' |
		grep -Ev '^[^ ]+ E:(DM_OPEN|DM_ACTIVATION|USEC_INITIALIZED|DISKSEQ)=' | LC_ALL=C sort
}

# stk_unit_esc FSUUID: the device unit of /dev/disk/by-uuid/FSUUID
stk_unit_esc() { printf '%s\n' "dev-disk-by\\x2duuid-$(echo "$1" | sed 's/-/\\x2d/g').device"; }

# stk_compare SCENARIO STOCK_LOG INITDEV_LOG: initdev's boot against
# stock's (also run on edited logs to see each assertion fail).
stk_compare() {
	sc=$1
	exe=$(log_lines SYSD-EXE "$3")
	[ "$exe" = /usr/sbin/initdev ] ||
		atf_fail "initdev image: systemd-udevd.service's main process is '$exe', not /usr/sbin/initdev"
	case $(log_lines SYSD-EXE "$2") in
	*initdev* | "") atf_fail "stock image: udevd's main process is '$(log_lines SYSD-EXE "$2")'" ;;
	esac
	[ "$(log_lines SYSD-FAILED "$3")" = "$(log_lines SYSD-FAILED "$2")" ] ||
		atf_fail "failed units: stock '$(log_lines SYSD-FAILED "$2")', initdev '$(log_lines SYSD-FAILED "$3")'"
	stacked_compare_links "$2" "$3" ||
		atf_fail "$sc: the initdev image's links differ from the stock image's (above)"
	echo "links: $(wc -l < "$2.links") in the stock boot, all in initdev's with the same targets"
	stacked_compare_db "$2" "$3" ||
		atf_fail "$sc: the udev database the root finds differs from the stock image's (above)"
	echo "udev database after the pivot: $(wc -l < "$2.db") lines, the same"
	stk_units "$2" > units.stock
	stk_units "$3" > units.initdev
	# the root's filesystem and each stacked device, plugged in stock's
	case $sc in
	lvm-luks) want="$(stk_unit_esc "$STACKED_LL_FS") dev-dm\\x2d0.device dev-dm\\x2d1.device" ;;
	md-both) want="$(stk_unit_esc "$STACKED_MD_FS") dev-md127.device" ;;
	esac
	for u in $want; do
		grep -Fxq "$u active plugged" units.stock ||
			atf_fail "stock image: $u is not plugged: $(cat units.stock)"
	done
	if ! diff -u units.stock units.initdev; then
		atf_fail "$sc: the device units differ: '-' stock, '+' initdev"
	fi
	echo "device units: $(wc -l < units.stock) ($(log_lines SYSD-UNIT "$2" | grep -Ec '/block/(dm-[0-9]+|md[0-9]+)$') of the dm and md devices), same states"
	same_listing tags sysd_tags "$2" "$3" "/run/udev/tags/systemd entries"
	same_listing db stk_db "$2" "$3" "dm and md devices' udev properties before the pivot"
	if [ "$sc" = lvm-luks ]; then
		cu="systemd-cryptsetup@luks\\x2d$(echo "$STACKED_LL_UUID" | sed 's/-/\\x2d/g').service"
		for l in "$2" "$3"; do
			log_lines SYSD-SERVICE "$l" | grep -Fxq "$cu active exited" ||
				atf_fail "$l: $cu is not active: $(log_lines SYSD-SERVICE "$l" | grep -F cryptsetup)"
		done
		echo "$cu active in both"
	fi
}

# stk_case SCENARIO CASE
stk_case() {
	boot_selected "$2" ""
	if [ -n "${SYSD_LOGS:-}" ]; then
		# while developing: only the comparison of two earlier boots' logs
		. "$(atf_get_srcdir)/lib.sh"
		stk_compare "$1" "$SYSD_LOGS/stock.log" "$SYSD_LOGS/initdev.log"
		return
	fi
	stk_setup
	stk_boot stock "$1" "$STOCK_INITRD"
	stk_boot initdev "$1" "$INITRD"
	stk_compare "$1" stock.log initdev.log
}

atf_test_case lvm_luks
lvm_luks_head() {
	atf_set descr "dracut's default image (systemd initrd), LVM on LUKS2 with the key file in the image (systemd-cryptsetup@, rd.luks.key=, rd.lvm.lv=): initdev's boot against stock's: links, the dm devices' units, tags and properties, the cryptsetup unit active"
	initdev_head "bash" 1500
}
lvm_luks_body() { stk_case lvm-luks lvm_luks; }

atf_test_case md_raid1
md_raid1_head() {
	atf_set descr "dracut's default image (systemd initrd), md RAID1 root (rd.md.uuid=): initdev's boot against stock's: links, md127's units, tags and properties"
	initdev_head "bash" 1500
}
md_raid1_body() { stk_case md-both md_raid1; }

atf_init_test_cases() {
	atf_add_test_case default_image
	atf_add_test_case lvm_luks
	atf_add_test_case md_raid1
}
