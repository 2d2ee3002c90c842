#!/bin/sh
# SPDX-License-Identifier: MIT
# emergency hook (sourced by dracut's emergency_shell, with or without a
# shell): if the root device never appeared, say which root= was waited for
# and list every block device initdev saw, with its TYPE, UUID, LABEL,
# PARTUUID and PARTLABEL, so the person at the console sees at once whether
# the disk is missing (driver, cabling) or carries another name.
# Sourced: no exit, variables prefixed. Once per boot: dracut may source
# the emergency hooks again on its way down (a failed halt, say).

_initdev_root=$(getarg root=)
_initdev_root=${_initdev_root#block:}
[ -e /tmp/initdev-emergency.txt ] && _initdev_root=
case "$_initdev_root" in
    UUID=* | LABEL=* | PARTUUID=* | PARTLABEL=* | /dev/*)
        # --timeout 0: a look, no wait; exit 0 if it is there after all
        if ! initdev wait --timeout 0 "$_initdev_root" > /dev/null 2> /tmp/initdev-emergency.txt; then
            warn "initdev: root device root=$_initdev_root was never found"
            while read -r _initdev_line; do
                warn "$_initdev_line"
            done < /tmp/initdev-emergency.txt
        fi
        ;;
esac
unset _initdev_root _initdev_line
