#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# Rules parity on device-mapper and md devices, which the host kernel
# cannot make: in the tool guest (toolguest-lib.sh: dracut's crypt, dm, lvm
# and mdraid rules with systemd-udevd running), a LUKS2 container opened
# with cryptsetup, an LVM logical volume, an md RAID1 array, and names with
# hostile characters; for each dm, md and member device `initdev rules test`
# against `udevadm test` (udev 252), add and change, field by field
# (tests/rules/parity.sh with PARITY_DIRECT: the guest's own rules and
# udev database). A difference fails.

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

atf_test_case dm_md_luks
dm_md_luks_head() {
	atf_set descr "initdev rules test equals udevadm test on LUKS, LVM, md devices (and hostile names) in a guest"
	atf_set require.user root
	atf_set timeout 600
}
dm_md_luks_body() {
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
	tg_job > job.sh
	for d in c h l m1 m2; do truncate -s 48M "$d.img"; done
	tg_run -d c=c.img -d h=h.img -d l=l.img -d m1=m1.img -d m2=m2.img \
		-p "$bin=/tg/initdev" -f "$parity=/tg/parity.sh" -t 500 job.sh job.out
	rc=$?
	cat job.out
	[ $rc -ne 125 ] || atf_fail "the guest gave no status (see job.out.console)"
	! grep -q '^SETUP-FAILED' job.out || atf_fail "making the devices failed (above)"
	n=$(sed -n 's/^PARITY-COUNT //p' job.out)
	[ "${n:-0}" -ge 10 ] || atf_fail "only ${n:-0} comparisons ran: the case proves little"
	grep -q '^PARITY-RESULT 0$' job.out || atf_fail "initdev and udev differ (above)"
}

atf_init_test_cases() {
	atf_add_test_case dm_md_luks
}
