# Kernel IBT on the enforcing CPU: CPUID.(7,0):EDX[20] shows as "ibt"; 6.12
# (CONFIG_X86_KERNEL_IBT=y) turns it on, and its boot selftest (an indirect
# jump to a non-ENDBR target that must raise #CP) passes.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

like "$(grep -m1 '^flags' /proc/cpuinfo)" ' ibt( |$)' "/proc/cpuinfo: ibt"
# 6.1 has no kernel IBT (CONFIG_X86_KERNEL_IBT unset): the flag only.
case $(uname -r) in
6.1.*) ;;
*)
	like "$(dmesg)" 'CET detected: Indirect Branch Tracking enabled' "the kernel enables IBT"
	fails "its IBT selftest did not fail" sh -c 'dmesg | grep -q "IBT selftest: Failed"' ;;
esac
