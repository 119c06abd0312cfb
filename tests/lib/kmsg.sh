# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Lines the kernel logged since mark_dmesg, in a guest: the VM suite's
# (tests/lib/vm.sh sources it as /tests/kmsg.sh) and the booted system's
# (tests/system/run). A marker line in the log, not a line count: the
# count stops growing once the ring buffer is full (the stress tests fill
# it). POSIX sh, no `local`: busybox ash and bash run it.
mark_dmesg() {
	_s=$(($(cat /tmp/dmesg.seq 2>/dev/null || echo 0) + 1))
	echo $_s > /tmp/dmesg.seq
	_m="sldtest-mark-$_s"
	echo "$_m" > /tmp/dmesg.mark
	echo "$_m" > /dev/kmsg
}
new_dmesg() { dmesg | sed -n "/$(cat /tmp/dmesg.mark)\$/,\$p" | sed 1d; }
