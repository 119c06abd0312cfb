# make demo: what an admin would see on a host with the module.
# shellcheck source=SCRIPTDIR/../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh
say() { echo; echo "\$ $*"; sh -c "$*"; }

# The mission, on a CPU that enforces split-lock detection (the test
# QEMU of tests/qemu, as `make demo` boots it).
mission() {
	echo; echo "# This CPU enforces split-lock detection; the kernel runs it in warn mode:"
	say "dmesg | grep 'split lock detection'"
	cp "$(command -v sldcpu)" /tmp/game
	echo; echo "# A program doing 50 split locks (a game, a VMM's user part) pays the kernel's"
	echo "# 10 ms penalty for each (split_lock_mitigate=1):"
	say "/tmp/game time 50 split 30000"
	say "dmesg | grep 'took a split_lock trap' | tail -n 1"
	echo; echo "# The admin exempts that program by path: the same run at full speed. sld_compat"
	echo "# took its first #AC, turned SLD off on the core while the program runs:"
	say "echo /tmp/game > $P/exempt_path"
	say "/tmp/game time 50 split 30000"
	say "grep -E 'ac_user_handled|tasks_protected' $S/ac"
	echo; echo "# A hypervisor's vCPU thread (fx_hv, a stand-in for vmmon) runs its guest in"
	echo "# kernel mode: a guest split lock there would kill the host (\"Split lock detected\")."
	echo "# sld_compat protects the thread at its RUN ioctl, before the first of 100:"
	say "insmod /mod/fx_hv.ko"
	say "sldhv run fx_hv 1000 0 5 0 100"
	say "cat $S/hypervisors"
	say "rmmod fx_hv; echo - > $P/exempt_path"
}
say insmod /mod/sld_compat.ko
say "dmesg | grep sld_compat"
grep -qw split_lock_detect /proc/cpuinfo && mission
say cat /sys/kernel/sld_compat/status
say "grep . /sys/module/sld_compat/parameters/*"
echo; echo "# Hypervisor-like test modules load and are scanned before their init runs:"
for m in fx_vmlaunch fx_vmxon fx_safe vmmon fx_svm fx_clean; do
	say insmod /mod/$m.ko
done
say cat /proc/sld_compat_modules
echo; echo "# With on_hypervisor=refuse a VMX module that is not sld_safe cannot load:"
say "rmmod fx_vmxon; echo refuse > /sys/module/sld_compat/parameters/on_hypervisor"
say insmod /mod/fx_vmxon.ko
say "dmesg | tail -n 1"
echo; echo "# The offline scanner gives the same verdicts:"
say "sldctl scan /mod/fx_vmxon.ko /mod/fx_safe.ko /mod/fx_clean.ko"
say "echo 9 > /sys/module/sld_compat/parameters/verbose"
say "dmesg | tail -n 1"
