# SPDX-License-Identifier: MIT
# Shared by the atf-sh boot tests of dracut images with initdev
# (initdev_test, handoff_test, package_test, systemd_test, stacked_test,
# trixie_test): locating the
# staged install of initdev and its dracut module,
# building the image and the root, booting, reading the guest's report.
# Each test sets STOCK_MODULES, DRIVERS, ROOT_UUID, ROOT_LABEL and
# BOOT_TIMEOUT before calling these. stock_test, which boots no initdev,
# uses the harness half (harness_setup, checked_boot).

# initdev_head [PROGS [TIMEOUT]]: root, the boot programs (and PROGS), the
# timeout (default 300 s); each property set once (kyua refuses duplicates)
initdev_head() {
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.ext4 sfdisk timeout cpio sha256sum${1:+ $1}"
	atf_set timeout "${2:-300}"
}

# initdev_locate: sets INITDEV_BIN, INITDEV_MODULE and INITDEV_REALROOT
# (absolute) from the staged install (boot_load_stage) or fails. The
# stage.env comes from the kyua/atf variable stage_env (make check passes
# it), else the environment's INITDEV_STAGE_ENV.
initdev_locate() {
	# shellcheck source=tests/boot/lib.sh
	. "$(atf_get_srcdir)/lib.sh"
	env_file=${INITDEV_STAGE_ENV:-}
	atf_config_has stage_env && env_file=$(atf_config_get stage_env)
	[ -n "$env_file" ] ||
		atf_fail "no staged install: run make check, or make stage and set INITDEV_STAGE_ENV=BUILD/stage.env"
	boot_load_stage "$env_file" || atf_fail "the staged install at $env_file is incomplete"
}

# harness_setup: load the harness (lib.sh), take the boot cache from the
# atf config, find the kernel and make the private dracut tree. Sets KVER,
# KERNEL, cache, base and t0; skips when there is nothing to boot.
harness_setup() {
	# shellcheck source=tests/boot/lib.sh
	. "$(atf_get_srcdir)/lib.sh"
	if atf_config_has boot_cache; then
		BOOT_CACHE=$(atf_config_get boot_cache)
		export BOOT_CACHE
	fi
	KVER=$(boot_kver) || atf_skip "no kernel image with modules to boot"
	KERNEL=$(boot_kernel "$KVER")
	[ -x /bin/busybox ] || atf_skip "busybox-static is not installed"
	cache=$(boot_cache_dir) || atf_fail "cannot create the boot cache dir"
	t0=$(boot_now)
	base=$(boot_cached_dracut_tree "$cache") || atf_fail "cannot copy /usr/lib/dracut"
}

# harness_shared_cache: unless BOOT_CACHE or the boot_cache variable names
# a cache, use boot-cache next to the test program (the build tree's
# tests/boot), shared by every case and run: for tests whose inputs take
# long to make (the tool guest's disks) and are keyed by their inputs.
# Call before harness_setup.
harness_shared_cache() {
	[ -n "${BOOT_CACHE:-}" ] && return 0
	atf_config_has boot_cache && return 0
	BOOT_CACHE=$(atf_get_srcdir)/boot-cache
	export BOOT_CACHE
}

# initdev_setup [stock]: load the harness, locate initdev, build or reuse
# the initdev image (INITRD) and, with "stock", the stock one (STOCK_INITRD);
# make the root tree and root.ext4. Sets KVER, KERNEL.
initdev_setup() {
	harness_setup
	initdev_locate
	INITRD=$(boot_initdev_image "$cache" "$base") ||
		atf_fail "dracut could not build the initdev image"
	echo "initdev: kernel $KVER, binary $INITDEV_BIN, module $INITDEV_MODULE"
	echo "initdev: image $INITRD ($(stat -c %s "$INITRD") bytes), ready in $(boot_elapsed "$t0")s"
	grep -q 'Including module: initdev ' "$INITRD.log" ||
		atf_fail "dracut did not include initdev (see $INITRD.log)"
	if [ "${1:-}" = stock ]; then
		STOCK_INITRD=$(boot_cached_initramfs "$cache" "$base" "$KVER" \
			"$STOCK_MODULES" "$DRIVERS") || atf_fail "dracut could not build the stock image"
		echo "stock: image $STOCK_INITRD ($(stat -c %s "$STOCK_INITRD") bytes)"
	fi
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	boot_write_report_init staging || atf_fail "cannot write the reporting init"
	mkdir -p empty
	boot_make_ext4 root.ext4 32 staging "$ROOT_UUID" "$ROOT_LABEL" ||
		atf_fail "cannot make the root filesystem image"
}

# log_lines PREFIX [LOG]: the guest's PREFIX lines, prefix removed.
log_lines() {
	tr -d '\r' < "${2:-boot.log}" | sed -n "s/^$1 //p"
}

# try_boot LOG IMAGE "APPEND" [qemu args]: boot; 0 if BOOT-END was reached.
try_boot() {
	log=$1 img=$2 append=$3
	shift 3
	boot_qemu "$log" "$BOOT_TIMEOUT" "$KERNEL" "$img" "$append $BOOT_DRACUT_APPEND" "$@"
}

# checked_boot NAME IMAGE "APPEND" [qemu args]: boot IMAGE into boot.log;
# fail with the log's tail unless the root's init reported; print NAME's
# time to root and the links.
checked_boot() {
	name=$1 img=$2 append=$3
	shift 3
	if ! try_boot boot.log "$img" "$append" "$@"; then
		boot_log_tail boot.log
		atf_fail "guest did not reach BOOT-END (see the log above)"
	fi
	up=$(boot_result_uptime boot.log) || {
		boot_log_tail boot.log
		atf_fail "no 'BOOT-RESULT ok' line"
	}
	echo "$name: BOOT-RESULT at guest uptime ${up}s, wall $(cat boot.log.wall)s"
	echo "$name: links:"
	boot_links boot.log
}

# initdev_boot "APPEND" [qemu args]: checked_boot of the initdev image.
initdev_boot() {
	checked_boot initdev "$INITRD" "$@"
}

fail_with_log() {
	boot_log_tail boot.log
	atf_fail "$1"
}

# boot_selected CASE "CI_CASES": skip CASE unless the selected set of boot
# cases holds it: the kyua/atf variable stacked_set or STACKED_SET ("ci":
# only CI_CASES, as scripts/check runs them; default "all": every case).
boot_selected() {
	set_=${STACKED_SET:-all}
	atf_config_has stacked_set && set_=$(atf_config_get stacked_set)
	[ "$set_" = all ] && return 0
	case " $(echo $2) " in *" $1 "*) return 0 ;; esac
	atf_skip "not in the stacked_set=$set_ cases (stacked_set=all runs every case)"
}

# refused_included LOG: the modules 90initdev (staged) refuses that the
# build whose log is LOG included, space-separated.
refused_included() {
	refused=$(bash -c '. "$1"/module-setup.sh && initdev_conflicting_modules' \
		sh "$INITDEV_MODULE" | tr -s ' ' '\n') || return 1
	[ -n "$refused" ] || return 1
	sed -n 's/.*Including module: \([^ ]*\) .*/\1/p' "$1" |
		while read -r m; do
			printf '%s\n' "$refused" | grep -qx -- "$m" && printf '%s ' "$m"
		done
	return 0
}

# default_images [MODULE...] [-- DRACUT_ARGS...]: dracut's default image
# (a systemd initrd where systemd is installed), stock and with --add
# initdev, with DRACUT_ARGS (--include ...) in both; the initdev build omits
# the modules 90initdev refuses that the stock build includes, as a user
# told so by dracut would. Fails unless both images have systemd-initrd and
# each MODULE, and the second initdev. Sets STOCK_INITRD, INITRD and OMIT
# (after harness_setup and initdev_locate).
default_images() {
	mods=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do mods="$mods $1"; shift; done
	[ $# -gt 0 ] && shift
	STOCK_INITRD=$(boot_cached_initramfs "$cache" "$base" "$KVER" "" "" "$@") ||
		atf_fail "dracut could not build the stock default image"
	OMIT=$(refused_included "$STOCK_INITRD.log") || atf_fail "cannot list 90initdev's refused modules"
	OMIT=${OMIT% }
	INITRD=$(boot_initdev_image "$cache" "$base" ${OMIT:+--omit "$OMIT"} "$@") ||
		atf_fail "dracut could not build the initdev default image"
	for img in "$STOCK_INITRD" "$INITRD"; do
		for m in systemd-initrd $mods; do
			grep -q "Including module: $m " "$img.log" ||
				atf_fail "$img has no $m module: not the default image this test needs (see $img.log)"
		done
	done
	grep -q 'Including module: initdev ' "$INITRD.log" ||
		atf_fail "dracut did not include initdev (see $INITRD.log)"
	echo "stock: image $STOCK_INITRD ($(stat -c %s "$STOCK_INITRD") bytes)"
	echo "initdev: image $INITRD ($(stat -c %s "$INITRD") bytes), the refused modules the stock build includes omitted: ${OMIT:-none}"
}

# ---- stacked roots (stacked_test, trixie_test; stacked-lib.sh loaded) ----

# checked_stacked_boot SCENARIO IMAGE LOG: boot; fail with the log's tail
# unless the root reported, dracut's init.sh switched root and the
# scenario's checks pass. Prints the time to root and the links.
checked_stacked_boot() {
	if ! stacked_boot "$1" "$DISKS" "$2" "$3"; then
		boot_log_tail "$3"
		atf_fail "$1: the guest did not reach BOOT-END (log above)"
	fi
	up=$(boot_result_uptime "$3") || { boot_log_tail "$3"; atf_fail "$1: no BOOT-RESULT line"; }
	echo "$1: root's init at guest uptime ${up}s, wall $(cat "$3.wall")s"
	tr -d '\r' < "$3" | grep -q 'dracut: Switching root' || {
		boot_log_tail "$3"
		atf_fail "$1: dracut's init.sh did not switch root"
	}
	echo "$1: links:"
	stacked_links "$3" | sed 's/^/  /'
	if ! stacked_check "$1" "$3"; then
		boot_log_tail "$3"
		atf_fail "$1: $(tr '\n' ';' < "$3.problems")"
	fi
}

# stacked_initdev_compare SCENARIO STOCK_LOG LOG: fail unless the initdev
# boot in LOG made every link of the stock boot in STOCK_LOG, left the
# same udev database entries and none of stacked_initdev_problems.
stacked_initdev_compare() {
	stacked_compare_links "$2" "$3" ||
		atf_fail "$1: the initdev image's links differ from the stock image's (above)"
	stacked_compare_db "$2" "$3" ||
		atf_fail "$1: the udev database the root finds differs from the stock image's (above)"
	stacked_initdev_problems "$3" > "$3.initdev-problems"
	[ ! -s "$3.initdev-problems" ] || atf_fail "$1: $(tr '\n' ';' < "$3.initdev-problems")"
}
