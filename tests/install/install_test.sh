#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# What `make install` installs, checked on the staged install `make stage`
# made (make check passes its stage.env as the kyua variable stage_env; by
# hand: INITDEV_STAGE_ENV=BUILD/stage.env). The boot tests build their
# images from the same files, so anything missing here breaks them too;
# these cases say which file without booting anything.

# load_stage: the stage's variables and INITDEV_BIN/MODULE/REALROOT.
load_stage() {
	# shellcheck source=tests/boot/lib.sh
	. "$(atf_get_srcdir)/../boot/lib.sh"
	env_file=${INITDEV_STAGE_ENV:-}
	atf_config_has stage_env && env_file=$(atf_config_get stage_env)
	[ -n "$env_file" ] ||
		atf_fail "no staged install: run make check, or make stage and set INITDEV_STAGE_ENV=BUILD/stage.env"
	boot_load_stage "$env_file" || atf_fail "the staged install at $env_file is incomplete"
}

# fake_dracut MODDIR: run MODDIR/module-setup.sh's check, depends and
# install the way dracut does (sourced by bash, dracut's globals set),
# with dracut's inst_* helpers replaced by stubs that record each file the
# module takes from its own directory (used.list, one path a line).
fake_dracut() {
	cat > fake-dracut.sh <<'EOF'
moddir=$1
initdir=$PWD/initdir
systemdutildir=/lib/systemd
udevdir=/lib/udev
dracutsysrootdir=
dracutmodules=initdev add_dracutmodules= force_add_dracutmodules= mods_to_load=
INITDEV_BINARY=/bin/sh
: > used.list
mkdir -p "$initdir"
derror() { echo "derror: $*" >&2; }
dfatal() { echo "dfatal: $*" >&2; }
dwarn() { echo "dwarn: $*" >&2; }
dinfo() { :; }
ddebug() { :; }
dracut_module_included() { return 1; }
record() { case $1 in "$moddir"/*) echo "$1" >> used.list ;; esac; }
inst_hook() { record "$3"; }
inst_simple() { record "$1"; }
inst_script() { record "$1"; }
inst() { record "$1"; }
inst_binary() { record "$1"; }
inst_multiple() { for f in "$@"; do record "$f"; done; }
inst_rules() { :; }
inst_dir() { :; }
inst_libdir_file() { :; }
ln_r() { :; }
. "$moddir/module-setup.sh" || exit 1
check
rc=$?
[ $rc -eq 255 ] || { echo "check returned $rc, expected 255 (only when asked for)" >&2; exit 1; }
[ "$(depends)" = base ] || { echo "depends: '$(depends)'" >&2; exit 1; }
install
EOF
	bash fake-dracut.sh "$1"
}

# missing_used: the recorded files that do not exist (none: empty output).
missing_used() {
	while read -r f; do
		[ -f "$f" ] || echo "$f"
	done < used.list
}

atf_test_case module_complete
module_complete_head() {
	atf_set descr "the installed 90initdev holds every file its module-setup.sh installs, and every file of dracut-module/90initdev"
	atf_set require.progs "bash"
}
module_complete_body() {
	load_stage
	fake_dracut "$INITDEV_MODULE" > fake.log 2>&1 || { cat fake.log; atf_fail "module-setup.sh failed under the fake dracut"; }
	[ -s used.list ] || atf_fail "module-setup.sh installed no file of its own directory (the stubs miss a helper?)"
	grep -qx "$INITDEV_MODULE/initdev-emergency.sh" used.list ||
		atf_fail "the emergency hook was not installed: $(cat used.list)"
	missing=$(missing_used)
	[ -z "$missing" ] || atf_fail "module-setup.sh installs files make install left out: $missing"
	# every file of the source module, under its installed name
	(cd "$INITDEV_SRCDIR/dracut-module/90initdev" && find . -type f | sed 's/\.in$//' | LC_ALL=C sort -u) > src.list
	(cd "$INITDEV_MODULE" && find . -type f | LC_ALL=C sort) > staged.list
	diff -u src.list staged.list || atf_fail "source module and installed module differ (above)"
	[ -x "$INITDEV_MODULE/module-setup.sh" ] || atf_fail "module-setup.sh is not executable"
}

atf_test_case module_incomplete_noticed
module_incomplete_noticed_head() {
	atf_set descr "the check above fails for a module that lacks its emergency hook (the check can fail)"
	atf_set require.progs "bash"
}
module_incomplete_noticed_body() {
	load_stage
	cp -R "$INITDEV_MODULE" broken
	rm broken/initdev-emergency.sh
	fake_dracut "$PWD/broken" > fake.log 2>&1 || { cat fake.log; atf_fail "module-setup.sh failed under the fake dracut"; }
	[ "$(missing_used)" = "$PWD/broken/initdev-emergency.sh" ] ||
		atf_fail "a missing emergency hook went unnoticed: '$(missing_used)'"
}

atf_test_case layout
layout_head() {
	atf_set descr "make install puts the binary, the manual page, the module, the real-root files and the docs where README.md says"
}
layout_body() {
	load_stage
	s=$INITDEV_STAGE
	[ -x "$INITDEV_BIN" ] || atf_fail "no executable $INITDEV_SBINDIR/initdev"
	"$INITDEV_BIN" --version > version.out 2>&1 || { cat version.out; atf_fail "the installed binary does not run"; }
	grep -qF "$INITDEV_VERSION" version.out || atf_fail "initdev --version: '$(cat version.out)', not $INITDEV_VERSION"
	for f in "$INITDEV_MANDIR/man8/initdev.8" \
		"$INITDEV_DRACUTMODULESDIR/90initdev/module-setup.sh" \
		"$INITDEV_DRACUTMODULESDIR/90initdev/initdev-emergency.sh" \
		"$INITDEV_PKGDATADIR/real-root/systemd-udevd.service.d/initdev-adopt.conf" \
		"$INITDEV_PKGDATADIR/real-root/udev-init.d.patch" \
		"$INITDEV_DOCDIR/README.md" "$INITDEV_DOCDIR/docs/handoff.md" \
		"$INITDEV_DOCDIR/dracut-module/README.md"; do
		[ -f "$s$f" ] || atf_fail "make install did not install $f"
	done
	# nothing enabled: the drop-in is only offered (README, "Installing")
	if find "$s" -path '*/systemd/system/*' | grep .; then
		atf_fail "make install put files into a systemd unit directory (above)"
	fi
}

atf_test_case configured_paths
configured_paths_head() {
	atf_set descr "the installed drop-in, init-script patch and module name the configured sbindir, no placeholder is left"
}
configured_paths_body() {
	load_stage
	r=$INITDEV_REALROOT
	grep -qx "ExecStart=$INITDEV_SBINDIR/initdev adopt -- /lib/systemd/systemd-udevd" \
		"$r/systemd-udevd.service.d/initdev-adopt.conf" ||
		atf_fail "the drop-in's ExecStart does not name $INITDEV_SBINDIR/initdev"
	grep -qx 'ExecStart=' "$r/systemd-udevd.service.d/initdev-adopt.conf" ||
		atf_fail "the drop-in does not reset ExecStart"
	grep -qF "$INITDEV_PKGDATADIR/real-root/systemd-udevd.service.d/initdev-adopt.conf" \
		"$r/systemd-udevd.service.d/initdev-adopt.conf" ||
		atf_fail "the drop-in's enabling command does not name its installed path"
	grep -qF "if ! $INITDEV_SBINDIR/initdev adopt -- \$DAEMON --daemon; then" "$r/udev-init.d.patch" ||
		atf_fail "the init-script patch does not name $INITDEV_SBINDIR/initdev"
	grep -qF "for _b in $INITDEV_SBINDIR/initdev " "$INITDEV_MODULE/module-setup.sh" ||
		atf_fail "module-setup.sh does not look for $INITDEV_SBINDIR/initdev first"
	if grep -n '@[a-z_]*@' "$r/udev-init.d.patch" "$r/systemd-udevd.service.d/initdev-adopt.conf" \
		"$INITDEV_MODULE/module-setup.sh"; then
		atf_fail "placeholders left in installed files (above)"
	fi
}

# configure_in DIR ARGS...: configure (the tree's own script) in DIR with
# no dracut.pc in reach (PKG_CONFIG_LIBDIR empty, libkmod and libblkid
# given by hand) unless PC_DIR names a dir with one; output in DIR/out.
configure_in() {
	d=$1
	shift
	mkdir -p "$d" empty-pc
	(cd "$d" && PKG_CONFIG_LIBDIR=${PC_DIR:-$PWD/../empty-pc} PKG_CONFIG_PATH='' \
		KMOD_CFLAGS=' ' KMOD_LIBS=-lkmod BLKID_CFLAGS=' ' BLKID_LIBS=-lblkid \
		"$INITDEV_SRCDIR/configure" "$@" > out 2>&1)
}

# expect_modulesdir DIR WANT: DIR's Makefile puts the module in WANT, and
# configure said so.
expect_modulesdir() {
	got=$(sed -n 's/^dracutmodulesdir = //p' "$1/Makefile")
	[ "$got" = "$2" ] || { cat "$1/out"; atf_fail "$1: dracutmodulesdir '$got', expected '$2'"; }
	grep -qF "the dracut module in:     $2/90initdev" "$1/out" ||
		{ cat "$1/out"; atf_fail "$1: configure did not say where the module goes"; }
	grep -qF -- "--with-dracutmodulesdir=DIR" "$1/out" ||
		atf_fail "$1: configure did not say how to change it"
}

atf_test_case configure_modulesdir
configure_modulesdir_head() {
	atf_set descr "configure puts the module where dracut looks, with and without dracut.pc, for /usr and /usr/local, and says where"
	atf_set require.progs "make"
	atf_set timeout 180
}
configure_modulesdir_body() {
	load_stage
	# no dracut.pc (a dracut built without one): dracut's own default
	configure_in local --prefix=/usr/local || { cat local/out; atf_fail "configure failed"; }
	expect_modulesdir local /usr/lib/dracut/modules.d
	grep -q 'from dracut.s default: no dracut.pc found' local/out ||
		atf_fail "configure did not say it found no dracut.pc"
	# make install DESTDIR=: the module's files land under DESTDIR where dracut looks
	make -C local -s install-initdevdracutSCRIPTS install-dist_initdevdracutSCRIPTS \
		DESTDIR="$PWD/dest" > make.out 2>&1 || { cat make.out; atf_fail "make install of the module failed"; }
	for f in module-setup.sh initdev-emergency.sh; do
		[ -f "dest/usr/lib/dracut/modules.d/90initdev/$f" ] ||
			atf_fail "DESTDIR install lacks usr/lib/dracut/modules.d/90initdev/$f"
	done
	grep -qF 'for _b in /usr/local/sbin/initdev ' dest/usr/lib/dracut/modules.d/90initdev/module-setup.sh ||
		atf_fail "the module does not look for /usr/local/sbin/initdev first"
	configure_in usr --prefix=/usr || { cat usr/out; atf_fail "configure --prefix=/usr failed"; }
	expect_modulesdir usr /usr/lib/dracut/modules.d
	# dracut.pc says where
	mkdir pc
	printf 'Name: dracut\nDescription: dracut\nVersion: 059\ndracutmodulesdir=/opt/dracut/modules.d\n' > pc/dracut.pc
	PC_DIR=$PWD/pc configure_in withpc --prefix=/usr || { cat withpc/out; atf_fail "configure with dracut.pc failed"; }
	expect_modulesdir withpc /opt/dracut/modules.d
	grep -q '(from dracut.pc)' withpc/out || atf_fail "configure did not name dracut.pc as the source"
	# given by hand
	configure_in given --with-dracutmodulesdir=/srv/dracut/modules.d || atf_fail "configure --with-dracutmodulesdir failed"
	expect_modulesdir given /srv/dracut/modules.d
	# a relative directory is refused, with the reason
	if configure_in relative --with-dracutmodulesdir=modules.d; then
		atf_fail "configure accepted a relative --with-dracutmodulesdir"
	fi
	grep -q 'modules.d: not an absolute path' relative/out ||
		{ cat relative/out; atf_fail "configure did not say why it refused modules.d"; }
}

atf_init_test_cases() {
	atf_add_test_case module_complete
	atf_add_test_case module_incomplete_noticed
	atf_add_test_case layout
	atf_add_test_case configured_paths
	atf_add_test_case configure_modulesdir
}
