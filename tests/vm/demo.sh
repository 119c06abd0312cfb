# make demo: what an admin would see on a host with the module.
. /tests/lib.sh
say() { echo; echo "\$ $*"; sh -c "$*"; }
say insmod /mod/sld_compat.ko
say "dmesg | grep sld_compat"
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
