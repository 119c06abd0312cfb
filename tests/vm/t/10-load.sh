# Load, and the status view tells the truth about the booted kernel.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

run "insmod sld_compat" load
is "$(cat /sys/module/sld_compat/initstate 2>&1)" live "module is live"
is "$(cat $S/version)" "$(cat /sys/module/sld_compat/version)" \
	"status version matches MODULE_VERSION"
# Stock TCG has no SLD, so the kernel's mode is off; the enforcing test
# CPU has it, and the kernel's default mode is warn (lib.sh KMODE). Both
# follow the CPU the boot was given (vm.sh), not the guest's cpuinfo.
is "$(cat $S/sld_mode)" $KMODE "kernel split-lock mode read from the kernel: $KMODE"
is "$(cat $S/cpu_split_lock_detect)" $CPU_SLD \
	"CPU has split-lock detection: $CPU_SLD (the boot's $(cat /tests/cpu) CPU)"
is "$(cat $S/cpu_bus_lock_detect)" $CPU_BLD \
	"CPU has bus-lock detection: $CPU_BLD (the boot's $(cat /tests/cpu) CPU)"
if [ $CPU_SLD = 1 ]; then
	is "$(cat $S/support)" full "support says full (the CPU has SLD)"
else
	like "$(cat $S/support)" '^kernel-only: ' "support says kernel-only (no SLD)"
fi
is "$(cat $S/split_lock_mitigate)" "$(cat /proc/sys/kernel/split_lock_mitigate)" \
	"split_lock_mitigate matches the sysctl"
is "$(cat $S/split_lock_mitigate)" 1 "split_lock_mitigate is 1 by default"
# Read live from the kernel, not cached at load.
echo 0 > /proc/sys/kernel/split_lock_mitigate
is "$(cat $S/split_lock_mitigate)" 0 "status follows a sysctl change"
echo 1 > /proc/sys/kernel/split_lock_mitigate
for f in handle_user_split_lock handle_guest_split_lock split_lock_warn \
	 __split_lock_reenable splitlock_cpu_offline; do
	like "$(grep "^$f " $S/kernel_code)" "^$f present$" "kernel_code: $f present"
done
is "$(cat $S/degraded)" none "nothing degraded on this kernel"
st=$(cat $S/status)
like "$st" "^version: " "status file has the version"
like "$st" "sld_mode: $KMODE" "status file has the mode"
like "$(dmesg | grep 'sld_compat: version')" \
	"kernel split-lock mode $KMODE, split_lock_mitigate 1, cpu split_lock_detect $CPU_SLD" \
	"load line in dmesg states what was found"
if [ $CPU_SLD = 1 ]; then
	is "$(dmesg | grep -c 'sld_compat: CPU has no split-lock')" 0 \
		"dmesg does not say MSR_TEST_CTRL is never written (the CPU has SLD)"
else
	like "$(dmesg | grep 'sld_compat: CPU has no split-lock')" "never written" \
		"dmesg says MSR_TEST_CTRL is never written here"
fi
for f in "$S"/*; do
	fails "$(basename "$f") is read-only" sh -c "echo x > $f"
done
