# The per-task engine: hypervisor tasks protected from their first ioctl,
# SLD held off on their core exactly while they run, the account, the
# vendor bracket API, records that go with their tasks, detaching on
# disable, and unload refused while a hypervisor task lives. fx_hv is a
# simulated hypervisor (VMLAUNCH text, a RUN ioctl); vmmon is shaped like
# VMware's for the profile path.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh


ensure_loaded actest
echo 1 > /proc/sys/kernel/split_lock_mitigate
is "$(cat $P/on_hypervisor)" protect "policy protect"
is "$(ac key_held)" 0 "no hypervisor, no exemption: preempt notifier key not taken"
like "$(grep '^task-exit ' $S/hooks)" '^task-exit do_exit armed$' "task-exit hook on do_exit"
like "$(grep '^exec ' $S/hooks)" '^exec setup_new_exec armed$' "exec hook on setup_new_exec"
like "$(grep '^ioctl-learn ' $S/hooks)" '^ioctl-learn security_file_ioctl idle$' "ioctl-learn idle with no hypervisor"
cost_none=$(field "$(sldhv ioctlcost 20000)" mean_ns)

# ---- generic path: learn the ioctl entry, then hook it ---------------------
run "insmod fx_hv" insmod /mod/fx_hv.ko
like "$(hv fx_hv)" '^fx_hv state=learning via=- ' "fx_hv watched, entry not known yet"
like "$(grep '^ioctl-learn ' $S/hooks)" ' armed$' "ioctl-learn armed while an entry is unknown"
is "$(ac key_held)" 1 "a watched hypervisor takes the preempt notifier key"
cost_learn=$(field "$(sldhv ioctlcost 20000)" mean_ns)
tp=$(ac tasks_protected)
is "$(sldhv nop fx_hv)" OK "a first ioctl on /dev/fx_hv"
is "$(ac tasks_protected)" $((tp + 1)) "its caller was protected (generic path)"
sleep 0.2
like "$(hv fx_hv)" '^fx_hv state=hooked via=learned entry=fx_hv_ioctl ' "entry learned: fx_hv_ioctl hooked"
like "$(grep '^ioctl-learn ' $S/hooks)" ' idle$' "ioctl-learn idle again: other ioctls pay nothing"
cost_known=$(field "$(sldhv ioctlcost 20000)" mean_ns)
diag "ioctl on a pipe: ${cost_none} ns no hypervisor, ${cost_learn} ns learning, ${cost_known} ns entry known"
is "$(ac tasks_live)" 0 "the nop task's record went with it"

# ---- SLD off on the core exactly while the task runs ------------------------
tp=$(ac tasks_protected)
sldhv oncpu 1 sldhv run fx_hv 3000000 0 1 > /tmp/run.out &
sleep 0.4
snap=$(sldhv oncpu 0 sldhv cat $ACCT; sldhv oncpu 0 sldhv cat $S/tasks)
# Sample from cpu0 while it runs: cpu1 may briefly run a kworker (then
# neither held nor on cpu), but it is never held without its task.
: > /tmp/samples
for _ in 1 2 3 4 5 6; do sldhv oncpu 0 sldhv cat $ACCT | grep '^cpu1 ' >> /tmp/samples; sleep 0.1; done
wait
like "$(cat /tmp/run.out)" '^rc=0 handled=0 cpu=1 ' "RUN on cpu1 completed"
like "$(cat /tmp/samples)" 'cpu1 core=[0-9.]+ hold=1 task=1 ' "while it runs: cpu1's core held off, task on cpu1"
is "$(grep -cE ' hold=(1 task=0|0 task=1) ' /tmp/samples)" 0 "while it runs: cpu1 held exactly when its task is on it (6 samples)"
diag "$(cat /tmp/samples)"
like "$snap" 'cpu0 core=[0-9.]+ hold=0 task=0 ' "while it runs: cpu0 (the reader's) not held"
like "$snap" '[0-9]+ sldhv why=hypervisor hv=fx_hv cpu=1 ' "tasks lists it, on cpu1"
is "$(ac tasks_protected)" $((tp + 1)) "one more protected task"
balanced "after the run"

sldhv oncpu 1 sldhv run fx_hv 100000 1500000 1 > /tmp/run.out &
sleep 0.8
snap=$(sldhv oncpu 0 sldhv cat $ACCT; sldhv oncpu 0 sldhv cat $S/tasks)
wait
like "$snap" 'cpu1 core=[0-9.]+ hold=0 task=0 ' "while it sleeps: cpu1 back to the kernel's state"
like "$snap" '[0-9]+ sldhv why=hypervisor hv=fx_hv cpu=1 running=0 ' "while it sleeps: still protected, not running"
balanced "after run+sleep"

# ---- two vCPU threads on the two CPUs ---------------------------------------
out=$(sldhv pair fx_hv 1500)
both=$(echo "$out" | awk '/^cpu0 .* hold=1 task=1 / { a = 1 } /^cpu1 .* hold=1 task=1 / { b = 1 }
	/^--$/ { if (a && b) n++; a = b = 0 } END { print n + 0 }')
if [ "$both" -ge 1 ]; then ok "pair: both cores held off by their threads at the same time ($both of 5 looks)"
else nok "pair: both cores held off by their threads at the same time"; diag "$out"; fi
is "$(echo "$out" | grep -cE '^cpu0 .* hold=(1 task=0|0 task=1) ')" 0 "pair: cpu0 held exactly while its thread runs"
like "$out" 'rc0=0 rc1=0' "pair: both runs completed"
balanced "after the pair"

# ---- migration --------------------------------------------------------------
sw0=$(acct_sum toggles_off)
is "$(sldhv migrate fx_hv 20)" "runs=20 on0=10 on1=10" "migrate: 20 runs alternating CPUs"
if [ $(($(acct_sum toggles_off) - sw0)) -ge 20 ]; then ok "migrate: held off at least once per run"
else nok "migrate: held off at least once per run"; fi
balanced "after migration"

# ---- context switches: nothing for unprotected tasks, <= 2 writes per switch ----
t0=$(toggles)
c0=$(ac sched_calls)
is "$(ac key_held)" 1 "pingpong: the preempt-notifier key is on (fx_hv watched)"
out=$(sldhv pingpong 2000)
is "$(toggles)" "$t0" "pingpong, unprotected: $(field "$out" switches) switches, no toggle"
is "$(ac sched_calls)" "$c0" "pingpong, unprotected: sld_compat code ran on none of their switches"
diag "unprotected: $out"
# Both protected: each switch from one to the other hands the hold over
# (sched_out is told the next task): no toggle, no MSR write. Toggles come
# only from switches to a third task (a kworker, idle), each of which is
# one off and one on; they must stay rare.
t0=$(toggles)
c0=$(ac sched_calls)
h0=$(ac sched_handovers)
out=$(sldhv pingpong 2000 fx_hv)
d=$(($(toggles) - t0))
h=$(($(ac sched_handovers) - h0))
if [ $(($(ac sched_calls) - c0)) -ge 4000 ]; then ok "pingpong, protected: our notifiers ran ($(($(ac sched_calls) - c0)) calls)"
else nok "pingpong, protected: our notifiers ran ($(($(ac sched_calls) - c0)) calls)"; fi
csw=$(field "$out" csw)
diag "both protected: $out, toggles $d, handovers $h"
if [ "$h" -ge 3000 ]; then ok "pingpong, both protected: $h handovers for $csw switches"
else nok "pingpong, both protected: $h handovers for $csw switches"; fi
# csw: the two threads' own context switches (getrusage).
if [ "$d" -le $((csw / 10)) ]; then ok "pingpong, both protected: $d toggles for $csw switches (protected->protected: none)"
else nok "pingpong, both protected: $d toggles for $csw switches (protected->protected: none)"; fi
# One protected, one not: every switch between them is one toggle (off
# when the protected one comes in, on when it goes), at most 2 per switch.
t0=$(toggles)
h0=$(ac sched_handovers)
out=$(sldhv pingpong 2000 fx_hv one)
d=$(($(toggles) - t0))
csw=$(field "$out" csw)
diag "one protected: $out, toggles $d"
if [ "$d" -ge 3000 ] && [ "$d" -le $((2 * csw + 40)) ]; then ok "pingpong, one protected: $d toggles for $csw switches (1..2 per switch)"
else nok "pingpong, one protected: $d toggles for $csw switches (1..2 per switch)"; fi
is "$(ac sched_handovers)" "$h0" "pingpong, one protected: no handover to an unprotected task"
balanced "after pingpong"

# ---- the #AC paths for a protected task --------------------------------------
plain=$(sldtest ac user 5)
pmean=$(field "$plain" mean_us)
like "$plain" '^handled=5 sigbus=0 ' "unprotected, user: the kernel's path (mitigated)"
out=$(sldhv acuser fx_hv 100)
user=$out
like "$out" '^handled=100 sigbus=0 ' "protected, user: 100 split locks handled, no SIGBUS"
pm=$(field "$out" mean_us)
diag "user #AC: unprotected mitigated ${pmean} us, protected ${pm} us"
if [ "${pm:-99999}" -lt 5000 ]; then ok "protected, user: no mitigation sleep, mean ${pm} us < 5000"
else nok "protected, user: no mitigation sleep, mean ${pm} us < 5000"; fi
kguest 2 "unprotected, guest path, mode $KMODE: the kernel's path" sldtest ac guest 2
gh=$(ac ac_guest_handled)
out=$(sldhv run fx_hv 1000 0 50 1)
like "$out" '^rc=0 handled=50 cpu=[01] sigbus=0 ' "protected, guest path: 50 guest #ACs handled, no SIGBUS"
is "$(ac ac_guest_handled)" $((gh + 50)) "ac_guest_handled +50"
hu=$(user_traps 100 "$user" before)	# protected by its RUN
like "$(hv fx_hv)" " ac_user=$hu ac_guest=50\$" "per-hypervisor counters: $hu user, 50 guest"

# ---- profile path: vmmon -------------------------------------------------------
run "insmod vmmon" insmod /mod/vmmon.ko
like "$(hv vmmon)" '^vmmon state=hooked via=profile entry=Vmx86_RunVM ' "vmmon: profile entry Vmx86_RunVM hooked at load"
like "$(grep '^ioctl-learn ' $S/hooks)" ' idle$' "vmmon: no generic learning needed"
tp=$(ac tasks_protected)
is "$(sldhv nop vmmon)" OK "vmmon: a management ioctl"
is "$(ac tasks_protected)" "$tp" "vmmon: management ioctl does not protect (narrow profile)"
like "$(sldhv run vmmon 1000 0 1)" '^rc=0 ' "vmmon: RUN"
is "$(ac tasks_protected)" $((tp + 1)) "vmmon: RUN protects its caller"
like "$(hv vmmon)" ' tasks=1 ' "vmmon: one task counted"
run "rmmod vmmon" rmmod vmmon
is "$(hv vmmon)" "" "vmmon unwatched after unload"
run "insmod vmmon again" insmod /mod/vmmon.ko
like "$(hv vmmon)" '^vmmon state=hooked via=profile entry=Vmx86_RunVM tasks=1 ' "vmmon reloaded: hooked again, its slot and counters kept"
like "$(sldhv run vmmon 1000 0 1)" '^rc=0 ' "vmmon reloaded: RUN"
like "$(hv vmmon)" ' tasks=2 ' "vmmon reloaded: counting on"
run "rmmod vmmon again" rmmod vmmon

# ---- 1000 protected tasks fork and exit ------------------------------------------
te=$(ac tasks_exited)
is "$(sldhv forkrun fx_hv 1000)" "children=1000 failed=0" "1000 children each protected by a RUN, exited"
is "$(ac tasks_live)" 0 "zero records left"
is "$(ac tasks_exited)" $((te + 1000)) "1000 records went at exit"
is "$(cat $S/tasks)" none "tasks: none"
balanced "after 1000 tasks"

# ---- vendor bracket API -----------------------------------------------------------
run "insmod fx_vendor" insmod /mod/fx_vendor.ko
o1=$(acf cpu1 toggles_off) n1=$(acf cpu1 toggles_on) b1=$(acf cpu1 brackets)
is "$(sldhv oncpu 1 sldtest write /sys/module/fx_vendor/parameters/bracket 7)" OK "vendor: 7 guest brackets on cpu1"
is "$(cat /sys/module/fx_vendor/parameters/bracket_result)" "cpu=1 ok=7" "vendor: 7 enters succeeded on cpu1"
is "$(acf cpu1 brackets)" $((b1 + 7)) "vendor: account counts 7 brackets"
is "$(acf cpu1 toggles_off) $(acf cpu1 toggles_on)" "$((o1 + 7)) $((n1 + 7))" \
	"vendor: exactly one off and one on toggle per bracket"
is "$(knob_w enabled 0)" OK "enabled=0"
is "$(sldhv oncpu 1 sldtest write /sys/module/fx_vendor/parameters/bracket 3)" OK "vendor: brackets while disabled"
is "$(cat /sys/module/fx_vendor/parameters/bracket_result)" "cpu=1 ok=0" "vendor: enter refused while disabled"
is "$(acf cpu1 toggles_off)" $((o1 + 7)) "vendor: nothing toggled while disabled"
is "$(knob_w enabled 1)" OK "enabled=1"
run "rmmod fx_vendor" rmmod fx_vendor
balanced "after brackets"

# ---- enabled=0 detaches live protected tasks ------------------------------------------
sldhv oncpu 1 sldhv run fx_hv 2000000 0 1 > /tmp/run.out &
sleep 0.5
mark_dmesg
is "$(knob_w enabled 0)" OK "enabled=0 with a task inside its RUN"
like "$(new_dmesg)" 'sld_compat: disabled: 1 protected task\(s\) detached' "disable: dmesg says one task detached"
like "$(new_dmesg)" 'detached sldhv\[[0-9]+\]' "disable: dmesg names it"
is "$(ac tasks_live)" 0 "disable: no record left"
is "$(ac key_held)" 0 "disable: preempt notifier key dropped"
wait
like "$(cat /tmp/run.out)" '^rc=0 ' "disable: the task finished its run unharmed"
is "$(knob_w enabled 1)" OK "enabled=1"
is "$(ac key_held)" 1 "enabled again: key taken again (fx_hv is watched)"
balanced "after disable"

# ---- unload with a live hypervisor task is refused (more in 87-inuse.sh) ---------------
sldhv oncpu 1 sldhv run fx_hv 2000000 0 1 > /tmp/run.out &
sleep 0.5
is "$(ac tasks_live)" 1 "unload: one live protected task"
mark_dmesg
fails "unload: rmmod sld_compat refused while the hypervisor task lives" rmmod sld_compat
is "$(new_dmesg | grep -c 'detached')" 0 "unload: nothing detached"
wait
like "$(cat /tmp/run.out)" '^rc=0 ' "unload: the task finished its run unharmed"
run "unload: rmmod sld_compat once it exited" rmmod sld_compat
run "reload" load
like "$(hv fx_hv)" '^fx_hv state=learning ' "reload: preloaded fx_hv watched again"
like "$(sldhv run fx_hv 1000 0 1)" '^rc=0 ' "reload: RUN works"
balanced "after reload"
run "rmmod fx_hv" rmmod fx_hv
is "$(cat $S/hypervisors)" none "no hypervisor watched"
