# Every knob round-trips; the hooks follow enabled. Malformed values:
# 25-badinput.sh; unprivileged writes: 28-privilege.sh.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh


# check_knob NAME "GOOD VALUES" "SHOWN VALUES"
check_knob() {
	k=$1 goods=$2 shown=$3
	i=1
	for g in $goods; do
		s=$(echo "$shown" | cut -d' ' -f$i)
		is "$(knob_w "$k" "$g\\n")" OK "$k: write '$g'"
		is "$(cat "$P/$k")" "$s" "$k: reads back '$s'"
		i=$((i + 1))
	done
}

ensure_loaded
for f in "$P"/*; do
	like "$(stat -c %A "$f")" '^-rw-r--r--' "knob mode is 0644: $(basename "$f")"
done
check_knob verbose "0 3 1 2 1" "0 3 1 2 1"
check_knob enabled "0 1 N Y n y 1" "N Y N Y N Y Y"
# enabled arms and disarms every hook: check the kernel's own kprobe list.
# The list names the probed symbol, not the owner: match our hooks' symbols.
KPL=/sys/kernel/debug/kprobes/list
echo Y > $P/enabled
# On-demand hooks are idle, i.e. disabled, until needed: ioctl-learn (a
# hypervisor to learn), task-clone, task-start and task-rename
# (exempt_proactive=Y).
# The armed ones' symbols, taken once: the same probes under N and Y.
re=" ($(awk '$NF != "idle" { print $2 }' $S/hooks | paste -sd'|'))\+0x"
ours() { grep -E "$re" $KPL; }
nh=$(grep -c . $S/hooks)
like "$nh" '^[1-9]' "at least one hook is placed"
is "$(grep -cE ' (armed|idle)$' $S/hooks)" "$nh" "enabled=Y: every hook armed (or idle until needed)"
is "$(grep ' idle$' $S/hooks | cut -d' ' -f1 | sort | paste -sd' ')" "ioctl-learn task-clone task-rename task-start" \
	"enabled=Y: four on-demand hooks idle (no hypervisor, no exempt_proactive)"
# Each count of the kernel's list is taken whole, listed and (not)
# disabled: a list without our probes fails, not passes.
is "$(ours | grep -vc DISABLED)" "$((nh - 4))" \
	"enabled=Y: every armed hook is in the kernel kprobe list, none disabled"
echo N > $P/enabled
is "$(grep -c ' disarmed$' $S/hooks)" "$nh" "enabled=N: every hook disarmed"
is "$(ours | grep -c DISABLED)" "$((nh - 4))" \
	"enabled=N: every one of them listed and disabled in the kernel kprobe list"
echo Y > $P/enabled
is "$(ours | grep -vc DISABLED)" "$((nh - 4))" "enabled=Y again: every one re-armed"
# Load-time values go through the same setter.
unload
fails "insmod with verbose=9 fails" load verbose=9
expect_dmesg "invalid for parameter"
fails "insmod with enabled=maybe fails" load enabled=maybe
run "insmod with verbose=3 enabled=0" load verbose=3 enabled=0
is "$(cat $P/verbose) $(cat $P/enabled)" "3 N" "load-time knobs applied"
unload

# kprobes switched off system-wide: registration works but nothing is armed,
# and status must not claim otherwise.
load
echo 0 > /sys/kernel/debug/kprobes/enabled
nh=$(grep -c . $S/hooks)
is "$(grep -c ' off-by-kernel$' $S/hooks)" "$nh" "kprobes disabled system-wide: hooks say off-by-kernel"
echo 1 > /sys/kernel/debug/kprobes/enabled
is "$(grep -cE ' (armed|idle)$' $S/hooks)" "$nh" "kprobes enabled again: hooks armed"
unload
