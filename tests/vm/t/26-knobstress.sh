# Concurrent knob writers: four threads hammer every knob with valid and
# invalid values while fixture modules load and unload and the #AC path
# runs for a task that is exempt or not as exempt_comm flips
# (tests/vm/bin/knobstress.c). No crash, no kernel warning, every read a
# whole written value, and the state consistent afterwards. Each phase runs
# /tests/stress_secs seconds (make check: short; make check-stress: long).
#
# Phase 3 flips `enabled` (arming and disarming kprobes on functions other
# CPUs are calling) under the #AC thread and hypervisor loads; that needs
# single-threaded TCG (vm.sh says why, tests/vm/repro/tcg-kprobe-flip.sh).
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

secs=$(cat /tests/stress_secs 2>/dev/null || echo 8)
ALL_MODS="/mod/fx_clean.ko /mod/fx_vmlaunch.ko /mod/fx_vmxon.ko /mod/fx_svm.ko /mod/fx_safe.ko"
ensure_unloaded
load
insmod /mod/actest.ko
echo 0 > /proc/sys/kernel/split_lock_mitigate	# the #AC thread must not sleep
# on_hypervisor=refuse, hit at random, refuses the fixture hypervisors.
expect_dmesg 'sld_compat: refusing (fx_vmlaunch|fx_vmxon|vmmon|fx_clean|fx_svm|fx_safe)'

phase() {	# phase NAME ENV...: one knobstress run and its checks
	name=$1; shift
	mark_dmesg
	# shellcheck disable=SC2086 # MODS: one argument per module file
	out=$(env "$@" knobstress "$secs" $P $MODS 2>/tmp/knobstress.err)
	rc=$?
	diag "$name, ${secs}s: $out"
	[ -s /tmp/knobstress.err ] && diag "$(head -n 10 /tmp/knobstress.err)"
	is "$rc" 0 "$name: knobstress found nothing wrong"
	like "$out" ' torn=0 ' "$name: every read was a value written whole"
	like "$out" ' unexpected=0 ' "$name: every invalid write EINVAL, every valid one accepted"
	like "$out" ' rejected=[1-9]' "$name: invalid writes were made"
	like "$out" ' loads=[1-9]' "$name: fixture modules loaded during the run"
	bad=$(new_dmesg | grep -E "$KERNEL_ERRORS|cannot (arm|disarm) hooks")
	is "$bad" "" "$name: no kernel error, lock warning, hung task or hook failure in dmesg"
}
MODS=$ALL_MODS
phase "phase 1 (#AC path, all knobs but enabled)" KNOBSTRESS_SKIP=enabled
like "$out" ' ac_calls=[1-9]' "phase 1: the #AC path ran"
phase "phase 2 (all knobs, no #AC path)" KNOBSTRESS_AC=0
phase "phase 3 (everything at once)" KNOBSTRESS_AC=1
like "$out" ' ac_calls=[1-9]' "phase 3: the #AC path ran"

# Settle: defaults, every fixture gone, nothing held.
echo 1 > /proc/sys/kernel/split_lock_mitigate
rmmod actest
for m in fx_clean fx_vmlaunch fx_vmxon fx_svm fx_safe; do
	lsmod | grep -q "^$m " && rmmod $m
done
is "$(knob_w enabled Y)" OK "enabled=Y after the run"
is "$(grep -cE ' (armed|idle)$' $S/hooks)" "$(grep -c . $S/hooks)" "every hook armed (or idle until needed) again"
is "$(grep -c ',loaded$' /proc/sld_compat_modules)" 0 "no record claims a loaded fixture"
is "$(cat $S/disable_count)" 0 "no SLD disable hold left behind"
like "$(grep '^cpu0 ' $ACCT)" ' hold=0 ' "cpu0 not held off"
run "rmmod sld_compat after the run" unload
