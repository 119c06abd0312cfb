# The record pool: it grows in chunks with demand up to max_tasks, every
# walk of it (tasks, in_use, releasing a hypervisor's tasks, detaching)
# sees every chunk, and an unprivileged user cannot exhaust it: tasks of
# one non-root uid are capped (tasks_per_uid, exempt and hypervisor tasks
# apart; t/45 fills the exempt uid table) and exempt tasks
# never take the quarter of max_tasks reserved for hypervisor tasks. The
# counters say why a task was refused. fx_hv is the simulated hypervisor.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

NOBODY=65534

ensure_unloaded
load
ensure_loaded fx_hv
# hvpark N: N fx_hv threads protected by a RUN, parked until /tmp/stop.
hvpark() {
	rm -f /tmp/stop /tmp/park.out
	sldhv park fx_hv "$1" /tmp/stop > /tmp/park.out &
	wait_for 600 'grep -q parked /tmp/park.out'
}

# ---- knobs --------------------------------------------------------------------
set -- /sys/devices/system/cpu/cpu[0-9]*
ncpu=$#
def=$((64 * ncpu)); [ $def -ge 1024 ] || def=1024
is "$(cat $P/max_tasks)" $def "max_tasks: default 64 per possible CPU, at least 1024"
is "$(cat $P/tasks_per_uid)" $((def / 8)) "tasks_per_uid: default an eighth of max_tasks' default (half its reserve)"
is "$(ac tasks_max) $(ac tasks_per_uid)" "$def $((def / 8))" "ac shows both bounds"
is "$(ac tasks_capacity)" 128 "one chunk of 128 records allocated at load"
rb=$(ac tasks_record_bytes)
if [ "${rb:-0}" -ge 64 ] && [ "$rb" -le 512 ]; then ok "memory per record shown: $rb bytes"
else nok "memory per record shown: '$rb' bytes"; fi
is "$(knob_w max_tasks 2000)" OK "max_tasks=2000"
is "$(cat $P/tasks_per_uid)" $((def / 8)) "tasks_per_uid unchanged by max_tasks (a knob changes only when written)"
knob_rejects max_tasks 15 0 262145 -16 +100 abc 1e3 0x100 "16 " "99999999999999999999"
knob_rejects tasks_per_uid 0 262145 -1 +5 x 1.5 "99999999999999999999"
is "$(sldtest asuser $NOBODY sldtest write $P/max_tasks 99)" EACCES "max_tasks: unprivileged write refused"
is "$(cat $P/max_tasks)" 2000 "max_tasks unchanged"

# ---- growth: 300 tasks at once, past the first chunk ---------------------------
rg=$(ac tasks_refused_growing)
hvpark 300
is "$(cat /tmp/park.out)" "parked=300 failed=0" "park: 300 hypervisor threads ran"
is "$(ac tasks_live)" 300 "300 records alive"
is "$(ac tasks_refused_growing)" "$rg" "none refused while the pool grew"
c=$(ac tasks_capacity)
if [ "$c" -ge 300 ] && [ "$c" -le 512 ]; then ok "the pool grew in chunks: capacity $c for 300 records"
else nok "the pool grew in chunks: capacity $c for 300 records"; fi
is "$(grep -c 'why=hypervisor hv=fx_hv' $S/tasks)" "$(grep -c '' $S/tasks | awk '{ print $1 - 1 }')" "tasks: every listed line is one of them"
like "$(tail -n1 $S/tasks)" '^\.\.\. [0-9]+ more$' "tasks: the rest counted past a page"
is "$(cat $S/in_use)" "fx_hv tasks=300" "in_use counts records in every chunk"
# Releasing fx_hv's tasks walks every chunk.
is "$(knob_w safe_modules fx_hv)" OK "safe_modules=fx_hv: fx_hv no longer watched"
is "$(ac tasks_pinning)" 0 "released: no record pins sld_compat"
is "$(cat $S/in_use)" none "released: in_use none"
is "$(grep -c 'why=hypervisor' $S/tasks)" 0 "released: no task listed as protected for fx_hv"
is "$(knob_w safe_modules -)" OK "safe_modules cleared"
# Detaching walks every chunk too.
dt=$(ac tasks_detached)
mark_dmesg
is "$(knob_w enabled 0)" OK "enabled=0 with 300 records"
like "$(new_dmesg)" 'disabled: 300 protected task\(s\) detached' "disable: 300 detached"
is "$(ac tasks_detached)" $((dt + 300)) "tasks_detached +300"
is "$(ac tasks_live)" 0 "no record left"
is "$(knob_w enabled 1)" OK "enabled=1"
touch /tmp/stop
wait
rm -f /tmp/stop
is "$(ac tasks_capacity)" "$c" "chunks stay until unload (no shrinking)"

# ---- lowering max_tasks below the live count only caps ---------------------------
hvpark 40
is "$(ac tasks_live)" 40 "40 records alive"
is "$(knob_w max_tasks 16)" OK "max_tasks=16 below the live count: accepted"
is "$(ac tasks_live)" 40 "no record taken away"
rf=$(ac tasks_refused_full)
like "$(sldhv run fx_hv 1000 0 1)" '^rc=0 ' "a new hypervisor task runs ..."
is "$(ac tasks_refused_full)" $((rf + 1)) "... refused protection: tasks_refused_full +1"
touch /tmp/stop
wait
rm -f /tmp/stop
is "$(ac tasks_live)" 0 "the 40 went at exit"

# ---- an unprivileged user cannot exhaust it ----------------------------------------
# max_tasks 16: exempt tasks may take 12, 4 are reserved for hypervisor
# tasks; one non-root uid may hold 5.
is "$(knob_w tasks_per_uid 5)" OK "tasks_per_uid=5"
is "$(knob_w exempt_comm sldpark)" OK "exempt_comm sldpark (a name anyone can take)"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y: protected from exec"
ln -sf /tests/bin/sldhv /tmp/sldpark
mkfifo -m 644 /tmp/keep
# park UID N: N processes of UID named sldpark, blocked opening the fifo.
park() { sldtest asuser "$1" sh -c "i=0; while [ \$i -lt $2 ]; do /tmp/sldpark cat /tmp/keep > /dev/null & i=\$((i + 1)); done; wait" & }
settled() { wait_for 300 "[ \$((\$(ac tasks_live) + \$(ac tasks_refused) - $1)) -ge $2 ]"; }
r0=$(ac tasks_refused) rc=$(ac tasks_refused_cap) rf=$(ac tasks_refused_full)
park $NOBODY 8
settled "$r0" 8
is "$(ac tasks_live)" 5 "uid $NOBODY: 5 of its 8 exempt tasks protected"
is "$(ac tasks_refused_cap)" $((rc + 3)) "uid $NOBODY: 3 refused over tasks_per_uid (tasks_refused_cap +3)"
# Three more uids, 4 tasks each (under their cap): 7 fit in the share.
park 65533 4
park 65532 4
park 65531 4
settled "$r0" 20
is "$(ac tasks_live) $(ac tasks_exempt)" "12 12" "more uids: exempt tasks stop at 12 of 16"
is "$(ac tasks_refused_full)" $((rf + 5)) "the others refused: exempt share full (tasks_refused_full +5)"
is "$(ac tasks_refused_cap)" $((rc + 3)) "tasks_refused_cap unchanged by them"
is "$(ac tasks_refused)" $((r0 + 8)) "tasks_refused: 8 in all"
# The hypervisor reserve is theirs alone.
tp=$(ac tasks_protected)
hvpark 4
is "$(ac tasks_live)" 16 "4 hypervisor tasks protected from the reserve"
is "$(ac tasks_protected)" $((tp + 4)) "tasks_protected +4"
is "$(grep -c 'sldhv why=hypervisor hv=fx_hv' $S/tasks)" 4 "tasks lists the 4 hypervisor threads"
is "$(grep -c 'sldpark why=exempt-comm' $S/tasks)" 12 "and the 12 exempt tasks"
rf=$(ac tasks_refused_full)
like "$(sldhv run fx_hv 1000 0 1)" '^rc=0 ' "a 5th hypervisor task runs ..."
is "$(ac tasks_refused_full)" $((rf + 1)) "... refused: max_tasks reached"
touch /tmp/stop
echo > /tmp/keep
wait
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 '[ "$(ac tasks_live)" = 0 ]'
is "$(ac tasks_live) $(ac tasks_exempt)" "0 0" "all records went at exit"
# The per-uid counts went with them: the same uid gets its 5 again.
r0=$(ac tasks_refused)
park $NOBODY 5
settled "$r0" 5
is "$(ac tasks_live) $(ac tasks_refused)" "5 $r0" "uid $NOBODY again: 5 protected, none refused"
echo > /tmp/keep
wait
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 '[ "$(ac tasks_live)" = 0 ]'
# Hypervisor tasks of a non-root uid count against its cap too: a device
# node anyone may open for writing (fx_hv is 0666, like /dev/vboxdrvu)
# must not let one user take the pool from the others' guests.
rc=$(ac tasks_refused_cap)
rm -f /tmp/stop /tmp/park.out
sldtest asuser $NOBODY sldhv park fx_hv 8 /tmp/stop > /tmp/park.out &
wait_for 600 'grep -q parked /tmp/park.out'
is "$(ac tasks_live)" 5 "uid $NOBODY: 5 of its 8 hypervisor tasks protected"
is "$(ac tasks_refused_cap)" $((rc + 3)) "uid $NOBODY: 3 hypervisor tasks refused over tasks_per_uid"
touch /tmp/stop
wait
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 100 '[ "$(ac tasks_live)" = 0 ]'
rm -f /tmp/keep /tmp/sldpark /tmp/stop /tmp/park.out
is "$(knob_w exempt_proactive N)" OK "exempt_proactive N"
is "$(knob_w exempt_comm -)" OK "exempt_comm cleared"
balanced "after the pool"
run "rmmod fx_hv" rmmod fx_hv
unload
