# Knob flips under load: on_hypervisor goes through its four values,
# safe_modules and hypervisor_modules take fx_hv and fx_clean in and out,
# enabled flips, for /tests/stress_secs seconds (make check: short; make
# check-stress: long), while hypervisor modules load and unload and
# protected tasks run and take guest split locks. Every re-decide runs
# under the load path's locks against loads, unloads, exits and context
# switches: no crash, no kernel warning, every valid write accepted, and
# nothing held or watched afterwards that should not be.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

secs=$(cat /tests/stress_secs 2>/dev/null || echo 8)
ensure_unloaded
run "load sld_compat" load
# on_hypervisor=refuse, while it lasts, refuses the loader's hypervisors.
expect_dmesg 'sld_compat: refusing (fx_vmlaunch|fx_vmxon|vmmon|fx_clean): '
run "insmod fx_hv" insmod /mod/fx_hv.ko
rm -f /tmp/stop /tmp/loads.out
mark_dmesg

# Protected tasks: a swarm of short RUNs that fork and exit, and one task
# whose RUNs each end in a guest split lock (H handled, B SIGBUS).
sldhv swarm fx_hv 2 /tmp/stop > /tmp/swarm.out &
p0=$(ac ac_guest_passed) g0=$(ac ac_guest_handled)
sldhv oncpu 1 sldhv runs fx_hv 5000 /tmp/stop > /tmp/runs.out &
# Hypervisors load and unload (vmmon runs once while loaded).
(
	n=0
	while [ ! -e /tmp/stop ]; do
		for m in fx_vmlaunch vmmon fx_vmxon fx_clean; do
			insmod /mod/$m.ko 2>/dev/null || continue
			n=$((n + 1))
			[ $m = vmmon ] && sldhv run vmmon 1000 0 1 > /dev/null
			rmmod $m
		done
	done
	echo "loads=$n" > /tmp/loads.out
) &

end=$(($(date +%s) + secs))
flips=0 bad=0 round=0
flip() {
	if [ "$(knob_w "$1" "$2")" = OK ]; then flips=$((flips + 1)); else
		bad=$((bad + 1)); diag "write $1=$2 failed"; fi
}
while [ "$(date +%s)" -lt $end ]; do
	for v in protect log disable refuse protect; do flip on_hypervisor $v; done
	flip safe_modules +fx_hv
	flip hypervisor_modules +fx_clean
	flip on_hypervisor disable
	flip safe_modules -fx_hv
	flip hypervisor_modules -fx_clean
	if [ $((round % 3)) = 2 ]; then flip enabled N; flip enabled Y; fi
	flip on_hypervisor protect
	round=$((round + 1))
done
touch /tmp/stop
wait
diag "${secs}s: $round rounds, $flips knob writes, $(cat /tmp/loads.out), swarm $(cat /tmp/swarm.out), guest split locks $(tr -s HB < /tmp/runs.out | cut -c1-60)"
is "$bad" 0 "every valid knob write accepted ($flips)"
like "$(cat /tmp/loads.out)" '^loads=[1-9]' "hypervisor modules loaded and unloaded meanwhile"
like "$(cat /tmp/swarm.out)" '^tasks=[1-9][0-9]* runs=[0-9]+ failed=0$' "protected tasks ran, forked and exited, every RUN fine"
# In warn mode both paths print H: ac_guest_handled and ac_guest_passed
# below tell them apart.
if [ $KMODE = warn ]; then
	like "$(cat /tmp/runs.out)" '^H+$' "every guest split lock handled (by sld_compat or the kernel's warn path), no SIGBUS"
else
	like "$(cat /tmp/runs.out)" '^[HB]+$' "every guest split lock handled or the kernel's SIGBUS, nothing else"
	like "$(cat /tmp/runs.out)" 'H' "some guest split locks handled"
fi
run "some came while protected (ac_guest_handled +$(($(ac ac_guest_handled) - g0)))" \
	[ "$(ac ac_guest_handled)" -gt "$g0" ]
# Released, the kernel's path takes them: SIGBUS (B) with its mode off;
# in warn mode it says handled too, and ac_guest_passed grows.
if [ $KMODE = warn ]; then
	run "some while released (ac_guest_passed +$(($(ac ac_guest_passed) - p0)))" \
		[ "$(ac ac_guest_passed)" -gt "$p0" ]
else
	like "$(cat /tmp/runs.out)" 'B' "some while released"
fi
out=$(new_dmesg | grep -E "$KERNEL_ERRORS|cannot (arm|disarm) hooks")
is "$out" "" "no kernel error, lock warning, hung task or hook failure in dmesg"

# Settle: defaults; then what is held and watched is exactly fx_hv's.
is "$(knob_w on_hypervisor protect) $(knob_w enabled Y)" "OK OK" "on_hypervisor=protect, enabled=Y"
is "$(cat $P/safe_modules) $(cat $P/hypervisor_modules)" "- -" "both lists empty again"
for m in fx_vmlaunch vmmon fx_vmxon fx_clean; do
	lsmod | grep -q "^$m " && rmmod $m
done
like "$(grep '^fx_hv ' /proc/sld_compat_modules)" '^fx_hv hypervisor vmx-text .*,watched,loaded$' "fx_hv watched"
is "$(grep -cE '^(fx_vmlaunch|vmmon|fx_vmxon|fx_clean) .*,loaded$' /proc/sld_compat_modules)" 0 \
	"no record claims an unloaded hypervisor"
is "disable_count $(cat $S/disable_count)" "disable_count 0" "no disable hold left"
is "$(cut -d' ' -f1 $S/hypervisors)" fx_hv "only fx_hv watched"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_live)" = 0 ]'
is "$(ac tasks_live)" 0 "every task's record went with it"
balanced "after the stress"
run "rmmod fx_hv" rmmod fx_hv
is "$(cat $S/hypervisors)" none "no hypervisor watched"
run "unload" unload
