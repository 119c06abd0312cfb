# Teardown races (issue #12, item 3), as stress: no test can pick the
# instant, so each runs many rounds and checks what a lost race leaves.
#  1. Hypervisor modules load and unload in a loop while sld_compat loads
#     and unloads. Each load's module notifier refreshes the task engine;
#     one that ran after sld_compat_exit() detached everything would take
#     the preempt-notifier key again and let a record outlive the module.
#     After every unload the kernel's key must be back at its count
#     (keycount.ko reads it).
#  2. `enabled` flips while vmmon loads: its profile probe is placed
#     during the flip and must end armed exactly when enabled=Y.
# make check: 20 rounds each; make check-stress: 200.
. /tests/lib.sh

rounds=20
[ -e /tests/stress_full ] && rounds=200
K=/sys/module/keycount/parameters/count
KPL=/sys/kernel/debug/kprobes/list
lsmod | grep -q '^sld_compat ' && unload
run "insmod keycount" insmod /mod/keycount.ko
base=$(cat $K)
diag "preempt_notifier_key count before: $base"
mark_dmesg

# ---- 1. hypervisor loads while sld_compat unloads ----------------------------
rm -f /tmp/hvloop.stop /tmp/hvloop.err
(
	n=0
	while [ ! -e /tmp/hvloop.stop ]; do
		# rmmod can meet sld_compat's load holding a reference for
		# its scan of loaded modules (EAGAIN): then the next round
		# unloads it.
		lsmod | grep -q '^fx_vmlaunch ' ||
			insmod /mod/fx_vmlaunch.ko 2>>/tmp/hvloop.err
		rmmod fx_vmlaunch 2>>/tmp/hvloop.err && n=$((n + 1))
	done
	echo "$n" > /tmp/hvloop.n
) &
held=0 fails=0 i=0
while [ $i -lt $rounds ]; do
	load || fails=$((fails + 1))
	unload || fails=$((fails + 1))
	[ "$(cat $K)" = "$base" ] || { held=$((held + 1)); diag "round $i: key count $(cat $K) after rmmod"; }
	i=$((i + 1))
done
touch /tmp/hvloop.stop
wait
lsmod | grep -q '^fx_vmlaunch ' && rmmod fx_vmlaunch
is "$fails" 0 "$rounds load/unload rounds under hypervisor loads"
like "$(cat /tmp/hvloop.n)" '^[1-9]' "the hypervisor module loaded and unloaded meanwhile ($(cat /tmp/hvloop.n) times)"
diag "hypervisor loop errors: $(sort /tmp/hvloop.err | uniq -c)"
is "$held" 0 "preempt-notifier key back at $base after every unload"
is "$(cat $K)" "$base" "preempt-notifier key count after the rounds"

# ---- 2. enabled flips while vmmon's profile probe is placed ------------------
load
armed() { grep -E ' Vmx86_RunVM\+0x[0-9a-f]+ ' $KPL | grep -vc DISABLED; }
wrong=0 i=0
while [ $i -lt $rounds ]; do
	knob_w enabled N > /dev/null
	insmod /mod/vmmon.ko &
	knob_w enabled Y > /dev/null
	wait
	wait_for 20 '[ "$(hv vmmon | cut -d" " -f2)" = state=hooked ]'
	[ "$(armed)" = 1 ] || { wrong=$((wrong + 1)); diag "round $i: $(grep Vmx86_RunVM $KPL)"; }
	rmmod vmmon
	i=$((i + 1))
done
is "$wrong" 0 "vmmon's entry probe armed after every N/Y flip raced with its load"
# The other direction: probes placed while enabled=N stay disarmed.
knob_w enabled N > /dev/null
insmod /mod/vmmon.ko
like "$(grep -E ' Vmx86_RunVM\+0x[0-9a-f]+ ' $KPL)" 'DISABLED' "vmmon loaded with enabled=N: its probe placed disarmed"
knob_w enabled Y > /dev/null
is "$(armed)" 1 "enabled=Y arms it"
# keycount reads the key sld_compat takes: held while vmmon is watched.
is "$(cat $K)" $((base + 1)) "preempt-notifier key held while a hypervisor is watched"
rmmod vmmon
unload
is "$(cat $K)" "$base" "preempt-notifier key count at the end"
rmmod keycount
bad=$(new_dmesg | grep -E 'Oops|BUG[: ]|WARNING:|general protection|UBSAN|KASAN')
is "$bad" "" "no kernel error in dmesg"
