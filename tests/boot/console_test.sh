#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# dracut's i18n module with initdev, under QEMU/TCG: rd.vconsole.keymap= and
# rd.vconsole.font= are applied on the console as with udevd. In dracut's
# non-systemd flow 10i18n's cmdline hook writes /etc/vconsole.conf and its
# 10-console.rules (KERNEL=="tty0", RUN+="/sbin/initqueue --onetime
# --unique --name console_init_$name /lib/udev/console_init $root/$name")
# queues console_init (setfont, loadkeys, kbd_mode) when the device manager
# runs the rules on tty0's coldplug event: nothing else in the image loads
# the keymap or the font.
#
# The guest has a VGA card (-vga std, nothing displayed: -nographic) so the
# kernel's VGA text console (vgacon) is tty0 and takes console fonts; the
# serial port stays the kernel's console. The root (busybox, plus kbd's
# setfont) reads what is active on tty0:
#   the keymap: busybox dumpkmap (KDGKBENT over every table), its sha256,
#     and the plain table's keycode 21 (Y on a US keyboard, Z on a German);
#   the font: kbd's `setfont -C /dev/tty0 -O FILE` (KDFONTOP get, the
#     unicode map too), its sha256.
# The root is on a USB stick (usb-storage scans a new device after
# delay_use seconds, 3 here): console_init is an initqueue job, and
# init.sh's main loop runs its jobs only while the root is not there yet
# (check_finished breaks out first). With a root found at the first
# settle (virtio-blk) neither udevd's image nor initdev's ran it: measured,
# the stock image booted with the options had the kernel's keymap and font.
# A root that takes its time (USB, LUKS, LVM, the network) is where a
# keymap matters: the passphrase prompt.
#
# Compared: the initdev image and the stock image (udevd) booted with
# rd.vconsole.keymap=de rd.vconsole.font=LatArCyrHeb-16 must show the same
# keymap and font, keycode 21 must be z; the initdev image booted without
# the options (the kernel's keymap and font) must show keycode 21 y and a
# different keymap and font, so a boot where console_init never ran fails.
#
# Debian 12's kbd ships no keymaps or fonts (console-data does) and nothing
# ships a unimaps directory, without which 10i18n's install() puts nothing
# in the image: the builds get a kbddir (dracut's variable) holding copies
# of /usr/share's consolefonts, consoletrans and keymaps and an empty
# unimaps (console_kbddir).
#
# Debian's console-setup module (09console-setup) has the same rule for
# its micro-setupcon, which `setupcon --setup-dir` makes from the host's
# /etc/default/keyboard at build time (the keymap only: Debian's setupcon
# leaves the font out for initrd builders): console_setup_keymap boots it
# with initdev and with udevd; both must load the same keymap (and leave
# /run/console-setup/keymap_loaded), one that differs from the kernel's
# (an image without the module, the baseline).
#
# systemd_console_setup: dracut's default image (a systemd initrd), stock
# and with --add initdev: console-setup's rule queues the same job, run by
# dracut-initqueue.service, and both load the same keymap. rd.vconsole.* is
# passed too and must have the same effect in both: none on Debian 12
# (10i18n leaves the console to systemd-vconsole-setup there, which
# Debian's systemd does not ship).
#
# No case is in the ci set (STACKED_SET / stacked_set, as stacked_test):
# stacked_set=all runs them.
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     atf-sh /work/main/tests/boot/console_test.sh -s /work/main/tests/boot i18n_vconsole

DRIVERS="xhci_pci usb_storage sd_mod ext4"
ROOT_UUID=2c4e6a80-1b3d-4f5a-8c7e-9d0f1a2b3c4d
ROOT_LABEL=consoleroot
BOOT_TIMEOUT=200
CONSOLE_CI_CASES=""
VC_KEYMAP=de
VC_FONT=LatArCyrHeb-16

# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

# console_kbddir DIR: DIR as the kbd data directory 10i18n wants:
# consolefonts, consoletrans, keymaps and unimaps, each a copy of
# /usr/share's where the host has it (10i18n copies DIR/X/* to the same
# path in the image: a link to a directory would be copied as the link),
# unimaps else an empty directory. Made once, under a temporary name.
console_kbddir() (
	d=$1
	[ -f "$d/.complete" ] && return 0
	rm -rf "$d.tmp" && mkdir -p "$d.tmp" || return 1
	for s in consolefonts consoletrans keymaps unimaps; do
		if [ -d "/usr/share/$s" ]; then
			cp -a "/usr/share/$s" "$d.tmp/$s" || return 1
		elif [ "$s" = unimaps ]; then
			mkdir "$d.tmp/$s" || return 1
		else
			echo "console_kbddir: no /usr/share/$s (install console-data)" >&2
			return 1
		fi
	done
	: > "$d.tmp/.complete" && rm -rf "$d" && mv "$d.tmp" "$d"
)

# write_console_init FILE: the root's init: what tty0's keymap and font
# are (CONSOLE-TEST lines), then the boot's end.
write_console_init() {
	{
		boot_init_head
		cat <<'EOF'
read -r up _ < /proc/uptime
# the root is mounted read-only: /run is dracut's tmpfs
if dumpkmap > /run/keymap 2> /run/keymap.err; then
	echo "CONSOLE-TEST keymap $(sha256sum < /run/keymap | cut -d ' ' -f 1) bytes=$(wc -c < /run/keymap)"
	# "bkeymap", 256 table flags, then the plain table's 128 u16 entries
	echo "CONSOLE-TEST key21 $(od -A n -t x2 -j 305 -N 2 /run/keymap | tr -d ' ')"
else
	echo "CONSOLE-TEST keymap-failed $(cat /run/keymap.err)"
fi
if setfont -C /dev/tty0 -O /run/font > /run/font.err 2>&1; then
	echo "CONSOLE-TEST font $(sha256sum < /run/font | cut -d ' ' -f 1) bytes=$(wc -c < /run/font)"
else
	echo "CONSOLE-TEST font-failed $(cat /run/font.err)"
fi
# console-setup's setupcon (the image's micro-version) leaves this behind
[ -e /run/console-setup/keymap_loaded ] && echo "CONSOLE-TEST setupcon ran"
echo "BOOT-RESULT ok uptime=$up"
echo BOOT-END
poweroff -f
exit 1
EOF
	} > "$1"
	chmod 0755 "$1"
}

# console_setup MODULE: the stock and initdev images with MODULE (i18n:
# with kbddir; console-setup), the root.
console_setup() {
	STOCK_MODULES="base rootfs-block udev-rules $1"
	harness_setup
	command -v setfont > /dev/null || atf_skip "kbd is not installed"
	if [ "$1" = i18n ]; then
		console_kbddir "$cache/kbd" || atf_fail "cannot make the kbd data directory"
		kbddir=$cache/kbd
		export kbddir
	fi
	initdev_locate
	STOCK_INITRD=$(boot_cached_initramfs "$cache" "$base" "$KVER" \
		"$STOCK_MODULES" "$DRIVERS") || atf_fail "dracut could not build the stock image"
	INITRD=$(boot_initdev_image "$cache" "$base") ||
		atf_fail "dracut could not build the initdev image"
	for img in "$STOCK_INITRD" "$INITRD"; do
		grep -q "Including module: $1 " "$img.log" ||
			atf_fail "dracut did not include its $1 module (see $img.log)"
		cpio -it < "$img" 2> /dev/null | grep -q 'udev/rules.d/10-console.rules$' ||
			atf_fail "$img has no 10-console.rules: $1 installed nothing (kbddir?)"
	done
	grep -q 'Including module: initdev ' "$INITRD.log" ||
		atf_fail "dracut did not include initdev (see $INITRD.log)"
	echo "images: stock $STOCK_INITRD, initdev $INITRD${kbddir:+ (kbddir $kbddir)}"
	console_root
}

# console_root: the root (busybox, setfont, the reporting init), root.ext4.
console_root() {
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	for a in dumpkmap od sha256sum wc cut; do
		ln -sf busybox "staging/bin/$a" || atf_fail "cannot link $a"
	done
	boot_add_program staging "$(command -v setfont)" /bin/setfont ||
		atf_fail "cannot put setfont in the root"
	write_console_init staging/sbin/init || atf_fail "cannot write the root's init"
	boot_make_ext4 root.ext4 32 staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the root filesystem image"
}

# console_boot NAME IMAGE "APPEND": boot IMAGE into NAME.log with a VGA
# console; fail unless the root reported.
console_boot() {
	if ! try_boot "$1.log" "$2" \
		"root=UUID=$ROOT_UUID usb-storage.delay_use=3 rd.emergency=poweroff $3" \
		-vga std -device qemu-xhci -drive if=none,id=stick,file=root.ext4,format=raw \
		-device usb-storage,drive=stick; then
		boot_log_tail "$1.log"
		atf_fail "$1: the guest did not reach the root's report"
	fi
	echo "$1: wall $(cat "$1.log.wall")s"
	log_lines CONSOLE-TEST "$1.log" | sed "s/^/$1: /"
	log_lines CONSOLE-TEST "$1.log" | grep -q failed && {
		boot_log_tail "$1.log"
		atf_fail "$1: the root could not read tty0's keymap or font"
	}
	return 0
}

# value NAME WHAT: the first word of NAME's CONSOLE-TEST WHAT line.
value() {
	log_lines "CONSOLE-TEST $2" "$1.log" | cut -d ' ' -f 1
}

atf_test_case i18n_vconsole
i18n_vconsole_head() {
	atf_set descr "dracut's i18n module, non-systemd flow: rd.vconsole.keymap=de and rd.vconsole.font=LatArCyrHeb-16 are on tty0 with initdev as with udevd; without them the kernel's keymap and font"
	initdev_head "setfont" 900
}
i18n_vconsole_body() {
	boot_selected i18n_vconsole "$CONSOLE_CI_CASES"
	console_setup i18n
	opts="rd.vconsole.keymap=$VC_KEYMAP rd.vconsole.font=$VC_FONT"
	console_boot stock "$STOCK_INITRD" "$opts"
	console_boot initdev "$INITRD" "$opts"
	console_boot baseline "$INITRD" ""
	# the baseline: the kernel's US keymap (keycode 21 is y: 0x79)
	case $(value baseline key21) in
	??79) ;;
	*) atf_fail "baseline: keycode 21 is $(value baseline key21), not y: the kernel's keymap is not what this test assumes" ;;
	esac
	for n in stock initdev; do
		case $(value $n key21) in
		??7a) ;;
		*) atf_fail "$n: keycode 21 is $(value $n key21), not z: rd.vconsole.keymap=$VC_KEYMAP was not loaded" ;;
		esac
		[ "$(value $n keymap)" != "$(value baseline keymap)" ] ||
			atf_fail "$n: the keymap is the kernel's (as the baseline's)"
		[ "$(value $n font)" != "$(value baseline font)" ] ||
			atf_fail "$n: the font is the kernel's (as the baseline's): rd.vconsole.font=$VC_FONT was not loaded"
	done
	[ "$(value initdev keymap)" = "$(value stock keymap)" ] ||
		atf_fail "initdev's keymap differs from stock's"
	[ "$(value initdev font)" = "$(value stock font)" ] ||
		atf_fail "initdev's font differs from stock's"
}

atf_test_case console_setup_keymap
console_setup_keymap_head() {
	atf_set descr "Debian's console-setup module, non-systemd flow: the host's keymap (setupcon --setup-dir) is loaded on tty0 with initdev as with udevd; without the module the kernel's"
	initdev_head "setfont setupcon" 900
}
console_setup_keymap_body() {
	boot_selected console_setup_keymap "$CONSOLE_CI_CASES"
	console_setup console-setup
	# the baseline: the stock image without console-setup (the kernel's keymap)
	BASE_INITRD=$(boot_cached_initramfs "$cache" "$base" "$KVER" \
		"base rootfs-block udev-rules" "$DRIVERS") ||
		atf_fail "dracut could not build the image without console-setup"
	console_boot stock "$STOCK_INITRD" ""
	console_boot initdev "$INITRD" ""
	console_boot baseline "$BASE_INITRD" ""
	for n in stock initdev; do
		[ "$(value $n setupcon)" = ran ] ||
			atf_fail "$n: the image's setupcon did not run (no /run/console-setup/keymap_loaded)"
		[ "$(value $n keymap)" != "$(value baseline keymap)" ] ||
			atf_fail "$n: the keymap is the kernel's (as the baseline's)"
	done
	[ "$(value initdev keymap)" = "$(value stock keymap)" ] ||
		atf_fail "initdev's keymap differs from stock's"
	[ "$(value initdev font)" = "$(value stock font)" ] ||
		atf_fail "initdev's font differs from stock's"
}

# console_systemd_setup: dracut's default image (a systemd initrd where
# systemd is installed), stock and with --add initdev (the refused modules
# the stock build includes omitted, as systemd_initrd_test), the root.
console_systemd_setup() {
	STOCK_MODULES="" DRIVERS="" BOOT_TIMEOUT=420
	harness_setup
	command -v setfont > /dev/null || atf_skip "kbd is not installed"
	[ -x /lib/systemd/systemd ] || atf_skip "systemd is not installed: dracut's default image is not a systemd initrd"
	initdev_locate
	default_images console-setup
	console_root
}

atf_test_case systemd_console_setup
systemd_console_setup_head() {
	atf_set descr "dracut's default image (a systemd initrd) with console-setup: its keymap is loaded on tty0 with initdev as with udevd; rd.vconsole.* the same in both"
	initdev_head "setfont setupcon bash" 1500
}
systemd_console_setup_body() {
	boot_selected systemd_console_setup "$CONSOLE_CI_CASES"
	console_systemd_setup
	opts="rd.vconsole.keymap=$VC_KEYMAP rd.vconsole.font=$VC_FONT"
	console_boot stock "$STOCK_INITRD" "$opts"
	console_boot initdev "$INITRD" "$opts"
	for n in stock initdev; do
		[ "$(value $n setupcon)" = ran ] ||
			atf_fail "$n: the image's setupcon did not run (no /run/console-setup/keymap_loaded)"
	done
	for w in keymap key21 font; do
		[ "$(value initdev $w)" = "$(value stock $w)" ] ||
			atf_fail "initdev's $w differs from stock's"
	done
}

atf_init_test_cases() {
	atf_add_test_case i18n_vconsole
	atf_add_test_case console_setup_keymap
	atf_add_test_case systemd_console_setup
}
