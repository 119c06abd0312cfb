# Reproduction, not part of any suite: under multi-threaded QEMU TCG (7.2),
# enabling and disabling a kprobe on a function that other CPUs are calling
# crashes the guest kernel (RIP 0, "BUG: kernel NULL pointer dereference")
# within seconds, with the kernel's own kprobe_events and no sld_compat
# loaded; single-threaded TCG (vm.sh's default) runs all 600 flips cleanly.
#   VM_ACCEL=tcg VM_T=tests/vm/repro VM_ONLY=tcg tests/vm/vm.sh 6.1.0-57-amd64 check  # crashes
#   VM_T=tests/vm/repro VM_ONLY=tcg tests/vm/vm.sh 6.1.0-57-amd64 check               # passes
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
echo 'p:sldexp security_file_ioctl' > /sys/kernel/tracing/kprobe_events
(i=0; while [ $i -lt 400 ]; do sldhv ioctlcost 2000 >/dev/null; i=$((i+1)); done) &
(i=0; while [ $i -lt 400 ]; do sldhv ioctlcost 2000 >/dev/null; i=$((i+1)); done) &
i=0
while [ $i -lt 600 ]; do
	echo 1 > /sys/kernel/tracing/events/kprobes/sldexp/enable
	echo 0 > /sys/kernel/tracing/events/kprobes/sldexp/enable
	i=$((i + 1))
done
wait
ok "kprobe_events: 600 enable/disable flips on security_file_ioctl under ioctl load"
