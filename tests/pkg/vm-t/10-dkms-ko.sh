# The sld_compat.ko that DKMS built and signed inside the lifecycle test's
# Debian root loads on the kernel it was built for (run by vm.sh with
# SLD_KO=; lifecycle.sh puts the expected version in version.expect).
# shellcheck source=../../lib/vm.sh
. /tests/lib.sh

want=$(cat /tests/t/version.expect)
mark_dmesg
run "insmod the DKMS-built sld_compat.ko" load
is "$(cat /sys/module/sld_compat/initstate 2>&1)" live "module is live"
is "$(cat $S/version 2>&1)" "$want" "/sys/kernel/sld_compat/version is $want"
st=$(cat "$S/status" 2>&1)
like "$st" "^version: $want" "/sys/kernel/sld_compat/status starts with the version"
like "$st" "sld_mode: " "status reports the kernel's split-lock mode"
diag "$st"
# Signed with a key this kernel does not know: it loads (MODULE_SIG is not
# enforced) and taints; no sld_compat error.
like "$(cat /proc/sys/kernel/tainted)" '^[0-9]+$' "kernel taint readable"
diag "taint: kernel $(cat /proc/sys/kernel/tainted), module $(cat /sys/module/sld_compat/taint)"
new=$(new_dmesg)
diag "$(echo "$new" | grep -iE 'sld_compat|verification|sign')"
is "$(echo "$new" | grep -i 'sld_compat' | grep -v 'module verification failed' |
	grep -ciE 'error|fail|rejected|invalid')" 0 "no sld_compat error in dmesg at load"
is "$(echo "$new" | grep -ciE 'Lockdown|Loading of unsigned module is rejected|Key was rejected')" 0 \
	"no signature rejection in dmesg"
run "rmmod sld_compat" unload
