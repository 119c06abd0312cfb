# Degraded modes, provoked on a real kernel without any switch in the
# shipped module: noprobe.ko declares NOKPROBE_SYMBOL() on a function
# sld_compat hooks, so the kernel refuses every kprobe on it while noprobe
# is loaded: handle_guest_split_lock (ac-guest) where any module may import
# it; on kernels that export it only to KVM's modules (7.x) a module can no
# longer do that, and noprobe blacklists setup_new_exec (exec) instead.
# sld_compat must load anyway, report the feature off and why, keep every
# other feature, and recover on reload.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

KPL=/sys/kernel/debug/kprobes/list
ensure_unloaded
run "insmod noprobe (blacklists a hooked function)" insmod /mod/noprobe.ko
if grep -q 'setup_new_exec' /sys/kernel/debug/kprobes/blacklist; then
	hook=exec sym=setup_new_exec
else
	hook=ac-guest sym=handle_guest_split_lock
fi
diag "noprobe blacklists $sym ($hook)"
run "insmod actest" insmod /mod/actest.ko
mark_dmesg
run "sld_compat loads with a hook that cannot be placed" load
is "$(cat /sys/module/sld_compat/initstate)" live "module is live"
like "$(cat $S/degraded)" "^$hook: kprobe on $sym failed \(-22\)\$" \
	"degraded names $hook and the kprobe error (EINVAL: blacklisted)"
like "$(new_dmesg)" "sld_compat: degraded: $hook off: kprobe on $sym failed \(-22\)" \
	"dmesg says $hook is off and why"
is "$(grep "^$hook " $S/hooks)" "$hook $sym failed" "hooks: $hook failed"
for h in ac-user ac-guest modscan; do
	[ $h = "$hook" ] || like "$(grep "^$h " $S/hooks)" ' armed$' "hooks: $h still armed"
done
like "$(cat $S/status)" "$hook: kprobe on $sym failed" "status shows the degraded feature"
is "$(grep -c "$sym+0x" $KPL)" 0 "no kprobe on $sym in the kernel's list"
like "$(cat /sys/kernel/debug/kprobes/blacklist)" "$sym" "the kernel lists $sym in its kprobe blacklist"

ln -sf /tests/bin/sldtest /tmp/sldgame
is "$(knob_w exempt_comm sldgame)" OK "exempt_comm=sldgame"
g0=$(ac ac_guest_handled)
if [ $hook = ac-guest ]; then
	# The feature is off: an exempt task's guest #AC goes to the kernel.
	kguest 2 "guest path: the kernel's own ($(kguest_out 2)), not ours" /tmp/sldgame ac guest 2
	is "$(ac ac_guest_handled)" "$g0" "ac_guest_handled unchanged"
else
	# No exec hook: the exempt program is protected from its first
	# split lock on, and its guest #AC is still ours.
	oguest 2 "guest path: ours, exec hook or not" /tmp/sldgame ac guest 2
	is "$(ac ac_guest_handled)" "$((g0 + 2))" "ac_guest_handled +2"
fi
echo 0 > /proc/sys/kernel/split_lock_mitigate
protected_user 3 "user path still handled by us" /tmp/sldgame ac user 3
echo 1 > /proc/sys/kernel/split_lock_mitigate
# enabled still switches what exists.
is "$(knob_w enabled N)" OK "enabled=N with a failed hook"
is "$(grep -c ' disarmed$' $S/hooks)" "$(grep -vc ' failed$' $S/hooks)" "every placed hook disarmed"
is "$(knob_w enabled Y)" OK "enabled=Y with a failed hook"
is "$(grep -cE ' (armed|idle)$' $S/hooks)" "$(grep -vc ' failed$' $S/hooks)" "every placed hook armed (or idle until needed)"
run "insmod fx_vmlaunch: scanning still works" insmod /mod/fx_vmlaunch.ko
like "$(grep '^fx_vmlaunch ' /proc/sld_compat_modules)" ' hypervisor vmx-text ' "fx_vmlaunch classified"
rmmod fx_vmlaunch
run "rmmod sld_compat in degraded mode" unload

# The blacklist goes with noprobe: a reload is whole again.
run "rmmod noprobe" rmmod noprobe
load
is "$(cat $S/degraded)" none "after noprobe is gone: nothing degraded"
# exec's kretprobe is armed only while a task is protected (idle).
like "$(grep "^$hook " $S/hooks)" "$([ $hook = exec ] && echo ' (armed|idle)$' || echo ' armed$')" \
	"$hook armed again"
is "$(knob_w exempt_comm sldgame)" OK "exempt_comm=sldgame again (a reload resets knobs)"
oguest 1 "exempt guest path handled again" /tmp/sldgame ac guest 1
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"
rm -f /tmp/sldgame
rmmod actest
unload
