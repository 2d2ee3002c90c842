#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# Debian 13 (trixie: udev 257, dracut 106, kernel 6.12), issue 24. Each case
# makes or reuses the trixie tree (scripts/trixie-tree: initdev built and
# installed inside it by trixie's gcc 14) and runs the tree's own initdev.
#   rules_check   `initdev rules check` over the whole of trixie's
#                 /usr/lib/udev/rules.d and dracut 106's modules' rules
# Cold, the tree takes minutes to make (trixie-tree): the timeout allows it.

# shellcheck source=tests/boot/trixie-lib.sh
. "$(dirname "$0")/trixie-lib.sh"

atf_test_case rules_check
rules_check_head() {
	atf_set descr "initdev rules check over udev 257's and dracut 106's rules: no unknown key or builtin, only the features initdev leaves out by design"
	trixie_head
}
rules_check_body() {
	trixie_setup
	trixie_chroot initdev rules check /usr/lib/udev/rules.d > udev.out 2>&1
	cat udev.out
	n=$(find "$TRIXIE_TREE/usr/lib/udev/rules.d" -name '*.rules' | wc -l)
	[ "$n" -ge 40 ] || atf_fail "only $n rules files in trixie's udev: the case proves little"
	# what initdev lacks on purpose (hwdb, usb_id, input_id, net_id, NAME=, ...)
	# is named "not supported by initdev"; anything else is a language gap
	if grep -v ': not supported by initdev$' udev.out | grep -q .; then
		atf_fail "udev 257's rules: lines initdev does not understand (above)"
	fi
	grep -q 'net_driver' udev.out && atf_fail "net_driver (new in udev 257) is not supported"
	grep -q 'IMPORT{builtin}="net_driver"' "$TRIXIE_TREE/usr/lib/udev/rules.d/50-udev-default.rules" ||
		atf_fail "trixie's 50-udev-default.rules no longer imports net_driver: revisit this case"
	# dracut 106's own rules, every module's: none with a diagnostic
	(cd "$TRIXIE_TREE" && find usr/lib/dracut/modules.d -name '*.rules' | sed 's|^|/|') > drules
	[ -s drules ] || atf_fail "no rules in dracut 106's modules"
	# shellcheck disable=SC2046
	trixie_chroot initdev rules check $(cat drules) > dracut.out 2>&1 ||
		{ cat dracut.out; atf_fail "dracut 106's rules: initdev rules check failed (above)"; }
	echo "$n udev rules files, $(wc -l < drules) dracut rules files checked"
}

atf_init_test_cases() {
	atf_add_test_case rules_check
}
