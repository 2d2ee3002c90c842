#!/bin/bash
# SPDX-License-Identifier: MIT
# dracut module: initdev, not systemd-udevd, populates /dev, loads modules
# and finds the root device, under dracut's own non-systemd init (99base's
# init.sh, unmodified). See dracut-module/README.md.
#
# How: the initdev binary answers to the names `systemd-udevd` and `udevadm`
# (argv[0] dispatch). This module runs before 95udev-rules (install order is
# lexical) and puts those two names in the image as symlinks to initdev;
# dracut's inst_* helpers skip files that already exist, so 95udev-rules,
# which 99base depends on, then leaves the real udevd and udevadm out.
#
# dracut's globals (initdir, moddir, mods_to_load, systemdutildir, ...) are
# set by the dracut process that sources this file.
# shellcheck disable=SC2154

# Modules that rely on udev rules (RUN+=, IMPORT{program}, rules written at
# boot by their cmdline hooks) or on a udev database that initdev does not
# keep. With initdev they would boot without their effect or wait in the
# initqueue until rd.retry runs out, so the build is refused instead.
# Keep this list and the one in README.md in sync.
initdev_conflicting_modules() {
    # device stacking: dm, LUKS, LVM, MD and BIOS RAID, multipath, btrfs scan
    echo crypt crypt-gpg crypt-loop dm dmraid lvm mdraid multipath btrfs
    # network and network storage (ifup from net rules, NM needs udev's db)
    echo network network-legacy network-manager network-wicked \
        nvmf iscsi nbd nfs cifs fcoe fcoe-uefi livenet
    # live media, hibernation resume, LUN masking, CD polling (udevadm --path)
    echo dmsquash-live dmsquash-live-ntfs dmsquash-live-autooverlay \
        resume lunmask pollcdrom
    # console, splash and input set up from rules or via libudev
    echo i18n console-setup plymouth bluetooth biosdevname
    # s390 device configuration rules
    echo dasd dasd_rules zfcp zfcp_rules qeth_rules zipl ccw
    # systemd as the initramfs init: its udev is a unit, not init.sh's
    echo systemd systemd-initrd systemd-udevd dracut-systemd
}

# initdev_conflicts_in " LIST ": the conflicting modules named in LIST.
initdev_conflicts_in() {
    local _m _found=
    for _m in $(initdev_conflicting_modules); do
        [[ $1 == *" $_m "* ]] && _found+=" $_m"
    done
    echo "${_found# }"
}

# initdev_conflicts_included: the conflicting modules in this image, by
# dracut's own test (complete once modules are being installed).
initdev_conflicts_included() {
    local _m _found=
    for _m in $(initdev_conflicting_modules); do
        dracut_module_included "$_m" && _found+=" $_m"
    done
    echo "${_found# }"
}

initdev_refuse() {
    derror "dracut module 'initdev' cannot be combined with: $1"
    derror "initdev runs no udev rules and keeps no udev database, which these modules need;"
    derror "omit them (--omit \"$1\") or build without initdev (see initdev's dracut-module/README.md)"
}

# Explicitly asked for (-m, --add, --force-add, add_dracutmodules+=)?
initdev_requested() {
    [[ " $dracutmodules $add_dracutmodules $force_add_dracutmodules " == *" initdev "* ]]
}

# initdev_binary: the host binary to install: $INITDEV_BINARY if set (used
# as given, never replaced by another), else initdev in dracut's PATH, else
# make install's default prefix.
initdev_binary() {
    local _b
    if [[ ${INITDEV_BINARY-} ]]; then
        [[ -f $INITDEV_BINARY && -x $INITDEV_BINARY ]] || return 1
        echo "$INITDEV_BINARY"
        return 0
    fi
    for _b in "$(command -v initdev)" /usr/local/sbin/initdev /usr/sbin/initdev /sbin/initdev; do
        [[ $_b == /* && -f $dracutsysrootdir$_b && -x $dracutsysrootdir$_b ]] || continue
        echo "$_b"
        return 0
    done
    return 1
}

# called by dracut
check() {
    local _c
    # Opt-in only: in dracut's default "all modules" mode a module whose
    # check returns 0 is included on its own, and would silently replace
    # udev in every image once installed. 255 = only when asked for.
    initdev_requested || return 255
    if ! initdev_binary > /dev/null; then
        derror "dracut module 'initdev': no initdev binary (INITDEV_BINARY='${INITDEV_BINARY-}', PATH, /usr/local/sbin)"
        return 1
    fi
    # Only the modules resolved so far (lexically before 90initdev) and
    # those asked for are known here; install() sees the complete list.
    _c=$(initdev_conflicts_in " $mods_to_load $dracutmodules $add_dracutmodules $force_add_dracutmodules ")
    if [[ $_c ]]; then
        initdev_refuse "$_c"
        return 1
    fi
    return 255
}

# called by dracut
depends() {
    # 99base's init.sh is the init this module serves; it brings udev-rules.
    echo base
}

# called by dracut
installkernel() {
    # Drivers come from --add-drivers or the kernel-modules module.
    return 0
}

# initdev_link IMAGE_PATH: IMAGE_PATH becomes a symlink to the installed
# initdev, unless something already sits there.
initdev_link() {
    [[ -e $initdir$1 || -L $initdir$1 ]] && return 0
    mkdir -p "$initdir${1%/*}" || return 1
    ln_r /usr/sbin/initdev "$1"
}

# initdev_udevadm_paths: where 95udev-rules' `inst_multiple udevadm` may put
# udevadm: every directory of dracut's PATH holding one on the host (the
# same search dracut-install makes), /usr/bin/udevadm if none does.
initdev_udevadm_paths() {
    local _d _found=
    for _d in ${DRACUT_PATH:-/sbin /bin /usr/sbin /usr/bin}; do
        [[ -e $dracutsysrootdir$_d/udevadm || -L $dracutsysrootdir$_d/udevadm ]] || continue
        echo "$_d/udevadm"
        _found=1
    done
    [[ $_found ]] || echo /usr/bin/udevadm
}

# initdev_udevd_paths: init.sh's "$systemdutildir/systemd-udevd", plus every
# other udevd 95udev-rules would copy in when the host has one.
initdev_udevd_paths() {
    local _p
    echo "$systemdutildir/systemd-udevd"
    for _p in "$udevdir/udevd" /sbin/udevd; do
        [[ -e $dracutsysrootdir$_p || -L $dracutsysrootdir$_p ]] && echo "$_p"
    done
}

# initdev_skip_udev_payload: keep udev's rules and helper programs (ata_id,
# scsi_id, ...) out of the image; initdev reads no rules and runs no helper.
# dracut calls every install() in one shell with $moddir set to the module
# being installed, so these wrappers drop only 95udev-rules' calls; every
# other module gets the original functions. If dracut ever renames them,
# nothing is wrapped and the (unused) files simply stay in the image.
initdev_skip_udev_payload() {
    declare -F inst_rules > /dev/null || return 0
    declare -F inst_multiple > /dev/null || return 0
    declare -F initdev_orig_inst_rules > /dev/null && return 0
    eval "initdev_orig_inst_rules() $(declare -f inst_rules | tail -n +2)"
    eval "initdev_orig_inst_multiple() $(declare -f inst_multiple | tail -n +2)"
    # shellcheck disable=SC2317 # called by dracut, not here
    inst_rules() {
        if [[ ${moddir##*/} == [0-9][0-9]udev-rules ]]; then
            ddebug "initdev: not installing udev rules: $*"
            return 0
        fi
        initdev_orig_inst_rules "$@"
    }
    # shellcheck disable=SC2317
    inst_multiple() {
        local _a
        local -a _keep=()
        if [[ ${moddir##*/} != [0-9][0-9]udev-rules ]]; then
            initdev_orig_inst_multiple "$@"
            return
        fi
        for _a in "$@"; do
            [[ $_a == "$udevdir"/* ]] && continue
            _keep+=("$_a")
        done
        [[ ${#_keep[@]} -eq 0 || ${_keep[*]} == "-o" ]] && return 0
        initdev_orig_inst_multiple "${_keep[@]}"
    }
}

# called by dracut
install() {
    local _bin _c _p
    # check() could not see modules sorted after 90initdev; now all are known.
    # dracut ignores install()'s status, so refusing means exiting.
    _c=$(initdev_conflicts_included)
    if [[ $_c ]]; then
        initdev_refuse "$_c"
        exit 1
    fi
    if ! _bin=$(initdev_binary); then
        dfatal "dracut module 'initdev': no initdev binary to install"
        exit 1
    fi
    if ! inst_binary "$_bin" /usr/sbin/initdev; then
        dfatal "dracut module 'initdev': cannot install $_bin"
        exit 1
    fi
    # dlopen()ed by initdev, so no ELF dependency dracut-install could follow.
    inst_libdir_file "libkmod.so.2*" || dwarn "initdev: libkmod.so.2 not found: no module loading"
    inst_libdir_file "libblkid.so.1*" || dwarn "initdev: libblkid.so.1 not found: no /dev/disk/by-uuid links"

    for _p in $(initdev_udevd_paths) $(initdev_udevadm_paths); do
        if ! initdev_link "$_p"; then
            dfatal "dracut module 'initdev': cannot link $_p to initdev"
            exit 1
        fi
    done
    # rootfs-block's pre-udev hook appends to /etc/udev/rules.d/99-root.rules.
    inst_dir /etc/udev/rules.d
    # on a root that never appears: name it and list the devices seen
    inst_hook emergency 50 "$moddir/initdev-emergency.sh"
    # optional node permissions (initdev(8), FILES)
    inst_multiple -o /etc/initdev/rules
    initdev_skip_udev_payload
}
