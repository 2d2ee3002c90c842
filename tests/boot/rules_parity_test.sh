#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# Rules parity on device-mapper and md devices, which the host kernel
# cannot make: in the tool guest (toolguest-lib.sh: dracut's crypt, dm, lvm
# and mdraid rules with systemd-udevd running), a LUKS2 container opened
# with cryptsetup, an LVM logical volume, an md RAID1 array, and names with
# hostile characters; for each dm, md and member device `initdev rules test`
# against `udevadm test` (udev 252), add and change, field by field
# (tests/rules/parity.sh with PARITY_DIRECT: the guest's own rules and
# udev database); and PS/2 and USB keyboards, mouse and tablet (input_id,
# usb_id, hwdb with the host's hwdb.bin). A difference fails.

tg_job() {
	cat <<'EOF'
set -u
printf k > /tmp/k
c=$(tg_disk c); h=$(tg_disk h); l=$(tg_disk l); m1=$(tg_disk m1); m2=$(tg_disk m2)
for d in "$c" "$h" "$l" "$m1" "$m2"; do wipefs -q -a "$d" 2>/dev/null; done
luks() { # DEV NAME LABEL
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--label "$3" --key-file /tmp/k "$1" && cryptsetup open --key-file /tmp/k "$1" "$2"
}
luks "$c" cr plain && luks "$h" hostile '../x' || echo "SETUP-FAILED luks"
udevadm settle
mkfs.ext4 -q -L inner /dev/mapper/cr
lvm pvcreate -q "$l" && lvm vgcreate -q 'h+_.-vg' "$l" &&
	lvm lvcreate -q -y -n 'r+_.-lv' -L 8M 'h+_.-vg' || echo "SETUP-FAILED lvm"
udevadm settle
mdadm --create /dev/md/md0 --run --level=1 --raid-devices=2 --metadata=1.2 --name='a/b' \
	"$m1" "$m2" > /dev/null 2>&1 || echo "SETUP-FAILED md"
udevadm settle
mkfs.ext4 -q -L mdfs /dev/md/md0 2>/dev/null || mkfs.ext4 -q -L mdfs /dev/md127
udevadm trigger --action=change --subsystem-match=block
udevadm settle
fail=0 n=0
for s in /sys/class/block/dm-* /sys/class/block/md* "/sys/class/block/${c#/dev/}" \
	"/sys/class/block/${l#/dev/}" "/sys/class/block/${m1#/dev/}"; do
	[ -e "$s/dev" ] || continue
	for a in add change; do
		o=/tmp/p-$(basename "$s")-$a
		n=$((n + 1))
		PARITY_DIRECT=1 PARITY_OUT=$o sh /tg/parity.sh /tg/initdev - "$s" $a || fail=1
	done
done
echo "PARITY-COUNT $n"
echo "PARITY-RESULT $fail"
EOF
}

# guest_setup: the harness sourced; bin (initdev) and parity (parity.sh) set.
guest_setup() {
	src=$(atf_get_srcdir)
	[ -f "$src/toolguest-lib.sh" ] ||
		atf_skip "the tool guest harness (tests/boot/toolguest-lib.sh, issue 14) is not here"
	# shellcheck source=tests/boot/lib.sh
	. "$src/lib.sh"
	# shellcheck source=/dev/null
	. "$src/toolguest-lib.sh"
	atf_config_has boot_cache && BOOT_CACHE=$(atf_config_get boot_cache) && export BOOT_CACHE
	bin=$(readlink -f "$src/../../initdev")
	parity=$src/../rules/parity.sh
	[ -f "$parity" ] || parity=$src/../../tests/rules/parity.sh
}

# guest_result RC: the job's output shown; fails if the guest or the set-up failed.
guest_result() {
	cat job.out
	[ "$1" -ne 125 ] || atf_fail "the guest gave no status (see job.out.console)"
	! grep -q '^SETUP-FAILED' job.out || atf_fail "making the devices failed (above)"
}

atf_test_case dm_md_luks
dm_md_luks_head() {
	atf_set descr "initdev rules test equals udevadm test on LUKS, LVM, md devices (and hostile names) in a guest"
	atf_set require.user root
	atf_set timeout 600
}
dm_md_luks_body() {
	guest_setup
	tg_job > job.sh
	for d in c h l m1 m2; do truncate -s 48M "$d.img"; done
	tg_run -d c=c.img -d h=h.img -d l=l.img -d m1=m1.img -d m2=m2.img \
		-p "$bin=/tg/initdev" -f "$parity=/tg/parity.sh" -t 500 job.sh job.out
	guest_result $?
	n=$(sed -n 's/^PARITY-COUNT //p' job.out)
	[ "${n:-0}" -ge 10 ] || atf_fail "only ${n:-0} comparisons ran: the case proves little"
	grep -q '^PARITY-RESULT 0$' job.out || atf_fail "initdev and udev differ (above)"
}

# The input and USB job: the guest's i8042 keyboard and mouse, a USB keyboard
# and tablet on xHCI (their drivers inserted from /tg/mods), udev's input
# rules and the host's hwdb.bin added; every input and USB device compared.
input_job() {
	cat <<'EOF'
set -u
for m in usb-common usbcore xhci-hcd xhci-pci hid usbhid hid-generic evdev psmouse; do
	/tg/insmod "/tg/mods/$m.ko" || echo "SETUP-FAILED insmod $m"
done
i=0
while [ "$(ls -d /sys/class/input/event* 2>/dev/null | wc -l)" -lt 4 ] && [ $i -lt 60 ]; do
	sleep 1; i=$((i + 1))
done
udevadm settle
ls /sys/class/input/ /sys/bus/usb/devices/
fail=0 n=0
for s in /sys/class/input/* /sys/bus/usb/devices/*; do
	[ -e "$s" ] || continue
	s=$(readlink -f "$s")
	o=/tmp/p-$(echo "$s" | tr '/:' '__')
	n=$((n + 1))
	PARITY_DIRECT=1 PARITY_OUT=$o sh /tg/parity.sh /tg/initdev - "$s" add || fail=1
done
# the keyboard builtin through initdev alone (a rules file udevd does not read):
# scan code 0x1e remapped to KEY_B (48), 0x30 put on the atkbd's force_release list
kbd=
for e in /sys/class/input/event*; do
	[ "$(cat "$e/device/name" 2>/dev/null)" = "AT Translated Set 2 keyboard" ] && kbd=$e
done
if [ -n "$kbd" ]; then
	# (two lines: udev runs a line's IMPORT before its assignments)
	printf '%s\n' 'KERNEL=="event*", ENV{KEYBOARD_KEY_1e}="b", ENV{KEYBOARD_KEY_30}="!"' \
		'KERNEL=="event*", IMPORT{builtin}="keyboard"' > /tmp/kbd.rules
	before=$(/tg/evdev-keycode "/dev/input/${kbd##*/}" 1e)
	/tg/initdev rules test --rules /tmp/kbd.rules "$kbd" > /tmp/kbd.out 2>&1 || cat /tmp/kbd.out
	echo "KEYCODE-1E $before -> $(/tg/evdev-keycode "/dev/input/${kbd##*/}" 1e)"
	echo "FORCE-RELEASE $(cat "$(readlink -f "$kbd/device/device")/force_release")"
else
	echo "SETUP-FAILED no AT keyboard"
fi
# what the builtins gave, so a reader sees they ran
cat /tmp/p-*/udev.out | grep -E '^(ID_INPUT[A-Z_]*|ID_USB_INTERFACES|ID_SERIAL|ID_VENDOR_FROM_DATABASE|ID_MODEL_FROM_DATABASE)=' |
	sort | awk '{ n[$0]++ } END { for (k in n) print n[k], k }'
echo "PARITY-COUNT $n"
echo "PARITY-RESULT $fail"
EOF
}

atf_test_case input_usb
input_usb_head() {
	atf_set descr "initdev rules test equals udevadm test on PS/2 and USB keyboards, mouse and tablet (input_id, usb_id, hwdb) in a guest; the keyboard builtin remaps a scan code"
	atf_set require.user root
	atf_set timeout 600
}
input_usb_body() {
	guest_setup
	kver=$(boot_kver)
	set --
	for m in usb-common usbcore xhci-hcd xhci-pci hid usbhid hid-generic evdev psmouse; do
		ko=$(modinfo -k "$kver" -n "$(echo "$m" | tr - _)") || atf_skip "no module $m for $kver"
		case $ko in *.ko) ;; *) atf_skip "$ko: compressed modules are not handled here" ;; esac
		set -- "$@" -f "$ko=/tg/mods/$m.ko"
	done
	for r in 60-input-id.rules 60-evdev.rules 60-persistent-input.rules; do
		[ -f "/usr/lib/udev/rules.d/$r" ] || atf_skip "no $r on this host"
		set -- "$@" -f "/usr/lib/udev/rules.d/$r=/etc/udev/rules.d/$r"
	done
	[ -f /usr/lib/udev/hwdb.bin ] || atf_skip "no hwdb.bin on this host"
	# the image's kmod has no insmod name: kmod answers to the name it is run by
	insmod=$(command -v insmod) || atf_skip "no insmod on this host"
	input_job > job.sh
	keycode=$(readlink -f "$src/../evdev-keycode")
	tg_run "$@" -f /usr/lib/udev/hwdb.bin=/etc/udev/hwdb.bin -p "$insmod=/tg/insmod" \
		-p "$bin=/tg/initdev" -p "$keycode=/tg/evdev-keycode" \
		-f "$parity=/tg/parity.sh" -m 1536 -t 500 \
		-q "-device qemu-xhci,id=xhci -device usb-kbd,bus=xhci.0 -device usb-tablet,bus=xhci.0" \
		job.sh job.out
	guest_result $?
	n=$(sed -n 's/^PARITY-COUNT //p' job.out)
	[ "${n:-0}" -ge 12 ] || atf_fail "only ${n:-0} comparisons ran: the case proves little"
	for p in ID_INPUT_KEYBOARD=1 ID_INPUT_MOUSE=1 ID_USB_INTERFACES=; do
		grep -q "$p" job.out || atf_fail "udev gave no $p: the case proves little"
	done
	grep -q '^PARITY-RESULT 0$' job.out || atf_fail "initdev and udev differ (above)"
	grep -q '^KEYCODE-1E 30 -> 48$' job.out ||
		atf_fail "the keyboard builtin did not remap scan code 0x1e from KEY_A to KEY_B"
	# (the kernel prints the list sorted, as ranges)
	grep -Eq '^FORCE-RELEASE (.*,)?48(,.*)?$' job.out ||
		atf_fail "the keyboard builtin did not add scan code 0x30 to force_release"
}

atf_init_test_cases() {
	atf_add_test_case dm_md_luks
	atf_add_test_case input_usb
}
