#!/bin/sh
# SPDX-License-Identifier: MIT
# parity.sh INITDEV RULES_DIR SYSPATH [ACTION] [EXTRA_UDEV_RULES...]
#
# `initdev rules test` against the real `udevadm test` (udev 252) for one
# device with the same rules files, compared field by field: every property
# (DEVLINKS, TAGS and CURRENT_TAGS as sets; USEC_INITIALIZED left out), the
# RUN list in order, and the node's owner, group and mode. Any difference is
# printed as a diff and the exit status is 1.
#
# udevadm test makes links in /dev and a database in /run/udev, so both run
# in a private mount namespace with tmpfs on /dev, /run and udev's rules
# directories (RULES_DIR bound over /usr/lib/udev/rules.d), and the device
# node made with mknod. initdev stands for 60-persistent-storage.rules with
# its native handling, so udev gets that file (and EXTRA_UDEV_RULES) on top.
# Needs root. Outputs are kept in $PARITY_OUT (default: a temporary dir).
set -eu
initdev=$1 rules=$2 syspath=$3 action=${4:-add}
shift 3
[ $# -gt 0 ] && shift
out=${PARITY_OUT:-$(mktemp -d)}
mkdir -p "$out"
initdev=$(realpath "$initdev")
rules=$(realpath "$rules")
syspath=$(realpath "$syspath")

# udev's side: the rules under test plus the native handling's counterpart
mkdir -p "$out/udev-rules"
cp "$rules"/*.rules "$out/udev-rules/" 2>/dev/null || true
cp /usr/lib/udev/rules.d/60-persistent-storage.rules "$out/udev-rules/"
for f in "$@"; do cp "$f" "$out/udev-rules/"; done

k=$(basename "$syspath")
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
	udevadm test --action="$action" "$syspath" > "$out/udev.out" 2> "$out/udev.err" || true
	"$initdev" --log-target stderr --udev-rules "$rules" rules test --action "$action" \
		"$syspath" > "$out/initdev.out" 2> "$out/initdev.err"
' parity "$out" "$rules" "$syspath" "$action" "$devname" "$devnum" "$type" "$initdev"

# normalise: properties sorted (list values sorted inside), RUN in order, perms
norm_props() {
	grep -E '^[A-Za-z_.][A-Za-z0-9_.]*=' "$1" | grep -v '^USEC_INITIALIZED=' |
	while IFS= read -r line; do
		key=${line%%=*} val=${line#*=}
		case $key in
		DEVLINKS) val=$(printf '%s\n' $val | sort | tr '\n' ' ') ;;
		TAGS|CURRENT_TAGS) val=$(printf '%s\n' "$val" | tr ':' '\n' | sed '/^$/d' | sort | tr '\n' ':') ;;
		esac
		printf '%s=%s\n' "$key" "$val"
	done | sort
}
norm_run() { grep "^run: '" "$1" || true; }
# udev logs "Setting permissions /dev/X, uid=U, gid=G, mode=M" when it has a node
udev_perms() {
	sed -n 's/.*Setting permissions [^,]*, uid=\([0-9]*\), gid=\([0-9]*\), mode=\([0-7]*\).*/owner: \1\ngroup: \2\nmode: \3/p' "$1" |
	sed 's/^mode: 0*\([0-7][0-7][0-7]\)$/mode: 0\1/'
}
initdev_perms() {
	o=$(sed -n 's/^owner: //p' "$1"); g=$(sed -n 's/^group: //p' "$1"); m=$(sed -n 's/^mode: //p' "$1")
	printf 'owner: %s\ngroup: %s\nmode: %s\n' "${o:-0}" "${g:-0}" "${m:-0600}"
}
{ norm_props "$out/udev.out"; norm_run "$out/udev.out"; udev_perms "$out/udev.err"; } > "$out/udev.norm"
{ norm_props "$out/initdev.out"; norm_run "$out/initdev.out"; } > "$out/initdev.norm"
grep -q 'Setting permissions' "$out/udev.err" && initdev_perms "$out/initdev.out" >> "$out/initdev.norm"
if ! grep -q '^DEVPATH=' "$out/udev.out"; then
	echo "parity: udevadm test printed no properties:" >&2
	tail -n 20 "$out/udev.err" >&2
	exit 2
fi
if diff -u "$out/udev.norm" "$out/initdev.norm" > "$out/diff"; then
	echo "parity: $k ($action): $(grep -c . "$out/udev.norm") fields equal"
	exit 0
fi
echo "parity: $k ($action): udevadm test (-) and initdev rules test (+) differ:"
cat "$out/diff"
exit 1
