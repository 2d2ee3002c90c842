#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# The populator against the real kernel, on harmless virtual devices only:
# /dev is a private tmpfs, nodes are made with mknod, coldplug is limited
# to /sys/devices/virtual/mem (and tty for the overflow burst).

. "$(dirname "$0")/../host-lib.sh"

# check_node NAME: type, major:minor and mode as the kernel announces them
check_node() {
	sys=/sys/devices/virtual/mem/$1
	want_dev=$(cat "$sys/dev")
	want_mode=$(sed -n 's/^DEVMODE=//p' "$sys/uevent")
	[ -n "$want_mode" ] || want_mode=0600
	[ -c "dev/$1" ] || atf_fail "dev/$1 is not a character device"
	got=$(stat -c '%t %T %a' "dev/$1")
	set -- $got
	got_dev=$(printf '%d:%d' "0x$1" "0x$2")
	[ "$got_dev" = "$want_dev" ] || atf_fail "$sys: device $got_dev, kernel says $want_dev"
	[ "$(printf '%o' "0$want_mode")" = "$3" ] || atf_fail "$sys: mode $3, kernel says $want_mode"
}

mem_devices() { ls /sys/devices/virtual/mem; }

atf_test_case coldplug_mem cleanup
coldplug_mem_head() {
	atf_set descr "initdev coldplug creates every mem node with the kernel's type, number and mode"
	atf_set require.user root
}
coldplug_mem_body() {
	setup_root
	atf_check -s exit:0 -e ignore $ID coldplug --no-devtmpfs \
		--subtree /devices/virtual/mem --timeout 30
	for n in $(mem_devices); do
		check_node "$n"
		[ "$(readlink "dev/char/$(cat /sys/devices/virtual/mem/$n/dev)")" = "../$n" ] ||
			atf_fail "dev/char link for $n wrong"
	done
	[ ! -e run/pid ] || atf_fail "coldplug left its pid file"
}
coldplug_mem_cleanup() { cleanup_root; }

atf_test_case daemon_settle_status_exit cleanup
daemon_settle_status_exit_head() {
	atf_set descr "daemon returns once running; settle 0; status counts match; exit leaves nothing"
	atf_set require.user root
	atf_set require.progs jq
}
daemon_settle_status_exit_body() {
	setup_root
	echo 'SUBSYSTEM=="mem", KERNEL=="null", OWNER="root", GROUP="root", MODE="0606"' \
		> udev-rules/50-test.rules
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs \
		--subtree /devices/virtual/mem
	pid=$(cat run/pid)
	kill -0 "$pid" || atf_fail "daemon not running"
	[ "$(stat -c %a run)" = 700 ] || atf_fail "run dir not 0700"
	atf_check -s exit:0 $ID settle --timeout 30
	n=$(mem_devices | wc -l)
	# (>= n: other events of this host, a loop device say, may add nodes)
	$ID status --json > status.json || atf_fail "status failed"
	jq -e ".devices.nodes >= $n and .devices.triggers == $n and .settled == \"yes\"
		and .devices.awaiting_reply == 0 and .events.accepted >= $n
		and .events.rejected == 0" status.json >/dev/null ||
		atf_fail "status does not match: $(cat status.json)"
	[ "$(stat -c %a dev/null)" = 606 ] || atf_fail "rule not applied to dev/null"
	atf_check -s exit:0 -o match:'^phase: settled' $ID status
	atf_check -s exit:0 $ID exit
	kill -0 "$pid" 2>/dev/null && atf_fail "daemon $pid still alive after exit"
	[ ! -e run/control ] || atf_fail "control socket left behind"
	true
}
daemon_settle_status_exit_cleanup() { cleanup_root; }

atf_test_case forged_add_creates_nothing cleanup
forged_add_creates_nothing_head() {
	atf_set descr "a forged add from user space while the daemon runs creates nothing"
	atf_set require.user root
	atf_set require.progs jq
}
forged_add_creates_nothing_body() {
	setup_root
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --no-coldplug
	"$(atf_get_srcdir)/../uevent-forge" --devpath /devices/virtual/block/forged0 \
		--devname forged0 >/dev/null || atf_fail "forge"
	"$(atf_get_srcdir)/../uevent-forge" --devpath /devices/virtual/block/forged1 \
		--devname forged1 --creds 1:0 >/dev/null || atf_fail "forge"
	# a real event after the forgeries: once it is handled, they were judged
	echo change > /sys/devices/virtual/mem/null/uevent
	atf_check -s exit:0 $ID settle --timeout 30
	i=0
	while ! [ -c dev/null ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -c dev/null ] || atf_fail "the real event was not handled"
	[ ! -e dev/forged0 ] && [ ! -e dev/forged1 ] && [ ! -e dev/block/7:250 ] ||
		atf_fail "a forged event created a node"
	$ID status --json | jq -e '.events["foreign-port"] == 2' >/dev/null ||
		atf_fail "forgeries not counted"
	atf_check -s exit:0 $ID exit
}
forged_add_creates_nothing_cleanup() { cleanup_root; }

atf_test_case overflow_recovery cleanup
overflow_recovery_head() {
	atf_set descr "events lost to a tiny receive buffer are recovered by a rescan"
	atf_set require.user root
	atf_set require.progs jq
}
overflow_recovery_body() {
	setup_root
	# the smallest buffer the kernel allows, and every trigger written at
	# once: the burst of replies cannot fit, the kernel drops events
	$ID daemon --foreground --no-devtmpfs --rcvbuf 1 --test-unpaced \
		--subtree /devices/virtual/mem --subtree /devices/virtual/tty 2>err &
	i=0
	while [ ! -S run/control ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	atf_check -s exit:0 $ID settle --timeout 60
	$ID status --json > status.json
	jq -e '.events.overflows >= 1 and .events.rescans >= 1' status.json >/dev/null ||
		atf_fail "no overflow happened, the test proves nothing: $(cat status.json)"
	for d in /sys/devices/virtual/mem/* /sys/devices/virtual/tty/*; do
		name=$(sed -n 's/^DEVNAME=//p' "$d/uevent")
		[ -n "$name" ] || continue
		[ -c "dev/$name" ] || atf_fail "dev/$name missing after recovery"
	done
	grep -q 'events were lost' err || atf_fail "loss not logged"
	atf_check -s exit:0 $ID exit
}
overflow_recovery_cleanup() { cleanup_root; }

atf_test_case control_refuses_non_root cleanup
control_refuses_non_root_head() {
	atf_set descr "the control socket refuses a non-root peer even when it can reach it"
	atf_set require.user root
	atf_set require.progs setpriv
}
control_refuses_non_root_body() {
	setup_root
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --no-coldplug
	chmod 755 run && chmod 777 run/control
	atf_check -s exit:1 -e match:'permission denied: uid 65534' \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$(bin)" \
		--run "$PWD/run" status
	atf_check -s exit:0 -o ignore $ID status
	atf_check -s exit:0 $ID exit
}
control_refuses_non_root_cleanup() { cleanup_root; }

atf_test_case hostile_cmdline cleanup
hostile_cmdline_head() {
	atf_set descr "bad rd.initdev values are warned about and the defaults kept"
	atf_set require.user root
}
hostile_cmdline_body() {
	setup_root
	printf 'quiet rd.initdev.timeout=12x rd.initdev.workers=-3 rd.initdev.bogus=1 modprobe.blacklist=../evil\n' > cmdline
	atf_check -s exit:0 -e save:err $ID coldplug --no-devtmpfs \
		--subtree /devices/virtual/mem
	grep -q 'rd.initdev.timeout' err || atf_fail "bad timeout not reported: $(cat err)"
	grep -q 'rd.initdev.bogus' err || atf_fail "unknown key not reported"
	[ -c dev/null ] || atf_fail "coldplug did not run"
}
hostile_cmdline_cleanup() { cleanup_root; }

atf_test_case wait_cmdline_timeout cleanup
wait_cmdline_timeout_head() {
	atf_set descr "initdev wait without --timeout gives up after rd.initdev.timeout, with and without a daemon"
	atf_set require.user root
}
wait_cmdline_timeout_body() {
	setup_root
	echo 'rd.initdev.timeout=2' > cmdline
	# without a daemon: the engine runs here (coldplug limited to mem)
	atf_check -s exit:1 -e match:'LABEL=none' timeout 60 $ID wait --no-devtmpfs \
		--subtree /devices/virtual/mem LABEL=none
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --no-coldplug
	atf_check -s exit:1 -e match:'LABEL=none' timeout 60 $ID wait LABEL=none
	atf_check -s exit:0 $ID exit
}
wait_cmdline_timeout_cleanup() { cleanup_root; }

atf_test_case wait_stays_in_dev cleanup
wait_stays_in_dev_head() {
	atf_set descr "initdev wait follows a link only within its /dev: a node outside it is not found"
	atf_set require.user root
}
wait_stays_in_dev_body() {
	setup_root
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --subtree /devices/virtual/mem
	atf_check -s exit:0 $ID settle --timeout 30
	ln -s /proc/self/fd/0 dev/stdin
	ln -s /dev/null dev/outside
	ln -s null dev/inside
	atf_check -s exit:0 -o match:"/inside\$" $ID wait --timeout 5 /dev/inside
	atf_check -s exit:1 -e ignore $ID wait --timeout 1 /dev/stdin
	atf_check -s exit:1 -e ignore $ID wait --timeout 1 /dev/outside
	atf_check -s exit:0 $ID exit
}
wait_stays_in_dev_cleanup() { cleanup_root; }

atf_test_case already_running cleanup
already_running_head() {
	atf_set descr "a second daemon on the same run directory refuses to start"
	atf_set require.user root
}
already_running_body() {
	setup_root
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --no-coldplug
	atf_check -s exit:1 -e match:'already' $ID daemon --no-devtmpfs --no-coldplug
	atf_check -s exit:0 $ID exit
	atf_check -s exit:1 -e match:'no daemon' $ID settle --timeout 1
}
already_running_cleanup() { cleanup_root; }

atf_test_case refuses_beside_udevd cleanup
refuses_beside_udevd_head() {
	atf_set descr "a full coldplug is refused while another device manager's control socket answers"
	atf_set require.user root
}
refuses_beside_udevd_body() {
	# udev's directory is "udev" beside --run: the host's /run/udev is never touched
	mkdir udev
	"$(atf_get_srcdir)/../unix-listen" "$PWD/udev/control" > listen.out &
	echo $! > listen.pid
	for i in $(seq 50); do grep -q ready listen.out && break; sleep 0.1; done
	grep -q ready listen.out || atf_fail "the stand-in udevd did not start"
	setup_root
	# a fake sysfs: if the guard failed, only these files would be written
	mkdir -p sys/devices/virtual/mem/null sys/class/mem
	: > sys/devices/virtual/mem/null/uevent
	ln -s ../../../../class/mem sys/devices/virtual/mem/null/subsystem
	atf_check -s exit:1 -e match:"another device manager serves $PWD/udev/control" \
		$ID --sysfs "$PWD/sys" coldplug --no-devtmpfs --timeout 5
	[ ! -s sys/devices/virtual/mem/null/uevent ] || atf_fail "a refused coldplug triggered"
	atf_check -s exit:1 -e match:"another device manager" \
		$ID --sysfs "$PWD/sys" wait --timeout 1 LABEL=none
	# a daemon leaves a udevd's control socket alone (and so does its exit)
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --no-coldplug
	[ -S udev/control ] || atf_fail "the daemon replaced the stand-in udevd's socket"
	atf_check -s exit:0 $ID exit
	[ -S udev/control ] || atf_fail "the daemon took the stand-in udevd's socket"
	# limited, or told so, it runs
	atf_check -s exit:0 -e ignore $ID --sysfs "$PWD/sys" coldplug --no-devtmpfs \
		--no-coldplug --timeout 5
	rm -r sys/devices/virtual/mem/null
	atf_check -s exit:0 -e ignore $ID --sysfs "$PWD/sys" coldplug --no-devtmpfs \
		--force --timeout 5
}
refuses_beside_udevd_cleanup() {
	[ -f listen.pid ] && kill "$(cat listen.pid)" 2>/dev/null && sleep 0.2
	cleanup_root
}

atf_test_case presents_udev cleanup
presents_udev_head() {
	atf_set descr "while a daemon runs, udev/control exists (libdevmapper's sign of udev), as a file that does not refuse initdev's own coldplug; a stale socket is replaced; exit removes it"
	atf_set require.user root
}
presents_udev_body() {
	setup_root
	mkdir udev
	# a udevd that died: its socket file stays, nobody answers
	"$(atf_get_srcdir)/../unix-listen" "$PWD/udev/control" > listen.out &
	lpid=$!
	for i in $(seq 50); do grep -q ready listen.out && break; sleep 0.1; done
	kill -9 "$lpid"
	wait "$lpid" 2> /dev/null
	[ -S udev/control ] || atf_fail "no stale socket to start from"
	atf_check -s exit:0 -e ignore $ID daemon --no-devtmpfs --no-coldplug
	[ -f udev/control ] && [ ! -L udev/control ] ||
		atf_fail "udev/control is not a plain file: $(ls -l udev)"
	# a full coldplug of another initdev (its own --run beside this one, an empty
	# fake sysfs) is not refused by that file, nor does it take it
	mkdir -p sys/devices sys/class
	atf_check -s exit:0 -e not-match:"another device manager" $(bin) --log-target stderr \
		--dev "$PWD/dev" --run "$PWD/run2" --cmdline "$PWD/cmdline" \
		--udev-rules "$PWD/udev-rules" --sysfs "$PWD/sys" coldplug --no-devtmpfs --timeout 5
	[ -f udev/control ] || atf_fail "the coldplug took the daemon's udev/control"
	# --udev-run points elsewhere
	atf_check -s exit:0 $ID exit
	[ ! -e udev/control ] || atf_fail "udev/control outlived the daemon"
	atf_check -s exit:0 -e ignore $ID --udev-run "$PWD/elsewhere" daemon --no-devtmpfs --no-coldplug
	[ -f elsewhere/control ] && [ ! -e udev/control ] || atf_fail "--udev-run not followed"
	atf_check -s exit:0 $ID exit
	[ ! -e elsewhere/control ] || atf_fail "elsewhere/control outlived the daemon"
}
presents_udev_cleanup() { cleanup_root; }

# bad_start WHY CMD...: CMD exits 1 and its stderr names the path and WHY
bad_start() {
	why=$1; shift
	"$@" > out 2> err
	rc=$?
	[ "$rc" -eq 1 ] || atf_fail "exit $rc, not 1: $* ($(cat err))"
	grep -q "$why" err || atf_fail "no '$why' from: $*; stderr: $(cat err)"
	[ ! -e run/pid ] || atf_fail "a daemon stayed behind: $*"
}

atf_test_case unusable_paths cleanup
unusable_paths_head() {
	atf_set descr "each start with an unusable --run, --dev or --sysfs says which path and why, exits 1"
	atf_set require.user root
}
unusable_paths_body() {
	setup_root
	mkdir ro && mount -t tmpfs -o ro initdev-ro "$PWD/ro" || atf_skip "cannot mount tmpfs"
	: > afile
	B="$(bin) --log-target stderr --cmdline $PWD/cmdline --udev-rules $PWD/udev-rules"
	OK="--dev $PWD/dev --run $PWD/run"
	C="--no-devtmpfs --subtree /devices/virtual/mem"
	for mode in "daemon" "daemon --foreground" "coldplug" "wait --timeout 1 /dev/null"; do
		# shellcheck disable=SC2086
		set -- $mode
		cmd=$1; shift
		for run in "missing/run:No such file or directory" "afile:Not a directory" \
			"ro/run:Read-only file system"; do
			bad_start "$PWD/${run%%:*}: cannot create the control socket: ${run#*:}" \
				$B --dev "$PWD/dev" --run "$PWD/${run%%:*}" $cmd $C "$@"
		done
		for dev in "missing:No such file or directory" "afile:Not a directory" \
			"ro:Read-only file system"; do
			bad_start "/dev root $PWD/${dev%%:*}: ${dev#*:}" \
				$B --dev "$PWD/${dev%%:*}" --run "$PWD/run" $cmd $C "$@"
		done
		for sys in "missing:No such file or directory" "afile:Not a directory" \
			"ro:Read-only file system"; do
			bad_start "sysfs root $PWD/${sys%%:*}: ${sys#*:}" \
				$B $OK --sysfs "$PWD/${sys%%:*}" $cmd $C "$@"
		done
	done
	# the clients say where they looked for the daemon
	for cmd in settle status exit handoff; do
		bad_start "no daemon at $PWD/missing/run/control: No such file or directory" \
			$B --run "$PWD/missing/run" $cmd
	done
}
unusable_paths_cleanup() {
	umount "$PWD/ro" 2>/dev/null
	cleanup_root
}

atf_test_case kmsg_rate_limit cleanup
kmsg_rate_limit_head() {
	atf_set descr "under /dev/kmsg's rate limit the daemon drops no line unseen: it counts them, the kernel drops none"
	atf_set require.user root
	atf_set require.progs "jq dmesg"
}
kmsg_rate_limit_body() {
	grep -qx ratelimit /proc/sys/kernel/printk_devkmsg ||
		atf_skip "printk.devkmsg is $(cat /proc/sys/kernel/printk_devkmsg), not ratelimit"
	setup_root
	# a name of its own: the kernel names the process (comm) when it says
	# how many lines it dropped, at close
	name=idkmsg$$
	ln -s "$(bin)" "$name"
	IDK="./$name --log-target kmsg --log-level debug --dev $PWD/dev --run $PWD/run --cmdline $PWD/cmdline --udev-rules $PWD/udev-rules"
	atf_check -s exit:0 $IDK daemon --no-devtmpfs --subtree /devices/virtual/mem
	pid=$(cat run/pid)
	atf_check -s exit:0 $ID settle --timeout 30
	$ID status --json > status.json || atf_fail "status failed"
	# debug lines for every mem device's event: more than the 7 of 10 a
	# 5 s window gives them
	jq -e '.log.kmsg_dropped > 0' status.json > /dev/null ||
		atf_fail "no line was counted as kept out: $(jq -c .log status.json)"
	atf_check -s exit:0 $ID exit
	i=0
	while [ -d "/proc/$pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	dmesg > dmesg.txt || atf_fail "dmesg failed"
	grep -q "initdev\[$pid\]: " dmesg.txt || atf_fail "no line of the daemon in the kernel's log"
	if grep "$name: .*suppressed" dmesg.txt; then
		atf_fail "the kernel dropped lines of the daemon (above)"
	fi
}
kmsg_rate_limit_cleanup() { cleanup_root; }

atf_init_test_cases() {
	atf_add_test_case unusable_paths
	atf_add_test_case coldplug_mem
	atf_add_test_case daemon_settle_status_exit
	atf_add_test_case forged_add_creates_nothing
	atf_add_test_case overflow_recovery
	atf_add_test_case control_refuses_non_root
	atf_add_test_case hostile_cmdline
	atf_add_test_case already_running
	atf_add_test_case wait_cmdline_timeout
	atf_add_test_case wait_stays_in_dev
	atf_add_test_case refuses_beside_udevd
	atf_add_test_case presents_udev
	atf_add_test_case kmsg_rate_limit
}
