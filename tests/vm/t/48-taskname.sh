# Issue #25 item 7: a task names itself with any bytes (prctl), and its
# name goes into sld_compat's tasks file, its dmesg lines, sldctl status
# and the Prometheus metrics. Escaped (\xNN, as sldctl prints names), a
# name with a newline and fields of its own adds no line and forges no
# class anywhere. Two tasks protected by exempt_comm x* at rename:
# "x\nwhy=hv x" and "x why=h hv=b\nc" (a first line of its own with a
# class h of hypervisor b, if the newline went through).
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

X=/tests/bin/sldctl
N1=$(printf 'x\nwhy=hv x')
N2=$(printf 'x why=h hv=b\nc')
E1='x\x0awhy=hv x' E2='x why=h hv=b\x0ac'

ensure_loaded
is "$(knob_w exempt_comm 'x*')" OK "exempt_comm x*"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y: protected at rename"
rm -f /tmp/stop /tmp/n1.out /tmp/n2.out
sldtest uidpark 1 0 "$N1" /tmp/stop > /tmp/n1.out &
sldtest uidpark 1 0 "$N2" /tmp/stop > /tmp/n2.out &
wait_for 300 'grep -qs parked /tmp/n1.out && grep -qs parked /tmp/n2.out'
is "$(cat /tmp/n1.out /tmp/n2.out)" "$(printf 'parked=1 failed=0\nparked=1 failed=0')" "two tasks named themselves so"
is "$(ac tasks_live)" 2 "both protected"

# ---- the tasks file ----------------------------------------------------------------
t=$(cat $S/tasks)
is "$(echo "$t" | grep -c '')" 2 "tasks: one line per task"
is "$(echo "$t" | grep -c '^[0-9][0-9]* ')" 2 "tasks: every line starts with a pid"
is "$(echo "$t" | grep -cF " $E1 why=exempt-comm hv=- ")" 1 "tasks: name 1 escaped, class exempt-comm"
is "$(echo "$t" | grep -cF " $E2 why=exempt-comm hv=- ")" 1 "tasks: name 2 escaped, class exempt-comm"
is "$(echo "$t" | grep -c 'why=h ')" 1 "tasks: the forged why=h stays inside name 2"

# ---- sldctl status ------------------------------------------------------------------
out=$($X status 2>&1)
like "$out" 'protected tasks: 2 \(hypervisor 0, comm 2, path 0, cgroup 0, sldctl run 0\)' "sldctl status: 2 tasks, both by comm, no other class"
# The lines under "tasks:", each indented.
tl=$(echo "$out" | awk '/^tasks:$/ { f = 1; next } f && /^  / { print; next } { f = 0 }')
is "$(echo "$tl" | grep -c '')" 2 "sldctl status: the task list has one line per task"
is "$(echo "$tl" | grep -c '^  [0-9][0-9]* ')" 2 "sldctl status: every task line starts with a pid"
is "$(echo "$tl" | grep -cF "$E1 why=exempt-comm")" 1 "sldctl status: name 1 shown escaped, once (not escaped twice)"
is "$(echo "$tl" | grep -cF "$E2 why=exempt-comm")" 1 "sldctl status: name 2 shown escaped, once"
out=$($X status --format prometheus 2>&1)
is "$(echo "$out" | awk '$1 == "sld_compat_protected_tasks_by_class{class=\"exempt-comm\",hypervisor=\"-\"}" { print $2 }')" 2 \
	"prometheus: 2 exempt-comm tasks"
is "$(echo "$out" | grep -c '^sld_compat_protected_tasks_by_class{')" 1 "prometheus: no other class (no forged class h)"

# ---- dmesg: detaching names them, escaped ------------------------------------------
mark_dmesg
is "$(knob_w enabled 0)" OK "enabled=0 detaches both"
d=$(new_dmesg)
is "$(echo "$d" | grep -cF "detached ${E1}[")" 1 "dmesg: name 1 escaped"
is "$(echo "$d" | grep -cF "detached ${E2}[")" 1 "dmesg: name 2 escaped"
is "$(echo "$d" | grep -c '^\(\[[^]]*\] \)\?\(why=hv x\|c\)\[')" 0 "dmesg: no line of the names' own"
is "$(knob_w enabled 1)" OK "enabled=1"

touch /tmp/stop
wait
rm -f /tmp/stop /tmp/n1.out /tmp/n2.out
is "$(knob_w exempt_proactive N)" OK "exempt_proactive N"
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"
balanced "after the task names"
