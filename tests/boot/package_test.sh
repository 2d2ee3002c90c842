#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The Debian package, as a user gets it: scripts/package builds
# initdev_VERSION_ARCH.deb from the release tarball (lintian clean); it
# holds what make install installs, with the right Depends; dpkg installs
# it into a throwaway root (dpkg --root: the host's package database and
# /usr are never touched, and dpkg's own unpack, file list and purge are
# what is tested); dracut, with the module set README.md shows and that
# root's files, builds an image that boots under QEMU; dpkg --purge leaves
# nothing behind.
#
# Inputs: the staged install (INITDEV_STAGE_ENV or the kyua variable
# stage_env, as initdev_test), for the source tree and the file list to
# compare with. While developing:
#   make -C BUILD stage && cd "$(mktemp -d)" && INITDEV_STAGE_ENV=BUILD/stage.env \
#     atf-sh /work/main/tests/boot/package_test.sh -s /work/main/tests/boot deb

# The image as README.md tells users to build it (every storage driver,
# through kernel-modules), not the test's usual minimal module set.
README_MODULES="base rootfs-block kernel-modules initdev"
ROOT_UUID=0d3b1a2c-5e6f-4a70-8b9c-0d1e2f3a4b5c
ROOT_LABEL=debroot
BOOT_TIMEOUT=150

# Next to this program (atf_get_srcdir is not known yet at this point).
# shellcheck source=tests/boot/initdev-lib.sh
. "$(dirname "$0")/initdev-lib.sh"

# staged_files: make install's files, with the configured prefix written
# /usr (the package's), sorted.
staged_files() {
	(cd "$INITDEV_STAGE" && find . ! -type d | sed 's|^\.||') |
		awk -v p="$INITDEV_PREFIX" 'index($0, p "/") == 1 { $0 = "/usr" substr($0, length(p) + 1) } { print }' |
		LC_ALL=C sort
}

# deb_files DEB: the package's files (not directories), .gz dropped (dh
# compresses manual pages and long documents), without the three files
# every Debian package adds (changelog, copyright, lintian overrides).
deb_files() {
	dpkg-deb --fsys-tarfile "$1" | tar -t | grep -v '/$' | sed 's|^\./|/|; s|\.gz$||' |
		grep -Ev '^/usr/share/doc/initdev/(changelog|copyright)$|^/usr/share/lintian/overrides/initdev$' |
		LC_ALL=C sort
}

# expect_depends DEB: Depends names libc6 (shlibs), libblkid1 and libkmod2
# (dlopen()ed: no ELF dependency shows them) and dracut.
expect_depends() {
	dep=$(dpkg-deb -f "$1" Depends)
	echo "package: Depends: $dep"
	for want in 'libblkid1 (>= ' 'libc6 (>= ' 'libkmod2 (>= 25)' 'dracut-core | dracut'; do
		case ", $dep," in
		*", $want"*) ;;
		*) atf_fail "Depends lacks '$want': $dep" ;;
		esac
	done
}

# dpkg_root ARGS...: dpkg on the throwaway root ./root. --force-depends:
# that root has no libc or dracut of its own (the image is built with the
# host's dracut, as on a real system with those installed).
dpkg_root() {
	dpkg --root="$PWD/root" --force-depends --log="$PWD/dpkg.log" "$@"
}

atf_test_case deb
deb_head() {
	atf_set descr "scripts/package: a lintian-clean .deb with make install's files and Depends; installed with dpkg into a throwaway root, README's dracut -m ... initdev from it boots; purge leaves nothing"
	atf_set require.user root
	atf_set require.progs "qemu-system-x86_64 dracut mkfs.ext4 timeout cpio sha256sum dpkg dpkg-deb dpkg-buildpackage dh lintian"
	atf_set timeout 900
}
deb_body() {
	initdev_locate
	t_pkg=$(date +%s)
	if ! PACKAGE_DIR=$PWD/pkg "$INITDEV_SRCDIR/scripts/package" > package.log 2>&1; then
		tail -n 60 package.log
		atf_fail "scripts/package failed (above)"
	fi
	deb=$(tail -n 1 package.log)
	echo "package: built in $(($(date +%s) - t_pkg))s: $deb"
	grep '^  lintian: ' package.log || echo "package: lintian said nothing"
	[ "$deb" = "$PWD/pkg/initdev_${INITDEV_VERSION}_$(dpkg --print-architecture).deb" ] ||
		atf_fail "scripts/package made '$deb', expected initdev_${INITDEV_VERSION}_ARCH.deb"
	[ "$(dpkg-deb -f "$deb" Version)" = "$INITDEV_VERSION" ] || atf_fail "package version differs from $INITDEV_VERSION"
	expect_depends "$deb"

	staged_files > staged.list
	deb_files "$deb" > deb.list
	if ! diff -u staged.list deb.list; then
		atf_fail "the package's files differ from make install's ('-' make install only, '+' package only)"
	fi
	mkdir -p root/var/lib/dpkg/info root/var/lib/dpkg/updates
	: > root/var/lib/dpkg/status
	dpkg_root -i "$deb" > dpkg-install.log 2>&1 || { cat dpkg-install.log; atf_fail "dpkg -i into the throwaway root failed"; }
	dpkg_root -s initdev | grep -qx 'Status: install ok installed' ||
		atf_fail "dpkg does not list initdev as installed in the throwaway root"
	grep -qx 'ExecStart=/usr/sbin/initdev adopt -- /lib/systemd/systemd-udevd' \
		root/usr/share/initdev/real-root/systemd-udevd.service.d/initdev-adopt.conf ||
		atf_fail "the packaged drop-in does not start /usr/sbin/initdev"

	harness_setup
	INITDEV_BIN=$PWD/root/usr/sbin/initdev
	INITDEV_MODULE=$PWD/root/usr/lib/dracut/modules.d/90initdev
	itree=$(boot_initdev_tree "$cache" "$base") || atf_fail "cannot make the dracut tree with the package's module"
	INITDEV_BINARY=$itree/initdev-test/initdev
	export INITDEV_BINARY
	INITRD=$(boot_cached_initramfs "$cache" "$itree" "$KVER" "$README_MODULES" "" \
		--include "$itree/initdev-test/status-hook.sh" \
		/lib/dracut/hooks/pre-pivot/98-initdev-test-status.sh) ||
		atf_fail "dracut -m \"$README_MODULES\" could not build the image from the package's files"
	grep -q 'Including module: initdev ' "$INITRD.log" || atf_fail "dracut did not include initdev (see $INITRD.log)"
	echo "package: image $INITRD ($(stat -c %s "$INITRD") bytes)"
	boot_make_rootfs staging || atf_fail "cannot make the root tree"
	boot_write_report_init staging || atf_fail "cannot write the reporting init"
	boot_make_ext4 root.ext4 32 staging "$ROOT_UUID" "$ROOT_LABEL" || atf_fail "cannot make root.ext4"
	initdev_boot "root=UUID=$ROOT_UUID" -drive file=root.ext4,if=virtio,format=raw
	boot_has_link boot.log "by-uuid/$ROOT_UUID" /dev/vda || fail_with_log "no by-uuid link to the root"
	log_lines INITDEV-STATUS | grep -q '^phase: settled' ||
		fail_with_log "initdev from the package was not settled at pre-pivot"
	log_lines INITDEV-PROC | grep -q ' @initdev-holder ' ||
		fail_with_log "no handoff holder after switch_root"

	dpkg_root --purge initdev > dpkg-purge.log 2>&1 || { cat dpkg-purge.log; atf_fail "dpkg --purge failed"; }
	left=$(cd root && find . ! -type d ! -path './var/lib/dpkg/*' ! -path './var/log/*')
	[ -z "$left" ] || atf_fail "dpkg --purge left files behind: $left"
	left=$(cd root && find usr -mindepth 1 -type d 2> /dev/null)
	[ -z "$left" ] || atf_fail "dpkg --purge left directories behind: $left"
}

atf_init_test_cases() {
	atf_add_test_case deb
}
