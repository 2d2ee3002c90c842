#!/bin/sh
# SPDX-License-Identifier: MIT
# parity.sh INITDEV RULES_DIR SYSPATH [ACTION] [EXTRA_UDEV_RULES...]
#
# `initdev rules test` against the real `udevadm test` (udev 252 or 257) for one
# device with the same rules files, compared field by field: every property
# (DEVLINKS, TAGS and CURRENT_TAGS as sets; USEC_INITIALIZED left out), the
# RUN list in order, and the node's owner, group and mode. Any difference is
# printed as a diff and the exit status is 1; 3 when udev 257 skipped a
# program the rules run (its udevadm test no longer runs them: not comparable).
#
# udevadm test makes links in /dev and a database in /run/udev, so both run
# in a private mount namespace with tmpfs on /dev, /run and udev's rules
# directories (RULES_DIR bound over /usr/lib/udev/rules.d), and the device
# node made with mknod. initdev stands for 60-persistent-storage.rules with
# its native handling, so udev gets that file (and EXTRA_UDEV_RULES) on top.
# Needs root. Outputs are kept in $PARITY_OUT (default: a temporary dir).
#
# PARITY_DIRECT=1 (inside a disposable guest where udevd runs): no
# namespace; both use the system's rules directories (RULES_DIR is "-"),
# and initdev reads the device's record from udev's database
# (/run/udev/data) as udevadm test does.
set -eu
initdev=$1 rules=$2 syspath=$3 action=${4:-add}
shift 3
[ $# -gt 0 ] && shift
out=${PARITY_OUT:-$(mktemp -d)}
mkdir -p "$out"
# (small guests have readlink -f but no realpath, diff or mktemp)
canon() { readlink -f "$1" 2>/dev/null || echo "$1"; }
initdev=$(canon "$initdev")
syspath=$(canon "$syspath")
k=$(basename "$syspath")

if [ "${PARITY_DIRECT:-}" = 1 ]; then
	dn=$(sed -n 's/^DEVNAME=//p' "$syspath/uevent")
	[ -n "$dn" ] && stat -c '%u %g %a' "/dev/$dn" > "$out/node.stat"
	udevadm test --action="$action" "$syspath" > "$out/udev.out" 2> "$out/udev.err" || true
	"$initdev" --log-target stderr rules test --udev-db /run/udev/data --action "$action" \
		"$syspath" > "$out/initdev.out" 2> "$out/initdev.err"
else
rules=$(canon "$rules")

# udev's side: the rules under test plus the native handling's counterpart
mkdir -p "$out/udev-rules"
cp "$rules"/*.rules "$out/udev-rules/" 2>/dev/null || true
cp /usr/lib/udev/rules.d/60-persistent-storage.rules "$out/udev-rules/"
for f in "$@"; do cp "$f" "$out/udev-rules/"; done

devnum=$(cat "$syspath/dev")
devname=$(sed -n 's/^DEVNAME=//p' "$syspath/uevent")
type=b
case "$syspath" in */block/*) ;; *) type=c ;; esac

unshare -m sh -eu -c '
	out=$1 rules=$2 syspath=$3 action=$4 devname=$5 devnum=$6 type=$7 initdev=$8
	mount --make-rprivate /
	mount -t tmpfs parity /dev
	mount -t tmpfs parity /run
	for d in /etc/udev/rules.d /usr/local/lib/udev/rules.d; do
		[ -d "$d" ] && mount -t tmpfs parity "$d"
	done
	mount --bind "$out/udev-rules" /usr/lib/udev/rules.d
	[ -d /lib/udev/rules.d ] && ! [ /lib/udev/rules.d -ef /usr/lib/udev/rules.d ] &&
		mount --bind "$out/udev-rules" /lib/udev/rules.d
	mkdir -p "/dev/$(dirname "$devname")"
	mknod "/dev/$devname" "$type" "${devnum%%:*}" "${devnum##*:}"
	stat -c "%u %g %a" "/dev/$devname" > "$out/node.stat"
	udevadm test --action="$action" "$syspath" > "$out/udev.out" 2> "$out/udev.err" || true
	"$initdev" --log-target stderr --udev-rules "$rules" rules test --action "$action" \
		"$syspath" > "$out/initdev.out" 2> "$out/initdev.err"
' parity "$out" "$rules" "$syspath" "$action" "$devname" "$devnum" "$type" "$initdev"
fi

# udev 257's udevadm test prints sections: "Properties:", "Queued commands:",
# "Device node owner:", ... with each entry indented by two spaces; udev 252
# prints KEY=VALUE and "run: '...'" lines as they are
udev257() { grep -q '^Properties:$' "$1"; }
# section FILE TITLE: the entries of one section, unindented
section() { sed -n "/^$2:\$/,/^[^ ]/{s/^  //p}" "$1"; }
# udev 257 no longer runs PROGRAM or IMPORT{program} in udevadm test: what
# followed from one is not what udevd would do, so such a device cannot be compared
if udev257 "$out/udev.out" && grep -q 'skipping execution of' "$out/udev.err"; then
	echo "parity: $k ($action): not comparable: udev 257's udevadm test skipped a program the rules run"
	exit 3
fi

# normalise: properties sorted (list values sorted inside), RUN in order, perms
norm_props() {
	{ if udev257 "$1"; then section "$1" Properties; else cat "$1"; fi; } |
	grep -E '^[A-Za-z_.][A-Za-z0-9_.]*=' | grep -v '^USEC_INITIALIZED=' | grep -v '^ID_PROCESSING=' |
	while IFS= read -r line; do
		key=${line%%=*} val=${line#*=}
		case $key in
		DEVLINKS) val=$(printf '%s\n' $val | sort | tr '\n' ' ') ;;
		TAGS|CURRENT_TAGS) val=$(printf '%s\n' "$val" | tr ':' '\n' | sed '/^$/d' | sort | tr '\n' ':') ;;
		esac
		printf '%s=%s\n' "$key" "$val"
	done | sort
}
norm_run() {
	if udev257 "$1"; then
		section "$1" 'Queued commands' | sed -n "s/^RUN{[a-z]*} : \(.*\)$/run: '\1'/p"
	else
		grep "^run: '" "$1" || true
	fi
}
# udev logs "Setting (or Preserve) permissions /dev/X, uid=U, gid=G, mode=M" for a node
udev_perms() {
	sed -n 's/.*\(Setting\|Preserve\) permissions [^,]*, uid=\([0-9]*\), gid=\([0-9]*\), mode=\([0-7]*\).*/owner: \2\ngroup: \3\nmode: \4/p' "$1" |
	sed 's/^mode: 0*\([0-7][0-7][0-7]\)$/mode: 0\1/'
}
# udev 257: "Device node owner:", "... group:", "... permission:" for what the
# rules set ("name (uid=N)", "0640"); the rest as the node was (node.stat)
udev257_perms() {
	read -r su sg sm < "$2"
	o=$(section "$1" 'Device node owner' | sed -n 's/.*(uid=\([0-9]*\))$/\1/p')
	g=$(section "$1" 'Device node group' | sed -n 's/.*(gid=\([0-9]*\))$/\1/p')
	m=$(section "$1" 'Device node permission' | sed -n 's/^0*\([0-7][0-7][0-7]\)$/0\1/p')
	printf 'owner: %s\ngroup: %s\nmode: %s\n' "${o:-$su}" "${g:-$sg}" "${m:-$(printf '%04o' "0$sm")}"
}
# what initdev's rules set; the rest stays as the node was (node.stat), as udev keeps it
initdev_perms() {
	read -r su sg sm < "$2"
	o=$(sed -n 's/^owner: //p' "$1"); g=$(sed -n 's/^group: //p' "$1"); m=$(sed -n 's/^mode: //p' "$1")
	printf 'owner: %s\ngroup: %s\nmode: %s\n' "${o:-$su}" "${g:-$sg}" "${m:-$(printf '%04o' "0$sm")}"
}
{ norm_props "$out/udev.out"; norm_run "$out/udev.out"; udev_perms "$out/udev.err"; } > "$out/udev.norm"
{ norm_props "$out/initdev.out"; norm_run "$out/initdev.out"; } > "$out/initdev.norm"
if udev257 "$out/udev.out"; then
	# 257 names only what the rules set: compare all three when it names any
	if grep -q '^Device node \(owner\|group\|permission\):$' "$out/udev.out" && [ -s "$out/node.stat" ]; then
		udev257_perms "$out/udev.out" "$out/node.stat" >> "$out/udev.norm"
		initdev_perms "$out/initdev.out" "$out/node.stat" >> "$out/initdev.norm"
	fi
elif grep -Eq '(Setting|Preserve) permissions' "$out/udev.err" && [ -s "$out/node.stat" ]; then
	initdev_perms "$out/initdev.out" "$out/node.stat" >> "$out/initdev.norm"
fi
if ! grep -q '^ *DEVPATH=' "$out/udev.out"; then
	echo "parity: udevadm test printed no properties:" >&2
	tail -n 20 "$out/udev.err" >&2
	exit 2
fi
if [ "$(cat "$out/udev.norm")" = "$(cat "$out/initdev.norm")" ]; then
	echo "parity: $k ($action): $(grep -c . "$out/udev.norm") fields equal"
	exit 0
fi
echo "parity: $k ($action): udevadm test (-) and initdev rules test (+) differ:"
{ grep -vxF -f "$out/initdev.norm" "$out/udev.norm" | sed 's/^/- /'
  grep -vxF -f "$out/udev.norm" "$out/initdev.norm" | sed 's/^/+ /'; } > "$out/diff"
cat "$out/diff"
exit 1
