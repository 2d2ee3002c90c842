#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# Parity with the real udev (Debian's udev 252) on the host: for loop
# devices holding what stacked roots are made of (ext4, an LVM physical
# volume, a LUKS2 container, swap, vfat, nothing), with the rules dracut's
# crypt/dm/lvm/mdraid modules put into an image, `initdev rules test` and
# `udevadm test` must give the same properties, symlinks, RUN list and node
# permissions, field by field (tests/rules/parity.sh). udevadm test runs in
# a private mount namespace with tmpfs /dev and /run. Device-mapper, md and
# opened LUKS devices need a guest (the host kernel has no dm/md).

src() { echo "$(atf_get_srcdir)"; }
bin() { echo "$(atf_get_srcdir)/../../initdev"; }

setup() {
	: > loops
	"$(src)/dracut-rules-set" drs > /dev/null || atf_fail "cannot assemble dracut's rules"
}

cleanup_loops() {
	[ -f loops ] && while read -r l; do losetup -d "$l" 2>/dev/null; done < loops
	true
}

attach() { # IMG -> prints /sys/class/block/loopN
	l=$(losetup --find --show "$1") || atf_skip "no loop devices here"
	echo "$l" >> loops
	echo "/sys/class/block/$(basename "$l")"
}

# parity SYSPATH ACTION [RULES_DIR]
parity() {
	PARITY_OUT="$PWD/out-$(basename "$1")-$2" "$(src)/parity.sh" "$(bin)" "${3:-drs}" "$1" "$2" \
		> parity.out 2>&1 || atf_fail "$(cat parity.out)"
	cat parity.out
}

# common_head [PROGS]: root, and udevadm, unshare, losetup plus PROGS
common_head() {
	atf_set require.user root
	atf_set require.progs "udevadm unshare losetup $*"
}

atf_test_case filesystems cleanup
filesystems_head() {
	atf_set descr "ext4 (hostile label), swap, vfat, empty: add, change and remove give udev's results"
	common_head
}
filesystems_body() {
	setup
	truncate -s 16M a.img b.img c.img d.img
	mkfs.ext4 -q -F -L 'lab el$x/..' a.img || atf_skip "no mkfs.ext4"
	mkswap -q -L 'sw ap' b.img || atf_skip "no mkswap"
	mkfs.vfat -n 'DOS$' c.img > /dev/null 2>&1 || atf_skip "no mkfs.vfat"
	for i in a b c d; do
		s=$(attach $i.img)
		for action in add change remove; do parity "$s" $action; done
	done
}
filesystems_cleanup() { cleanup_loops; }

atf_test_case lvm_physical_volume cleanup
lvm_physical_volume_head() {
	atf_set descr "an LVM2 PV: dracut's 64-lvm.rules PROGRAM (a shell loop with \$\$) and RUN list as udev's"
	common_head pvcreate
}
lvm_physical_volume_body() {
	setup
	truncate -s 16M pv.img
	s=$(attach pv.img)
	pvcreate -q "/dev/$(basename "$s")" > /dev/null 2>&1 || atf_skip "pvcreate failed here"
	parity "$s" add
	grep -q "run: '/sbin/initqueue" out-*-add/initdev.norm || atf_fail "no lvm_scan RUN: the case proves little"
	parity "$s" change
	parity "$s" remove
}
lvm_physical_volume_cleanup() { cleanup_loops; }

atf_test_case luks_container cleanup
luks_container_head() {
	atf_set descr "a LUKS2 container (as parse-crypt.sh's rules see it): properties and links as udev's"
	common_head cryptsetup
}
luks_container_body() {
	setup
	truncate -s 32M luks.img
	printf k > key
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file key luks.img || atf_skip "cryptsetup luksFormat failed"
	s=$(attach luks.img)
	uuid=$(cryptsetup luksUUID luks.img)
	# the rule dracut's parse-crypt.sh writes for rd.luks.uuid= (initqueue, not systemd)
	cat > drs/70-luks.rules <<EOF
SUBSYSTEM!="block", GOTO="luks_end"
ACTION!="add|change", GOTO="luks_end"
ENV{ID_FS_TYPE}=="crypto_LUKS", ENV{ID_FS_UUID}=="$uuid", RUN+="/sbin/initqueue --settled --unique --onetime --name cryptroot-ask-%k /sbin/cryptroot-ask \$env{DEVNAME} luks-\$env{ID_FS_UUID} "
LABEL="luks_end"
EOF
	parity "$s" add
	grep -q "cryptroot-ask /dev/$(basename "$s") luks-$uuid" out-*-add/initdev.norm ||
		atf_fail "the LUKS rule did not fire: the case proves little"
	parity "$s" change
}
luks_container_cleanup() { cleanup_loops; }

atf_test_case all_host_rules cleanup
all_host_rules_head() {
	atf_set descr "every rules file of the host (udev's own too) on loop and character devices"
	common_head
}
all_host_rules_body() {
	setup
	truncate -s 16M a.img
	mkfs.ext4 -q -F -L host a.img || atf_skip "no mkfs.ext4"
	parity "$(attach a.img)" add /usr/lib/udev/rules.d
	for d in /sys/devices/virtual/mem/null /sys/devices/virtual/tty/tty5 \
		/sys/devices/virtual/misc/loop-control; do
		[ -e "$d/dev" ] && parity "$d" add /usr/lib/udev/rules.d
	done
}
all_host_rules_cleanup() { cleanup_loops; }

atf_init_test_cases() {
	atf_add_test_case filesystems
	atf_add_test_case lvm_physical_volume
	atf_add_test_case luks_container
	atf_add_test_case all_host_rules
}
