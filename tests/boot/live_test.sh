#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# dracut's dmsquash-live module with initdev, under QEMU/TCG, next to the
# stock image (issue 22 item 3). A live ISO as dracut 059 boots it: ISO
# 9660 holding LiveOS/squashfs.img, which holds LiveOS/rootfs.img (ext4
# with the report-printing root tree), made on the host with file-only
# tools (mkfs.ext4 -d, mksquashfs, xorriso). udev's 60-cdrom_id.rules runs
# `cdrom_id --lock-media $devnode` on every CD drive (ID_CDROM*,
# ID_CDROM_MEDIA*, the tray lock) and names /dev/cdrom; initdev runs the
# same rules file with its own cdrom_id (src/rules/cdrom-id.c), udev's
# helper stays out of the image. dmsquash-live's pre-udev hook writes
# 99-live-squash.rules for the by-label link root=live:CDLABEL= becomes,
# and /sbin/dmsquash-live-root mounts the ISO and sets up /dev/mapper/live-rw.
#
# Scenarios (the ISOs are made once and cached):
#   ide      root=live:CDLABEL=initdevlive rd.live.image, QEMU -cdrom
#            (an ATAPI drive on the PIIX IDE controller: ide-cd)
#   scsi     the same ISO in a scsi-cd drive on virtio-scsi
#   hostile  bad input: an ISO whose volume label is 32 bytes of
#            slashes, "..", a space and a newline; root=live:/dev/sr0
#            (no command line can name that label): the by-label link
#            is escaped as udev escapes it, nothing outside /dev and
#            /run, the root is reached as with stock
#
# Every boot prints, from a pre-pivot hook in both images, each CD
# drive's database entry (LIVE-DB: its S: but by-diskseq, L: and
# E:ID_CDROM*, ID_FS_* lines) before dracut cleans the database; the root's init reports the
# root and the links (stacked-lib.sh's STACK-* lines). No case joins the
# ci set (CI's time): they run with STACKED_SET=all (the default; the
# kyua/atf variable stacked_set). While developing:
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     BOOT_CACHE=/var/tmp/live atf-sh SRC/tests/boot/live_test.sh -s SRC/tests/boot initdev_ide

BOOT_TIMEOUT=300
LIVE_CI_CASES=""
LIVE_SCENARIOS="ide scsi hostile"
# 90dmsquash-live pulls dm, img-lib, overlayfs and rootfs-block; its
# installkernel brings squashfs, loop and iso9660
LIVE_MODULES="base rootfs-block dmsquash-live"
LIVE_DRIVERS="ata_piix sr_mod virtio_pci virtio_scsi ext4 dm_snapshot"
LIVE_LABEL=initdevlive
# 32 bytes (the most an ISO 9660 volume identifier holds): slashes, "..",
# a space, a newline, padded with dots
LIVE_HOSTILE_LABEL='../../x y
z.....................'
LIVE_HOSTILE_LABEL_ENC='..\x2f..\x2fx\x20y\x0az.....................'
# the ISOs' volume dates, hence their UUIDs (blkid's iso9660 UUID)
LIVE_DATE=2026120512000000
LIVE_UUID=2026-12-05-12-00-00-00
# LiveOS/rootfs.img's filesystem
LIVE_ROOT_UUID=1f0e0000-0000-4000-8000-000000000001

# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

live_selected() { boot_selected "$1" "$LIVE_CI_CASES"; }

# live_isos CACHE: build or reuse the two ISOs (live.iso, hostile.iso);
# prints their directory. Keyed by the root tree and the labels.
live_isos() (
	cache=$1
	work=$(mktemp -d "$cache/.live-inputs.XXXXXX") || return 1
	trap 'rm -rf "$work"' EXIT
	stacked_root_tree "$work/root" || return 1
	key=$( {
		(cd "$work/root" && find . -type f | LC_ALL=C sort | xargs sha256sum)
		printf '%s\n' "$LIVE_LABEL" "$LIVE_HOSTILE_LABEL" "$LIVE_DATE" "$LIVE_ROOT_UUID"
	} | sha256sum | cut -c1-16)
	dir=$cache/live-isos-$key
	if [ ! -s "$dir/hostile.iso" ]; then
		mkdir -p "$work/sq/LiveOS" "$work/iso/LiveOS" "$work/out" || return 1
		mkfs.ext4 -q -F -d "$work/root" -L liveroot -U "$LIVE_ROOT_UUID" "$work/sq/LiveOS/rootfs.img" 32M > /dev/null &&
			mksquashfs "$work/sq" "$work/iso/LiveOS/squashfs.img" -quiet -noappend \
				-no-progress > /dev/null || return 1
		for iso in live hostile; do
			label=$LIVE_LABEL
			[ $iso = hostile ] && label=$LIVE_HOSTILE_LABEL
			xorriso -as mkisofs -quiet -V "$label" --modification-date="$LIVE_DATE" \
				-o "$work/out/$iso.iso" "$work/iso" 2> "$work/xorriso.log" ||
				{ cat "$work/xorriso.log" >&2; return 1; }
		done
		rm -rf "$dir" && mv "$work/out" "$dir" || return 1
	fi
	echo "$dir"
)

# live_db_hook: a pre-pivot hook (test instrumentation, both images): each
# CD drive's database entry before dracut's cleanup, "LIVE-DB srN LINE"
# for its S:, L: and E:ID_CDROM*, E:ID_FS_* lines ("LIVE-DB srN none"
# without an entry); with initdev its rules counters.
live_db_hook() {
	cat <<'EOF'
# live boot test: the CD drives' udev database entries before the cleanup
for _b in /sys/class/block/sr*; do
	[ -f "$_b/dev" ] || continue
	read -r _f < "$_b/dev"
	_f=/run/udev/data/b$_f
	if [ -f "$_f" ]; then
		while IFS= read -r _l; do
			case $_l in
			S:disk/by-diskseq/*) ;; # numbers differ between boots
			S:* | L:* | E:ID_CDROM* | E:ID_FS_* | E:SYSTEMD_READY=* | E:SYSTEMD_MOUNT_DEVICE_BOUND=*)
				echo "LIVE-DB ${_b##*/} $_l" ;;
			esac
		done < "$_f"
	else
		echo "LIVE-DB ${_b##*/} none"
	fi
done
if command -v initdev > /dev/null; then
	initdev status 2> /dev/null | while IFS= read -r _l; do
		case $_l in "  runs: "* | "  run_failures: "*) echo "LIVE-RULES ${_l#  }" ;; esac
	done
fi
unset _b _f _l
EOF
}

# live_image CACHE stock|initdev: the image (LIVE_MODULES, plus initdev for
# "initdev"), with the database hook; prints its path. KVER is set.
live_image() (
	cache=$1 kind=$2
	hook=$cache/live-db-hook-$(live_db_hook | sha256sum | cut -c1-16).sh
	live_db_hook > "$hook.tmp" && mv "$hook.tmp" "$hook" || return 1
	base=$(boot_cached_dracut_tree "$cache") || return 1
	set -- --include "$hook" /lib/dracut/hooks/pre-pivot/90-live-db.sh
	case $kind in
	stock) boot_cached_initramfs "$cache" "$base" "$KVER" "$LIVE_MODULES" "$LIVE_DRIVERS" "$@" ;;
	initdev)
		itree=$(boot_initdev_tree "$cache" "$base") || return 1
		INITDEV_BINARY=$itree/initdev-test/initdev
		export INITDEV_BINARY
		boot_cached_initramfs "$cache" "$itree" "$KVER" "$LIVE_MODULES" "$LIVE_DRIVERS" \
			--add initdev "$@" --include "$itree/initdev-test/status-hook.sh" \
			/lib/dracut/hooks/pre-pivot/98-initdev-test-status.sh
		;;
	*) echo "live_image: unknown kind $kind" >&2; return 1 ;;
	esac
)

# live_append SCENARIO: its kernel command line words.
live_append() {
	case $1 in
	ide | scsi) echo "root=live:CDLABEL=$LIVE_LABEL rd.live.image" ;;
	hostile) echo "root=live:/dev/sr0 rd.live.image" ;;
	*) return 1 ;;
	esac
}

# live_boot SCENARIO ISODIR IMAGE LOG: boot SCENARIO's ISO (read-only);
# 0 if the root's init reported.
live_boot() (
	sc=$1 dir=$2 img=$3 log=$4
	append="$(live_append "$sc") $BOOT_DRACUT_APPEND" || return 1
	iso=$dir/live.iso
	[ "$sc" = hostile ] && iso=$dir/hostile.iso
	case $sc in
	scsi) set -- -device virtio-scsi-pci,id=scsi0 \
		-drive "if=none,id=cd0,file=$iso,format=raw,media=cdrom,readonly=on" \
		-device scsi-cd,bus=scsi0.0,drive=cd0 ;;
	*) set -- -drive "if=ide,index=1,file=$iso,format=raw,media=cdrom,readonly=on" ;;
	esac
	boot_qemu "$log" "$BOOT_TIMEOUT" "$KERNEL" "$img" "$append" "$@"
)

live_head() {
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.ext4 mksquashfs xorriso cpio timeout sha256sum awk"
	atf_set timeout 900
}

# live_setup: the harness, the shared cache, the ISOs (ISOS), the stock
# image (STOCK_IMG).
live_setup() {
	harness_shared_cache
	harness_setup
	[ -d /usr/lib/dracut/modules.d/90dmsquash-live ] ||
		atf_skip "dracut's dmsquash-live module is not installed (Debian: dracut-live)"
	# shellcheck source=tests/boot/stacked-lib.sh
	. "$(atf_get_srcdir)/stacked-lib.sh"
	ISOS=$(live_isos "$cache") || atf_fail "could not make the live ISOs"
	STOCK_IMG=$(live_image "$cache" stock) || atf_fail "dracut could not build the stock image"
	grep -q 'Including module: dmsquash-live ' "$STOCK_IMG.log" ||
		atf_fail "dracut left its dmsquash-live module out of the stock image"
	echo "live: ISOs in $ISOS, images ready in $(boot_elapsed "$t0")s"
}

# live_stock_log SCENARIO: where the stock boot of SCENARIO keeps its log.
live_stock_log() {
	key=$(printf '%s\n' "$STOCK_IMG" "$ISOS" "$(live_append "$1")" | sha256sum | cut -c1-16)
	echo "$cache/stock-live-$1-$key.log"
}

# live_links LOG: stacked_links's listing, with the target of the
# rootfs.img filesystem's names (by-uuid, by-label liveroot) written
# LIVE-BASE when it is the loop device dmsquash-live-root attached
# rootfs.img to or live-base, the dm linear map over that loop device:
# both carry the filesystem, and on that tie udev gives the name to the
# device whose event came last (live-base) while initdev's link table
# keeps it with the first claimant (the loop device; handlers/disk-links.h).
live_links() {
	stacked_links "$1" | awk -v u="disk/by-uuid/$LIVE_ROOT_UUID" -v l="disk/by-label/liveroot" '
		{ line[NR] = $0 }
		$1 == "live-base" || $1 == "mapper/live-base" { base[$3] = 1 }
		END {
			for (i = 1; i <= NR; i++) {
				split(line[i], f, " ")
				if ((f[1] == u || f[1] == l) && (f[3] in base)) line[i] = f[1] " -> LIVE-BASE"
				print line[i]
			}
		}' | LC_ALL=C sort
}

# live_problems SCENARIO LOG: what is wrong with a boot, one problem a line.
live_problems() (
	sc=$1 log=$2
	root=$(stacked_lines STACK-ROOT "$log")
	case $root in *" dm-"*" ext4 /dev/mapper/live-rw") ;; *) echo "root is not live-rw: '$root'" ;; esac
	live_links "$log" > "$log.llinks"
	label=$LIVE_LABEL
	[ "$sc" = hostile ] && label=$LIVE_HOSTILE_LABEL_ENC
	for w in "cdrom -> /dev/sr0" "disk/by-label/$label -> /dev/sr0" \
		"disk/by-uuid/$LIVE_UUID -> /dev/sr0"; do
		grep -Fqx -- "$w" "$log.llinks" || echo "no link $w"
	done
	grep -Eq '^mapper/live-rw -> /dev/dm-[0-9]+$' "$log.llinks" || echo "no link mapper/live-rw"
	grep -Fqx "disk/by-uuid/$LIVE_ROOT_UUID -> LIVE-BASE" "$log.llinks" ||
		echo "no link by-uuid/$LIVE_ROOT_UUID to the loop device or live-base"
	# (systemd's journal makes /dev/log in the systemd initrd)
	stacked_lines STACK-LINK "$log" | grep -v -e ' -> /dev/' -e '^log -> /run/systemd/journal/dev-log$' |
		sed 's/^/link outside \/dev: /'
	# a label is one name below by-label: no directory, no "." or ".."
	stacked_lines STACK-LINK "$log" | awk '$1 ~ /^disk\/by-label\// {
		n = substr($1, 15); if (n ~ /\// || n == "." || n == "..") print "by-label name not one component: " $1 }'
	stacked_lines LIVE-DB "$log" > "$log.ldb"
	for w in "sr0 E:ID_CDROM=1" "sr0 E:ID_CDROM_MEDIA=1" "sr0 E:ID_CDROM_MEDIA_TRACK_COUNT_DATA=1" \
		"sr0 E:ID_FS_TYPE=iso9660" "sr0 L:-100" "sr0 S:cdrom"; do
		grep -Fqx -- "$w" "$log.ldb" || echo "sr0: no database line $w"
	done
)

# live_boot_checked SCENARIO IMAGE LOG: boot; fail unless the root was
# reached and live_problems finds nothing.
live_boot_checked() {
	live_boot "$1" "$ISOS" "$2" "$3" ||
		{ boot_log_tail "$3"; atf_fail "$1: the guest did not reach BOOT-END (log above)"; }
	echo "$1: QEMU ended after $(cat "$3.wall")s; root's init at guest uptime $(boot_result_uptime "$3")s; links:"
	live_links "$3" | sed 's/^/  /'
	echo "$1: database:"
	stacked_lines LIVE-DB "$3" | sed 's/^/  /'
	live_problems "$1" "$3" > "$3.problems"
	[ -s "$3.problems" ] && { boot_log_tail "$3"; atf_fail "$1: $(tr '\n' ';' < "$3.problems")"; }
	return 0
}

# stock_case SCENARIO
stock_case() {
	live_selected "stock_$1"
	live_setup
	live_boot_checked "$1" "$STOCK_IMG" boot.log
	tr -d '\r' < boot.log | grep -q '^Starting systemd-udevd' ||
		atf_fail "systemd-udevd did not start in the stock image"
	log=$(live_stock_log "$1")
	cp boot.log "$log.tmp" && mv "$log.tmp" "$log"
}

# initdev_case SCENARIO: the initdev image boots SCENARIO as the stock one
# does: the same links, the same database lines of the CD drive.
initdev_case() {
	live_selected "initdev_$1"
	live_setup
	initdev_locate
	if ! INITDEV_IMG=$(live_image "$cache" initdev 2> build.err); then
		cat build.err
		atf_fail "dracut could not build the initdev image with dmsquash-live"
	fi
	# udev's helper stays out; its rules file is in, run by initdev
	cpio -it --quiet < "$INITDEV_IMG" > image.list 2> /dev/null
	! grep -E '(^|/)cdrom_id$' image.list || atf_fail "udev's cdrom_id is in the initdev image"
	grep -q 'udev/rules.d/60-cdrom_id.rules$' image.list ||
		atf_fail "60-cdrom_id.rules is not in the initdev image"
	stock=$(live_stock_log "$1")
	if [ ! -s "$stock" ]; then
		echo "$1: no stock boot log in the cache, booting the stock image first"
		live_boot_checked "$1" "$STOCK_IMG" stock.log
		stock=stock.log
	fi
	live_boot_checked "$1" "$INITDEV_IMG" boot.log
	# scsi: the drive's by-id/scsi-* name (udev's scsi_id reads VPD page
	# 0x83 over SG_IO) is set aside here and checked last (a known gap)
	gap='^(sr[0-9]+ S:)?disk/by-id/scsi-'
	[ "$1" = scsi ] || gap='^$'
	live_links "$stock" | grep -Ev "$gap" > stock.links && live_links boot.log > initdev.links
	diff -u stock.links initdev.links || echo "(links: the differences above; what stock has must be here)"
	LC_ALL=C comm -23 stock.links initdev.links > missing
	[ ! -s missing ] || atf_fail "$1: links of the stock boot missing or different: $(tr '\n' ';' < missing)"
	stacked_lines LIVE-DB "$stock" | grep -Ev "$gap" | LC_ALL=C sort > stock.db
	stacked_lines LIVE-DB boot.log | grep -Ev "$gap" | LC_ALL=C sort > initdev.db
	diff -u stock.db initdev.db || atf_fail "$1: the CD drive's database lines differ from stock's (above)"
	tr -d '\r' < boot.log | grep 'not supported by initdev' > unsupported
	[ ! -s unsupported ] || atf_fail "$1: $(cat unsupported)"
	stacked_lines LIVE-RULES boot.log > rules.counts
	echo "$1: initdev's rules: $(tr '\n' ' ' < rules.counts)"
	grep -qx 'run_failures: 0' rules.counts ||
		atf_fail "$1: RUN programs failed: $(tr '\n' ' ' < rules.counts)"
	[ "$1" = scsi ] || return 0
	live_links "$stock" | grep -E "$gap" > stock.gap
	live_links boot.log | grep -E "$gap" > initdev.gap
	cmp -s stock.gap initdev.gap && return 0
	atf_expect_fail "initdev's native by-id names read VPD pages from sysfs (names/disk-id.c); for QEMU's scsi-cd drive (sr0) they give no serial, udev's scsi_id (SG_IO INQUIRY) does"
	atf_fail "$1: stock has $(tr '\n' ';' < stock.gap) initdev $(tr '\n' ';' < initdev.gap)"
}

# systemd_image CACHE stock|initdev: dracut's default image (a systemd
# initrd) plus dmsquash-live, with the database hook (its output sent to
# the console); initdev's with --add initdev --omit what 90initdev refuses
# that the stock build includes. Prints its path.
systemd_image() (
	cache=$1 kind=$2
	text=$(printf '{\n%s\n} > /dev/console 2>&1\n' "$(live_db_hook)")
	hook=$cache/live-db-console-hook-$(printf '%s\n' "$text" | sha256sum | cut -c1-16).sh
	printf '%s\n' "$text" > "$hook.tmp" && mv "$hook.tmp" "$hook" || return 1
	base=$(boot_cached_dracut_tree "$cache") || return 1
	set -- --add dmsquash-live --add-drivers "$LIVE_DRIVERS" \
		--include "$hook" /lib/dracut/hooks/pre-pivot/90-live-db.sh
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

atf_test_case systemd_ide
systemd_ide_head() {
	atf_set descr "dracut's default image (a systemd initrd) with dmsquash-live, stock and with --add initdev: the live ISO on an IDE CD drive, live-rw is the root, the same links and CD database lines"
	live_head
}
systemd_ide_body() {
	live_selected systemd_ide
	harness_shared_cache
	harness_setup
	initdev_locate
	[ -x /lib/systemd/systemd ] || atf_skip "systemd is not installed: dracut's default image is not a systemd initrd"
	[ -d /usr/lib/dracut/modules.d/90dmsquash-live ] ||
		atf_skip "dracut's dmsquash-live module is not installed (Debian: dracut-live)"
	# shellcheck source=tests/boot/stacked-lib.sh
	. "$(atf_get_srcdir)/stacked-lib.sh"
	ISOS=$(live_isos "$cache") || atf_fail "could not make the live ISOs"
	STOCK_IMG=$(systemd_image "$cache" stock) || atf_fail "dracut could not build the stock default image"
	INITDEV_IMG=$(systemd_image "$cache" initdev) || atf_fail "dracut could not build the initdev default image"
	for img in "$STOCK_IMG" "$INITDEV_IMG"; do
		grep -q 'Including module: systemd-initrd ' "$img.log" || atf_fail "$img is not a systemd initrd"
		grep -q 'Including module: dmsquash-live ' "$img.log" || atf_fail "$img has no dmsquash-live module"
	done
	live_boot_checked ide "$STOCK_IMG" stock.log
	live_boot_checked ide "$INITDEV_IMG" boot.log
	live_links stock.log > stock.links && live_links boot.log > initdev.links
	diff -u stock.links initdev.links || echo "(links: the differences above; what stock has must be here)"
	LC_ALL=C comm -23 stock.links initdev.links > missing
	[ ! -s missing ] || atf_fail "links of the stock boot missing or different: $(tr '\n' ';' < missing)"
	stacked_lines LIVE-DB stock.log | LC_ALL=C sort > stock.db
	stacked_lines LIVE-DB boot.log | LC_ALL=C sort > initdev.db
	diff -u stock.db initdev.db || atf_fail "the CD drives' database lines differ from stock's (above)"
}

# live_descr SCENARIO: what it boots.
live_descr() {
	case $1 in
	ide) echo "live ISO on an IDE CD drive (-cdrom), root=live:CDLABEL=: live-rw is the root, the CD's ID_CDROM* database lines and links" ;;
	scsi) echo "live ISO on a scsi-cd drive (virtio-scsi), root=live:CDLABEL=: live-rw is the root, the CD's ID_CDROM* database lines and links" ;;
	hostile) echo "bad input: an ISO labelled with slashes, '..', a space, a newline (32 bytes), root=live:/dev/sr0: escaped by-label link, nothing outside /dev" ;;
	esac
}

for _sc in $LIVE_SCENARIOS; do
	eval "stock_${_sc}_head() { atf_set descr \"stock image: $(live_descr "$_sc")\"; live_head; }
stock_${_sc}_body() { stock_case $_sc; }
initdev_${_sc}_head() { atf_set descr \"initdev image: $(live_descr "$_sc"); as the stock image\"; live_head; }
initdev_${_sc}_body() { initdev_case $_sc; }"
done
unset _sc

atf_init_test_cases() {
	for sc in $LIVE_SCENARIOS; do
		atf_add_test_case "stock_$sc"
		atf_add_test_case "initdev_$sc"
	done
	atf_add_test_case systemd_ide
}
