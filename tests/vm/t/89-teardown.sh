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
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

rounds=20
[ -e /tests/stress_full ] && rounds=200
K=/sys/module/keycount/parameters/count
KPL=/sys/kernel/debug/kprobes/list
ensure_unloaded
run "insmod keycount" insmod /mod/keycount.ko
base=$(cat $K)
diag "preempt_notifier_key count before: $base"
mark_dmesg

# ---- 1. hypervisor loads while sld_compat unloads ----------------------------
rm -f /tmp/hvloop.stop /tmp/hvloop.err /tmp/hvloop.rmerr
(
	n=0 r=0
	while [ ! -e /tmp/hvloop.stop ]; do
		# sld_compat's scan of loaded modules holds no reference
		# on them: an rmmod racing its insmod must never fail.
		lsmod | grep -q '^fx_vmlaunch ' ||
			insmod /mod/fx_vmlaunch.ko 2>>/tmp/hvloop.err
		if rmmod fx_vmlaunch 2>>/tmp/hvloop.rmerr; then
			n=$((n + 1))
		else
			r=$((r + 1))
		fi
	done
	echo "$n" > /tmp/hvloop.n
	echo "$r" > /tmp/hvloop.r
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
is "$(cat /tmp/hvloop.r)" 0 "no rmmod of the hypervisor module failed during sld_compat's loads"
diag "rmmod errors: $(sort /tmp/hvloop.rmerr 2>/dev/null | uniq -c)"
is "$held" 0 "preempt-notifier key back at $base after every unload"
is "$(cat $K)" "$base" "preempt-notifier key count after the rounds"

# ---- 1b. rmmod of an already-loaded module while sld_compat scans it ------
# fx_vmlaunch loads before kvm, so the scan (newest first) reaches it only
# after kvm's megabyte of text. Round i tries `rmmod fx_vmlaunch` at i/20
# of sld_compat's measured load time. A reference held for the scan
# failed such an rmmod with EAGAIN; now it waits for the scan of its
# module.
cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }
preload() {
	rmmod kvm 2>/dev/null
	rmmod fx_vmlaunch 2>/dev/null
	insmod /mod/fx_vmlaunch.ko
	insmod /kmod/irqbypass.ko 2>/dev/null
	insmod /kmod/kvm.ko
}
preload
t0=$(cs); load; t1=$(cs); unload
step=$(( (t1 - t0) * 500 ))	# us per twentieth
diag "sld_compat loads in $((t1 - t0))0 ms with kvm loaded"
rmfail=0 i=0
while [ $i -lt 20 ]; do
	preload
	load &
	lp=$!
	while [ "$(cat /sys/module/sld_compat/initstate 2>/dev/null)" != coming ] &&
		kill -0 $lp 2>/dev/null; do :; done
	usleep $((i * step))
	rmmod fx_vmlaunch 2>>/tmp/scanrm.err || rmfail=$((rmfail + 1))
	wait $lp
	unload
	lsmod | grep -q '^fx_vmlaunch ' && rmmod fx_vmlaunch
	i=$((i + 1))
done
rmmod kvm
is "$rmfail" 0 "rmmod during sld_compat's load, 20 instants: none failed"
diag "rmmod errors: $(sort /tmp/scanrm.err 2>/dev/null | uniq -c)"

# ---- 2. enabled flips while vmmon's profile probe is placed ------------------
load
armed() { grep -E ' Vmx86_RunVM\+0x[0-9a-f]+ ' $KPL | grep -vc DISABLED; }
wrong=0 i=0
while [ $i -lt $rounds ]; do
	knob_w enabled N > /dev/null
	insmod /mod/vmmon.ko &
	knob_w enabled Y > /dev/null
	wait
	# shellcheck disable=SC2016 # wait_for evaluates it at each try
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
bad=$(new_dmesg | grep -E "$KERNEL_ERRORS")
is "$bad" "" "no kernel error in dmesg"
