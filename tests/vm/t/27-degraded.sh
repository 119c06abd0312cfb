# Degraded modes, provoked on a real kernel without any switch in the
# shipped module: noprobe.ko declares NOKPROBE_SYMBOL(handle_guest_split_lock),
# so the kernel refuses every kprobe on it while noprobe is loaded.
# sld_compat must load anyway, report ac-guest off and why, keep every
# other feature, leave the guest path to the kernel, and recover on reload.
. /tests/lib.sh

KPL=/sys/kernel/debug/kprobes/list
lsmod | grep -q '^sld_compat ' && unload
run "insmod noprobe (blacklists handle_guest_split_lock)" insmod /mod/noprobe.ko
run "insmod actest" insmod /mod/actest.ko
mark_dmesg
run "sld_compat loads with a hook that cannot be placed" load
is "$(cat /sys/module/sld_compat/initstate)" live "module is live"
like "$(cat $S/degraded)" '^ac-guest: kprobe on handle_guest_split_lock failed \(-22\)$' \
	"degraded names ac-guest and the kprobe error (EINVAL: blacklisted)"
like "$(new_dmesg)" 'sld_compat: degraded: ac-guest off: kprobe on handle_guest_split_lock failed \(-22\)' \
	"dmesg says ac-guest is off and why"
is "$(grep '^ac-guest ' $S/hooks)" "ac-guest handle_guest_split_lock failed" "hooks: ac-guest failed"
like "$(grep '^ac-user ' $S/hooks)" ' armed$' "hooks: ac-user still armed"
like "$(grep '^modscan ' $S/hooks)" ' armed$' "hooks: modscan still armed"
like "$(cat $S/status)" 'ac-guest: kprobe on handle_guest_split_lock failed' "status shows the degraded feature"
is "$(grep -c 'handle_guest_split_lock+0x' $KPL)" 0 "no kprobe on handle_guest_split_lock in the kernel's list"
like "$(cat /sys/kernel/debug/kprobes/blacklist)" "handle_guest_split_lock" "the kernel lists handle_guest_split_lock in its kprobe blacklist"

# The feature is off: an exempt task's guest #AC goes to the kernel.
ln -sf /tests/bin/sldtest /tmp/sldgame
is "$(knob_w exempt_comm sldgame)" OK "exempt_comm=sldgame"
g0=$(ac ac_guest_handled)
like "$(/tmp/sldgame ac guest 2)" '^handled=0 sigbus=2 ' "guest path: the kernel's own (SIGBUS), not ours"
is "$(ac ac_guest_handled)" "$g0" "ac_guest_handled unchanged"
echo 0 > /proc/sys/kernel/split_lock_mitigate
like "$(/tmp/sldgame ac user 3)" '^handled=3 sigbus=0 ' "user path still handled by us"
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
like "$(grep '^ac-guest ' $S/hooks)" ' armed$' "ac-guest armed again"
is "$(knob_w exempt_comm sldgame)" OK "exempt_comm=sldgame again (a reload resets knobs)"
like "$(/tmp/sldgame ac guest 1)" '^handled=1 sigbus=0 ' "exempt guest path handled again"
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"
rm -f /tmp/sldgame
rmmod actest
unload
