# Every knob round-trips and rejects malformed values with EINVAL,
# changing nothing and saying why in dmesg; non-root cannot write.
# shellcheck source=SCRIPTDIR/../lib.sh # the VM's /tests is tests/vm
. /tests/lib.sh


# check_knob NAME "GOOD VALUES" "SHOWN VALUES" BAD...
check_knob() {
	k=$1 goods=$2 shown=$3; shift 3
	i=1
	for g in $goods; do
		s=$(echo "$shown" | cut -d' ' -f$i)
		is "$(knob_w "$k" "$g\\n")" OK "$k: write '$g'"
		is "$(cat "$P/$k")" "$s" "$k: reads back '$s'"
		i=$((i + 1))
	done
	knob_rejects "$k" "$@"
	before=$(cat "$P/$k")
	is "$(sldtest asuser 65534 sldtest write "$P/$k" "$before")" EACCES \
		"$k: unprivileged write refused"
	is "$(cat "$P/$k")" "$before" "$k: unchanged after unprivileged write"
}

ensure_loaded
for f in "$P"/*; do
	like "$(stat -c %A "$f")" '^-rw-r--r--' "knob mode is 0644: $(basename "$f")"
done
check_knob verbose "0 3 1 2 1" "0 3 1 2 1" \
	"\\n" " 1" "1 " "4" "-1" "99999999999999999999" "1x" "0x1" "+1" \
	"1\\0" "1\\02" "\\xff" "one" "1.0" "\\t1"
check_knob enabled "0 1 N Y n y 1" "N Y N Y N Y Y" \
	"\\n" " 1" "1 " "2" "-1" "yes" "true" "on" "10" "Y\\0" "\\xc3\\xa9" \
	"YY" "1\\n\\n"
# enabled arms and disarms every hook: check the kernel's own kprobe list.
# The list names the probed symbol, not the owner: match our hooks' symbols.
KPL=/sys/kernel/debug/kprobes/list
echo Y > $P/enabled
# On-demand hooks are idle, i.e. disabled, until needed: ioctl-learn (a
# hypervisor to learn), task-start and task-rename (exempt_proactive=Y).
ours() { grep -E " ($(awk '$NF != "idle" { print $2 }' $S/hooks | paste -sd'|'))\+0x" $KPL; }
nh=$(grep -c . $S/hooks)
like "$nh" '^[1-9]' "at least one hook is placed"
is "$(grep -cE ' (armed|idle)$' $S/hooks)" "$nh" "enabled=Y: every hook armed (or idle until needed)"
is "$(grep ' idle$' $S/hooks | cut -d' ' -f1 | sort | paste -sd' ')" "ioctl-learn task-rename task-start" \
	"enabled=Y: three on-demand hooks idle (no hypervisor, no exempt_proactive)"
is "$(ours | grep -c .)" "$((nh - 3))" "enabled=Y: every armed hook is in the kernel kprobe list"
is "$(ours | grep -c DISABLED)" 0 "enabled=Y: none disabled"
echo N > $P/enabled
is "$(grep -c ' disarmed$' $S/hooks)" "$nh" "enabled=N: every hook disarmed"
is "$(ours | grep -vc DISABLED)" 0 "enabled=N: every hook disabled in the kernel kprobe list"
echo Y > $P/enabled
is "$(ours | grep -c DISABLED)" 0 "enabled=Y again: kprobes re-armed"
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
