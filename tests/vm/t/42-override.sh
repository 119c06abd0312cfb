# Issue #25 item 3: the #AC override cannot be lost. The ac-user and
# ac-guest probes (and reenable, reenable-unlock and cpu-offline, which do
# the kernel's re-enable work for it) return for the kernel's function by
# changing regs->ip:
# each has a post handler, so the kernel never jump-optimizes it (an
# optimized probe ignores a new ip), and where it is a kprobe on ftrace
# (every suite kernel: KPROBES_ON_FTRACE=y) it claims IPMODIFY, so that a
# livepatch's claim on the same function is refused while it is armed
# (ipmodify.ko stands for one), and one made first makes sld_compat drop
# that hook, visibly, instead of one of the two being silently ignored.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

KPL=/sys/kernel/debug/kprobes/list
ENF=/sys/kernel/debug/tracing/enabled_functions
[ -e $ENF ] || mount -t tracefs nodev /sys/kernel/debug/tracing 2>/dev/null
ensure_unloaded
load
# For the record: how each hook is placed on this kernel (k/r, [FTRACE]).
cut -d' ' -f2 $S/hooks | while read -r s; do
	diag "kprobes/list: $(grep " $s+0x" $KPL | sed 's/^[0-9a-f]* *//' | paste -sd' ')"
done
# The kernel's re-enable paths too (issue #37 item 2: done at their entry).
for h in ac-user ac-guest reenable reenable-unlock cpu-offline; do
	line=$(grep "^$h " $S/hooks)
	sym=$(echo "$line" | cut -d' ' -f2)
	kp=$(grep " $sym+0x" $KPL)
	diag "$h: kprobes/list: $kp"
	is "$(echo "$kp" | grep -c .)" 1 "$h: one kprobe on $sym"
	is "$(echo "$kp" | grep -c '\[OPTIMIZED\]')" 0 "$h: the kernel did not optimize it"
	# The kernel's view decides what hooks must say.
	if echo "$kp" | grep -q '\[FTRACE\]'; then
		is "$line" "$h $sym override=ftrace-ipmodify armed" \
			"hooks: $h is a kprobe on ftrace claiming IPMODIFY"
		# ftrace's own view: R (saves regs), I (IPMODIFY claimed).
		like "$(grep "^$sym " $ENF)" "^$sym \([0-9]+\) R I " \
			"$h: tracing/enabled_functions says IPMODIFY (I) on $sym"
	else
		is "$line" "$h $sym override=int3-noopt armed" \
			"hooks: $h is a breakpoint kprobe that is never optimized"
	fi
done
# Long enough for the kprobe optimizer (it runs after 5 jiffies' delay).
sleep 1
is "$(grep -E ' (handle_user_split_lock|handle_guest_split_lock)\+0x' $KPL | grep -c '\[OPTIMIZED\]')" 0 \
	"a second later: neither override probe optimized"

if grep -qE ' handle_user_split_lock\+0x[0-9a-f]+ +\[FTRACE\]' $KPL; then
	# A livepatch's claim while sld_compat holds the function: refused.
	mark_dmesg
	fails "ipmodify.ko on handle_user_split_lock: refused (EBUSY) while ac-user is armed" \
		insmod /mod/ipmodify.ko func=handle_user_split_lock
	is "$(knob_w enabled N)" OK "enabled=N: the hooks let go of their functions"
	run "ipmodify.ko on handle_user_split_lock: loads while ac-user is disarmed" \
		insmod /mod/ipmodify.ko func=handle_user_split_lock
	# Re-arming finds the claim: ac-user dropped and degraded, the rest armed.
	is "$(knob_w enabled Y)" OK "enabled=Y with another IPMODIFY user on handle_user_split_lock"
	is "$(grep '^ac-user ' $S/hooks)" "ac-user handle_user_split_lock failed" "hooks: ac-user failed"
	like "$(cat $S/degraded)" '^ac-user: handle_user_split_lock has another IP-modifying ftrace user$' \
		"degraded names ac-user and why"
	like "$(grep '^ac-guest ' $S/hooks)" ' armed$' "hooks: ac-guest still armed"
	is "$(grep -vc -e ' failed$' -e ' armed$' -e ' idle$' $S/hooks)" 0 "every other hook armed (or idle)"
	run "rmmod sld_compat" unload
	# Loading after the claim: the same, from the start.
	mark_dmesg
	run "sld_compat loads beside another IPMODIFY user" load
	is "$(grep '^ac-user ' $S/hooks)" "ac-user handle_user_split_lock failed" "at load: ac-user failed"
	like "$(new_dmesg)" 'sld_compat: degraded: ac-user off: handle_user_split_lock has another IP-modifying ftrace user' \
		"at load: dmesg says ac-user is off and why"
	like "$(grep '^ac-guest ' $S/hooks)" ' override=ftrace-ipmodify armed$' "at load: ac-guest armed"
	unload
	run "rmmod ipmodify" rmmod ipmodify
	load
	like "$(grep '^ac-user ' $S/hooks)" ' override=ftrace-ipmodify armed$' "reloaded alone: ac-user armed again"
	is "$(cat $S/degraded)" none "reloaded alone: nothing degraded"
else
	skip "IPMODIFY exclusion" "no override probe on ftrace on this kernel"
fi
unload
