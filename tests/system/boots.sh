#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boots.sh WORK: boot WORK/disk.img (tests/system/system.sh made it) on the
# enforcing test CPU again and again until a boot says "@@@ DONE" or
# SYS_MAX_BOOTS (6) boots ran: each boot a new QEMU process (-no-reboot)
# on the same disk, with the kernel and initramfs the root's bootloader
# would boot: its /vmlinuz (the kernel packages keep that symlink on the
# newest installed kernel, as they keep grub's default entry there),
# read out of the image (debugfs). Appends the
# TAP of every boot (the second serial port) to WORK/tap, with its time,
# and each console to WORK/console. A separate script so that a wrapper
# holding a VM slot (SYS_WRAP, in system.sh) holds it for the boots of
# one scenario at once, up to a boot that says "@@@ HOST": that ends the
# run, for a step of the host's on the image (system.sh, no VM), and the
# next run goes on counting from WORK/boots.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$1
img=$work/disk.img
# shellcheck source=SCRIPTDIR/../config.sh
. "$top/tests/config.sh"
# shellcheck source=SCRIPTDIR/../qemu/enforcing.sh
. "$top/tests/qemu/enforcing.sh"
enforcing_cpu

# boot_kver: the version /vmlinuz links to, else the newest
# /boot/vmlinuz-*.
boot_kver() {
	local k
	k=$(debugfs -R "stat /vmlinuz" "$img" 2>/dev/null |
		sed -n 's|^Fast link dest: "/\{0,1\}boot/vmlinuz-\(.*\)"$|\1|p')
	[ -n "$k" ] || k=$(debugfs -R "ls -p /boot" "$img" 2>/dev/null |
		awk -F/ '$6 ~ /^vmlinuz-/ { print substr($6, 9) }' | sort -V | tail -n1)
	echo "$k"
}
n=$(cat "$work/boots" 2>/dev/null || echo 0)
while [ "$n" -lt "${SYS_MAX_BOOTS:-6}" ]; do
	n=$((n + 1))
	k=$(boot_kver)
	rm -f "$work/vmlinuz" "$work/initrd"
	debugfs -R "dump /boot/vmlinuz-$k $work/vmlinuz" "$img" 2>/dev/null
	debugfs -R "dump /boot/initrd.img-$k $work/initrd" "$img" 2>/dev/null
	if [ ! -s "$work/vmlinuz" ] || [ ! -s "$work/initrd" ]; then
		echo "not ok - boot $n: /boot/vmlinuz-$k and its initrd in the image" >> "$work/tap"
		break
	fi
	s=$SECONDS
	# One host thread for all vCPUs, as tests/vm/vm.sh says why;
	# --foreground as there.
	timeout --foreground "${SYS_TIMEOUT:-900}" "$enf_qemu" "${enf_opts[@]}" \
		-m 2048 -smp 2 -cpu "$enf_cpu" -accel tcg,thread=single \
		-display none -no-reboot -monitor none \
		-serial "file:$work/console.$n" -serial "file:$work/tap.$n" \
		-drive "file=$img,format=raw,if=virtio" \
		-kernel "$work/vmlinuz" -initrd "$work/initrd" \
		-append "root=/dev/vda rw console=ttyS0 $enf_append" </dev/null
	touch "$work/tap.$n" "$work/console.$n"
	tr -d '\r' < "$work/tap.$n" >> "$work/tap"
	echo "# boot $n ($k): $((SECONDS - s)) s" >> "$work/tap"
	tr -d '\r' < "$work/console.$n" >> "$work/console"
	if ! grep -q "^@@@ BOOT $n END" "$work/tap.$n"; then
		echo "not ok - boot $n ($k) ran its checks to the end" >> "$work/tap"
		tail -n 30 "$work/console.$n" | tr -d '\r' | sed 's/^/# /' >> "$work/tap"
		break
	fi
	grep -q '^@@@ \(DONE\|HOST\)' "$work/tap.$n" && break
done
echo "$n" > "$work/boots"
