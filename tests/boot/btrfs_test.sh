#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# dracut's btrfs module with initdev, under QEMU/TCG, next to the stock
# image (issue 22 item 2). dracut 059's 90btrfs installs udev's
# 64-btrfs.rules: every btrfs member runs the `btrfs ready $devnode`
# builtin (BTRFS_IOC_DEVICES_READY on /dev/btrfs-control: the kernel
# registers the member and says whether every device of its filesystem is
# there, ID_BTRFS_READY), a member that is not ready gets SYSTEMD_READY=0,
# and the member that completes a filesystem runs `udevadm trigger -s
# block -p ID_BTRFS_READY=0`, so the others are looked at again. In the
# non-systemd flow dracut waits for root=UUID='s by-uuid link, then mounts.
#
# Scenarios (disks made once in the tool guest, toolguest-lib.sh, cached):
#   single    a btrfs root on one disk, root=UUID=
#   raid      data and metadata RAID1 on two disks: both members carry
#             the same filesystem UUID and label; udev points by-uuid and
#             by-label at one of them (the last member whose event set
#             the link: equal priorities), so those two links are
#             compared as "a member", the rest exactly
#   missing   the RAID1 with its second disk withheld: the link appears,
#             the mount fails (the kernel wants every device without
#             -o degraded); the outcome is compared with stock's
#   degraded  the same with rootflags=degraded: the root mounts degraded
#   hostile   a btrfs root labelled '../../x y<newline>z' beside a btrfs
#             disk whose label is 255 bytes of "../": the links are
#             escaped as udev escapes them (the long one cut where udev's
#             blkid builtin cuts it), nothing is written outside /dev and
#             /run, the root is reached as with stock
#
# Every boot prints, from a pre-pivot hook in both images, each member's
# database entry (BTRFS-DB: ID_BTRFS_READY, SYSTEMD_READY) before dracut
# cleans the database, and the root's init reports the root and the links
# (stacked-lib.sh's STACK-* lines). No case joins the ci set (CI's time):
# they run with STACKED_SET=all (the default; the kyua/atf variable
# stacked_set). systemd_single boots the single disk with dracut's default
# image (a systemd initrd), stock and with --add initdev (~130 MB images). While developing:
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     BOOT_CACHE=/var/tmp/btr atf-sh SRC/tests/boot/btrfs_test.sh -s SRC/tests/boot initdev_raid

BOOT_TIMEOUT=150
BTRFS_CI_CASES=""
BTRFS_SCENARIOS="single raid missing degraded hostile"
# the images' modules and drivers (btrfs.ko and what it needs come with
# 90btrfs's installkernel)
BTRFS_MODULES="base rootfs-block btrfs"
BTRFS_DRIVERS="virtio_pci virtio_blk btrfs"
# fixed filesystem UUIDs (the members' device UUIDs are random, made once)
BTRFS_SINGLE_FS=b7f50000-0000-4000-8000-000000000001
BTRFS_RAID_FS=b7f50000-0000-4000-8000-000000000002
BTRFS_HOSTILE_FS=b7f50000-0000-4000-8000-000000000003
BTRFS_LONG_FS=b7f50000-0000-4000-8000-000000000004
# the hostile labels: slashes, "..", a space, a newline (mkfs.btrfs takes
# it); 85 times "../" (255 bytes, the most a btrfs label holds)
BTRFS_HOSTILE_LABEL='../../x y
z'
BTRFS_HOSTILE_LABEL_ENC='..\x2f..\x2fx\x20y\x0az'

# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

btrfs_long_label() { printf '../%.0s' $(seq 85); }

# btrfs_selected CASE: skip CASE unless the selected set holds it.
btrfs_selected() { boot_selected "$1" "$BTRFS_CI_CASES"; }

# btrfs_job: the tool-guest job making every scenario's disks (the root
# tree at /tg/root; mkfs.btrfs and btrfs copied in with -p).
btrfs_job() {
	cat <<EOF
set -eu
step() { echo "== \$* (uptime \$(cut -d' ' -f1 /proc/uptime))"; }
mk() { mkfs.btrfs -q -f "\$@"; }
modprobe btrfs
step single
mk -U $BTRFS_SINGLE_FS -L btrsingle --rootdir /tg/root "\$(tg_disk single)"
step raid1
r1=\$(tg_disk r1) r2=\$(tg_disk r2)
mk -d raid1 -m raid1 -U $BTRFS_RAID_FS -L btrraid "\$r1" "\$r2"
btrfs device scan "\$r1" "\$r2"
mkdir -p /tmp/r
mount -t btrfs "\$r1" /tmp/r
(cd /tg/root && tar cf - .) | (cd /tmp/r && tar xf -)
btrfs filesystem df /tmp/r
umount /tmp/r
step hostile
mk -U $BTRFS_HOSTILE_FS -L '$BTRFS_HOSTILE_LABEL' --rootdir /tg/root "\$(tg_disk hostile)"
mk -U $BTRFS_LONG_FS -L '$(btrfs_long_label)' "\$(tg_disk long)"
step done
blkid
btrfs filesystem show
EOF
}

# btrfs_disks CACHE: build or reuse the disks; prints their directory.
btrfs_disks() (
	cache=$1
	work=$(mktemp -d "$cache/.btrfs-inputs.XXXXXX") || return 1
	trap 'rm -rf "$work"' EXIT
	stacked_root_tree "$work/root" && btrfs_job > "$work/job.sh" || return 1
	tg_build_disks "$cache" btrfs "$work/job.sh" -f "$work/root=/tg/root" \
		-p "$(command -v mkfs.btrfs)=/usr/sbin/mkfs.btrfs" \
		-p "$(command -v btrfs)=/usr/sbin/btrfs" \
		single:128 r1:128 r2:128 hostile:128 long:128
)

# btrfs_db_hook: a pre-pivot hook (test instrumentation, both images):
# each virtio disk's database entry, its BTRFS lines, before dracut's
# cleanup: "BTRFS-DB SERIAL LINE" (E:ID_BTRFS_READY, E:SYSTEMD_READY,
# E:ID_FS_TYPE, E:ID_FS_LABEL, E:ID_FS_LABEL_ENC, E:ID_FS_UUID,
# E:ID_FS_UUID_ENC); "BTRFS-DB SERIAL none" without an entry; with initdev
# its rules counters "BTRFS-RULES runs: N", "BTRFS-RULES run_failures: N".
btrfs_db_hook() {
	cat <<'EOF'
# btrfs boot test: the members' udev database entries before the cleanup
# (the image has no grep or sed)
for _b in /sys/class/block/vd*; do
	[ -f "$_b/serial" ] || continue
	read -r _s < "$_b/serial"
	read -r _f < "$_b/dev"
	_f=/run/udev/data/b$_f
	if [ -f "$_f" ]; then
		while IFS= read -r _l; do
			case $_l in
			E:ID_BTRFS_READY=* | E:SYSTEMD_READY=* | E:ID_FS_TYPE=* | E:ID_FS_LABEL*=* | E:ID_FS_UUID=* | E:ID_FS_UUID_ENC=*)
				echo "BTRFS-DB $_s $_l" ;;
			esac
		done < "$_f"
	else
		echo "BTRFS-DB $_s none"
	fi
done
# initdev's count of RUN programs that failed (64-btrfs.rules' udevadm trigger among them)
if command -v initdev > /dev/null; then
	initdev status 2> /dev/null | while IFS= read -r _l; do
		case $_l in "  runs: "* | "  run_failures: "*) echo "BTRFS-RULES ${_l#  }" ;; esac
	done
fi
unset _b _s _f _l
EOF
}

# btrfs_image CACHE stock|initdev: the image (BTRFS_MODULES, plus initdev
# for "initdev"), with the database hook; prints its path. KVER is set.
btrfs_image() (
	cache=$1 kind=$2
	# (named by its text: the image's cache key holds the path)
	hook=$cache/btrfs-db-hook-$(btrfs_db_hook | sha256sum | cut -c1-16).sh
	btrfs_db_hook > "$hook.tmp" && mv "$hook.tmp" "$hook" || return 1
	base=$(boot_cached_dracut_tree "$cache") || return 1
	set -- --include "$hook" /lib/dracut/hooks/pre-pivot/90-btrfs-db.sh
	case $kind in
	stock) boot_cached_initramfs "$cache" "$base" "$KVER" "$BTRFS_MODULES" "$BTRFS_DRIVERS" "$@" ;;
	initdev)
		itree=$(boot_initdev_tree "$cache" "$base") || return 1
		INITDEV_BINARY=$itree/initdev-test/initdev
		export INITDEV_BINARY
		boot_cached_initramfs "$cache" "$itree" "$KVER" "$BTRFS_MODULES" "$BTRFS_DRIVERS" \
			--add initdev "$@" --include "$itree/initdev-test/status-hook.sh" \
			/lib/dracut/hooks/pre-pivot/98-initdev-test-status.sh
		;;
	*) echo "btrfs_image: unknown kind $kind" >&2; return 1 ;;
	esac
)

# btrfs_append SCENARIO: its kernel command line words.
btrfs_append() {
	case $1 in
	single) echo "root=UUID=$BTRFS_SINGLE_FS" ;;
	raid) echo "root=UUID=$BTRFS_RAID_FS" ;;
	missing) echo "root=UUID=$BTRFS_RAID_FS" ;;
	degraded) echo "root=UUID=$BTRFS_RAID_FS rootflags=degraded" ;;
	hostile) echo "root=UUID=$BTRFS_HOSTILE_FS" ;;
	*) return 1 ;;
	esac
}

# btrfs_disk_list SCENARIO: its disks (image NAME.img, serial NAME).
btrfs_disk_list() {
	case $1 in
	single) echo single ;;
	raid) echo r1 r2 ;;
	missing | degraded) echo r1 ;;
	hostile) echo hostile long ;;
	*) return 1 ;;
	esac
}

# btrfs_boot SCENARIO DISKDIR IMAGE LOG: boot SCENARIO's disks (snapshot:
# the cached images stay as made); 0 if the root's init reported.
btrfs_boot() (
	sc=$1 dir=$2 img=$3 log=$4
	append="$(btrfs_append "$sc") $BOOT_DRACUT_APPEND" || return 1
	# (a later rd.retry wins: the scenario's own comes last)
	case $sc in missing | degraded) append="$append rd.retry=10" ;; esac
	set --
	n=0
	for d in $(btrfs_disk_list "$sc"); do
		set -- "$@" -drive "if=none,id=btr$n,file=$dir/$d.img,format=raw,snapshot=on" \
			-device "virtio-blk-pci,drive=btr$n,serial=$d"
		n=$((n + 1))
	done
	boot_qemu "$log" "$BOOT_TIMEOUT" "$KERNEL" "$img" "$append" "$@"
)

btrfs_head() {
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.btrfs btrfs cpio timeout sha256sum awk"
	atf_set timeout 600
}

# btrfs_setup: the harness, the shared cache, the disks (DISKS), the
# stock image (STOCK_IMG).
btrfs_setup() {
	harness_shared_cache
	harness_setup
	# shellcheck source=tests/boot/toolguest-lib.sh
	. "$(atf_get_srcdir)/toolguest-lib.sh"
	# shellcheck source=tests/boot/stacked-lib.sh
	. "$(atf_get_srcdir)/stacked-lib.sh"
	DISKS=$(btrfs_disks "$cache") || atf_fail "the tool guest could not make the btrfs disks"
	STOCK_IMG=$(btrfs_image "$cache" stock) || atf_fail "dracut could not build the stock image"
	grep -q 'Including module: btrfs ' "$STOCK_IMG.log" ||
		atf_fail "dracut left its btrfs module out of the stock image"
	echo "btrfs: disks in $DISKS, images ready in $(boot_elapsed "$t0")s"
}

# btrfs_stock_log SCENARIO: where the stock boot of SCENARIO keeps its log.
btrfs_stock_log() {
	key=$(printf '%s\n' "$STOCK_IMG" "$DISKS" "$(btrfs_append "$1")" | sha256sum | cut -c1-16)
	echo "$cache/stock-btrfs-$1-$key.log"
}

# btrfs_reaches SCENARIO: 0 if SCENARIO's root is meant to be reached.
btrfs_reaches() { [ "$1" != missing ]; }

# btrfs_links LOG: stacked_links's listing, with the target of the
# links both RAID1 members claim (by-uuid, by-label: udev picks one)
# written "MEMBER" when it is one of them.
btrfs_links() {
	stacked_links "$1" | awk -v u="disk/by-uuid/$BTRFS_RAID_FS" -v l="disk/by-label/btrraid" '
		($1 == u || $1 == l) && ($3 == "/dev/virtio-r1" || $3 == "/dev/virtio-r2") { $3 = "MEMBER" }
		{ print }'
}

# btrfs_problems SCENARIO LOG: what is wrong with a boot that should reach
# the root, one problem a line.
btrfs_problems() (
	sc=$1 log=$2
	root=$(stacked_lines STACK-ROOT "$log")
	case $root in *" btrfs /dev/vd"*) ;; *) echo "root is not a btrfs from a disk: '$root'" ;; esac
	btrfs_links "$log" > "$log.blinks"
	case $sc in
	single) want="disk/by-uuid/$BTRFS_SINGLE_FS -> /dev/virtio-single
disk/by-label/btrsingle -> /dev/virtio-single" ;;
	raid) want="disk/by-uuid/$BTRFS_RAID_FS -> MEMBER
disk/by-label/btrraid -> MEMBER" ;;
	degraded) want="disk/by-uuid/$BTRFS_RAID_FS -> MEMBER
disk/by-label/btrraid -> MEMBER" ;;
	hostile) want="disk/by-uuid/$BTRFS_HOSTILE_FS -> /dev/virtio-hostile
disk/by-label/$BTRFS_HOSTILE_LABEL_ENC -> /dev/virtio-hostile
disk/by-uuid/$BTRFS_LONG_FS -> /dev/virtio-long" ;;
	esac
	printf '%s\n' "$want" | while IFS= read -r w; do
		grep -Fqx -- "$w" "$log.blinks" || echo "no link $w"
	done
	# (systemd's journal makes /dev/log in the systemd initrd)
	stacked_lines STACK-LINK "$log" | grep -v -e ' -> /dev/' -e '^log -> /run/systemd/journal/dev-log$' |
		sed 's/^/link outside \/dev: /'
	# a label is one name below by-label: no directory, no "." or ".."
	stacked_lines STACK-LINK "$log" | awk '$1 ~ /^disk\/by-label\// {
		n = substr($1, 15); if (n ~ /\// || n == "." || n == "..") print "by-label name not one component: " $1 }'
	# every member in the database, ready, none held back (SYSTEMD_READY=0);
	# degraded: its one member never is (the kernel misses the other)
	stacked_lines BTRFS-DB "$log" > "$log.bdb"
	ready=1
	[ "$sc" = degraded ] && ready=0
	for d in $(btrfs_disk_list "$sc"); do
		grep -qx "$d E:ID_BTRFS_READY=$ready" "$log.bdb" ||
			echo "$d: not ID_BTRFS_READY=$ready in the database: $(grep "^$d " "$log.bdb" | tr '\n' ' ')"
	done
	if [ $ready = 1 ]; then
		grep ' E:SYSTEMD_READY=0' "$log.bdb" | sed 's/^/held back: /'
	else
		grep -q ' E:SYSTEMD_READY=0' "$log.bdb" || echo "degraded: the member is not held back (SYSTEMD_READY=0)"
	fi
	if [ "$sc" = degraded ]; then
		tr -d '\r' < "$log" | grep -q 'allowing degraded mounts' || echo "the kernel did not mount it degraded"
	fi
)

# btrfs_boot_checked SCENARIO IMAGE LOG: boot; fail unless the root was
# reached and btrfs_problems finds nothing (or, for missing, unless the
# boot ended in dracut's failure before the timeout).
btrfs_boot_checked() {
	if btrfs_boot "$1" "$DISKS" "$2" "$3"; then
		btrfs_reaches "$1" || { boot_log_tail "$3"; atf_fail "$1: the root was reached"; }
	elif btrfs_reaches "$1"; then
		boot_log_tail "$3"
		atf_fail "$1: the guest did not reach BOOT-END (log above)"
	fi
	wall=$(cat "$3.wall")
	echo "$1: QEMU ended after ${wall}s"
	if ! btrfs_reaches "$1"; then
		awk -v w="$wall" -v t="$BOOT_TIMEOUT" 'BEGIN { exit !(w < t - 10) }' ||
			{ boot_log_tail "$3"; atf_fail "$1: QEMU ran into the ${BOOT_TIMEOUT}s timeout: a hang?"; }
		return 0
	fi
	echo "$1: root's init at guest uptime $(boot_result_uptime "$3")s; links:"
	btrfs_links "$3" | sed 's/^/  /'
	echo "$1: database:"
	stacked_lines BTRFS-DB "$3" | sed 's/^/  /'
	btrfs_problems "$1" "$3" > "$3.problems"
	[ -s "$3.problems" ] && { boot_log_tail "$3"; atf_fail "$1: $(tr '\n' ';' < "$3.problems")"; }
	return 0
}

# btrfs_failure LOG: the lines that tell how a boot that did not reach the
# root ended (dracut's warnings, the mount's error), comparable.
btrfs_failure() {
	tr -d '\r' < "$1" | sed 's/^\[ *[0-9.]*\] //' |
		grep -E '^dracut Warning: (Failed to mount|Boot has failed|Could not boot)|^mount: /sysroot' |
		LC_ALL=C sort -u
}

# stock_case SCENARIO
stock_case() {
	btrfs_selected "stock_$1"
	btrfs_setup
	btrfs_boot_checked "$1" "$STOCK_IMG" boot.log
	tr -d '\r' < boot.log | grep -q '^Starting systemd-udevd' ||
		atf_fail "systemd-udevd did not start in the stock image"
	log=$(btrfs_stock_log "$1")
	cp boot.log "$log.tmp" && mv "$log.tmp" "$log"
}

# initdev_case SCENARIO: the initdev image boots SCENARIO as the stock one
# does: the same links, the same database lines (or the same failure).
initdev_case() {
	btrfs_selected "initdev_$1"
	btrfs_setup
	initdev_locate
	if ! INITDEV_IMG=$(btrfs_image "$cache" initdev 2> build.err); then
		cat build.err
		atf_fail "dracut could not build the initdev image with its btrfs module"
	fi
	# 90btrfs (before 90initdev) copies 64-btrfs.rules' RUN program, udev's
	# udevadm: the image's udevadm must be initdev all the same
	cpio -itv --quiet < "$INITDEV_IMG" 2> /dev/null | awk '$9 ~ /bin\/udevadm$/' > udevadm.ls
	[ -s udevadm.ls ] || atf_fail "no udevadm in the initdev image"
	if grep -qv '^l.* -> .*sbin/initdev$' udevadm.ls; then
		cat udevadm.ls
		atf_fail "the initdev image's udevadm is not a link to initdev (above)"
	fi
	stock=$(btrfs_stock_log "$1")
	if [ ! -s "$stock" ]; then
		echo "$1: no stock boot log in the cache, booting the stock image first"
		btrfs_boot_checked "$1" "$STOCK_IMG" stock.log
		stock=stock.log
	fi
	btrfs_boot_checked "$1" "$INITDEV_IMG" boot.log
	if ! btrfs_reaches "$1"; then
		btrfs_failure "$stock" > stock.fail
		btrfs_failure boot.log > initdev.fail
		echo "$1: how it ended:"
		sed 's/^/  /' initdev.fail
		[ -s stock.fail ] || atf_fail "$1: the stock boot's failure lines are missing"
		diff -u stock.fail initdev.fail || atf_fail "$1: the initdev boot failed otherwise than stock's (above)"
		return 0
	fi
	btrfs_links "$stock" > stock.links && btrfs_links boot.log > initdev.links
	diff -u stock.links initdev.links || echo "(links: the differences above; what stock has must be here)"
	LC_ALL=C comm -23 stock.links initdev.links > missing
	[ ! -s missing ] || atf_fail "$1: links of the stock boot missing or different: $(tr '\n' ';' < missing)"
	stacked_lines BTRFS-DB "$stock" | LC_ALL=C sort > stock.db
	stacked_lines BTRFS-DB boot.log | LC_ALL=C sort > initdev.db
	diff -u stock.db initdev.db || atf_fail "$1: the members' database lines differ from stock's (above)"
	tr -d '\r' < boot.log | grep 'not supported by initdev' > unsupported
	[ ! -s unsupported ] || atf_fail "$1: $(cat unsupported)"
	# every RUN program (64-btrfs.rules' `udevadm trigger -s block -p
	# ID_BTRFS_READY=0` among them) succeeded
	stacked_lines BTRFS-RULES boot.log > rules.counts
	echo "$1: initdev's rules: $(tr '\n' ' ' < rules.counts)"
	grep -qx 'run_failures: 0' rules.counts ||
		atf_fail "$1: RUN programs failed: $(tr '\n' ' ' < rules.counts)"
}

# systemd_image CACHE stock|initdev: dracut's default image (no -m: a
# systemd initrd where systemd is installed), with the database hook (its
# output sent to the console: the units' output goes to the journal);
# initdev's with --add initdev --omit what 90initdev refuses that the stock
# build includes (as systemd_initrd_test). Prints its path.
systemd_image() (
	cache=$1 kind=$2
	text=$(printf '{\n%s\n} > /dev/console 2>&1\n' "$(btrfs_db_hook)")
	hook=$cache/btrfs-db-console-hook-$(printf '%s\n' "$text" | sha256sum | cut -c1-16).sh
	printf '%s\n' "$text" > "$hook.tmp" && mv "$hook.tmp" "$hook" || return 1
	base=$(boot_cached_dracut_tree "$cache") || return 1
	set -- --include "$hook" /lib/dracut/hooks/pre-pivot/90-btrfs-db.sh
	stock=$(boot_cached_initramfs "$cache" "$base" "$KVER" "" "" "$@") || return 1
	[ "$kind" = stock ] && { echo "$stock"; return 0; }
	omit=$(refused_included "$stock.log") || return 1
	omit=${omit% }
	itree=$(boot_initdev_tree "$cache" "$base") || return 1
	INITDEV_BINARY=$itree/initdev-test/initdev
	export INITDEV_BINARY
	boot_cached_initramfs "$cache" "$itree" "$KVER" "" "" --add initdev \
		${omit:+--omit "$omit"} "$@"
)

atf_test_case systemd_single
systemd_single_head() {
	atf_set descr "dracut's default image (a systemd initrd), stock and with --add initdev: the single-disk btrfs root is reached, the same links and member database lines"
	btrfs_head
}
systemd_single_body() {
	btrfs_selected systemd_single
	harness_shared_cache
	harness_setup
	initdev_locate
	[ -x /lib/systemd/systemd ] || atf_skip "systemd is not installed: dracut's default image is not a systemd initrd"
	# shellcheck source=tests/boot/toolguest-lib.sh
	. "$(atf_get_srcdir)/toolguest-lib.sh"
	# shellcheck source=tests/boot/stacked-lib.sh
	. "$(atf_get_srcdir)/stacked-lib.sh"
	DISKS=$(btrfs_disks "$cache") || atf_fail "the tool guest could not make the btrfs disks"
	STOCK_IMG=$(systemd_image "$cache" stock) || atf_fail "dracut could not build the stock default image"
	INITDEV_IMG=$(systemd_image "$cache" initdev) || atf_fail "dracut could not build the initdev default image"
	for img in "$STOCK_IMG" "$INITDEV_IMG"; do
		grep -q 'Including module: systemd-initrd ' "$img.log" || atf_fail "$img is not a systemd initrd"
		grep -q 'Including module: btrfs ' "$img.log" || atf_fail "$img has no btrfs module"
	done
	btrfs_boot_checked single "$STOCK_IMG" stock.log
	btrfs_boot_checked single "$INITDEV_IMG" boot.log
	btrfs_links stock.log > stock.links && btrfs_links boot.log > initdev.links
	diff -u stock.links initdev.links || echo "(links: the differences above; what stock has must be here)"
	LC_ALL=C comm -23 stock.links initdev.links > missing
	[ ! -s missing ] || atf_fail "links of the stock boot missing or different: $(tr '\n' ';' < missing)"
	stacked_lines BTRFS-DB stock.log | LC_ALL=C sort > stock.db
	stacked_lines BTRFS-DB boot.log | LC_ALL=C sort > initdev.db
	[ -s stock.db ] || atf_fail "the stock boot printed no database lines"
	diff -u stock.db initdev.db || atf_fail "the member's database lines differ from stock's (above)"
	stacked_lines BTRFS-RULES boot.log | grep -qx 'run_failures: 0' ||
		atf_fail "initdev's RUN failures: $(stacked_lines BTRFS-RULES boot.log | tr '\n' ' ')"
}

# btrfs_descr SCENARIO: what it boots.
btrfs_descr() {
	case $1 in
	single) echo "btrfs root on one disk, root=UUID=" ;;
	raid) echo "btrfs RAID1 root (data and metadata) on two disks: mounted once both members are registered" ;;
	missing) echo "btrfs RAID1 root with one member withheld: the mount fails and the boot ends, before the timeout" ;;
	degraded) echo "btrfs RAID1 root with one member withheld and rootflags=degraded: mounted degraded" ;;
	hostile) echo "bad input: btrfs labels with slashes, '..', a space, a newline, 255 bytes: escaped links, nothing outside /dev" ;;
	esac
}

for _sc in $BTRFS_SCENARIOS; do
	eval "stock_${_sc}_head() { atf_set descr \"stock image: $(btrfs_descr "$_sc")\"; btrfs_head; }
stock_${_sc}_body() { stock_case $_sc; }
initdev_${_sc}_head() { atf_set descr \"initdev image: $(btrfs_descr "$_sc"); as the stock image\"; btrfs_head; }
initdev_${_sc}_body() { initdev_case $_sc; }"
done
unset _sc

atf_init_test_cases() {
	for sc in $BTRFS_SCENARIOS; do
		atf_add_test_case "stock_$sc"
		atf_add_test_case "initdev_$sc"
	done
	atf_add_test_case systemd_single
}
