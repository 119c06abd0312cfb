# shellcheck disable=SC2016 # wait_for evaluates its condition at each try
# Issue #38 item 4, a bad day: the task pool cannot grow. nomem.ko makes
# sld_compat's chunk allocation fail (an injected allocation failure, as
# when the kernel has no memory for it). A VM-like process of 200 tasks
# in root's scope, under a rule only root can satisfy, finds the first
# chunk's 128 records and no more: the rest are refused and counted
# (tasks_refused_nomem, tasks_refused_admin), the refusal is logged once
# with the reason and the rule, sldctl doctor reports an error with what
# to do, nothing crashes (vm.sh checks dmesg). With memory back, relief
# resumes: the next such process grows the pool and is relieved.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

CG=/sys/fs/cgroup
mkdir -p $CG
mount -t cgroup2 none $CG 2>/dev/null
V=$CG/sldnm.slice
[ -d $V ] && rmdir $V
ensure_unloaded
load
echo 1 > /proc/sys/kernel/split_lock_mitigate
mkdir $V
is "$(knob_w exempt_cgroup /sldnm.slice)" OK "exempt_cgroup /sldnm.slice (root's)"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y"
is "$(ac tasks_capacity)" 128 "one chunk of 128 records at load"
run "insmod nomem.ko: the pool's growth fails from now on" insmod /mod/nomem.ko
NM=/sys/module/nomem/parameters

# The first refusals may come before the first failed growth: "growing".
expect_dmesg 'sld_compat: not protecting sldcpu\[[0-9]+\] \(uid 0\): no free record(: the pool could not grow \(out of memory\)| yet: the pool is growing), under exempt_cgroup rule /sldnm\.slice, which only root can satisfy'
mark_dmesg
rn=$(ac tasks_refused_nomem) ra=$(ac tasks_refused_admin)
out=$(in_cg "$V" sldcpu vm 200 20 2000 500)
diag "with no memory: $out; fx_nomem failed $(cat $NM/failed) allocations"
like "$out" '^threads=200 locks=20 ' "a 200-task process ran (no crash)"
is "$(ac tasks_capacity)" 128 "the pool did not grow"
run "fx_nomem made its growth fail ($(cat $NM/failed) times)" [ "$(cat $NM/failed)" -ge 1 ]
run "tasks refused for no memory ($(($(ac tasks_refused_nomem) - rn)))" \
	[ "$(ac tasks_refused_nomem)" -gt "$rn" ]
run "counted as refusals under a rule only root can satisfy ($(($(ac tasks_refused_admin) - ra)))" \
	[ "$(ac tasks_refused_admin)" -gt "$ra" ]
is "$(new_dmesg | grep -c 'not protecting sldcpu\[[0-9]*\] (uid 0): no free record: the pool could not grow (out of memory), under exempt_cgroup rule /sldnm.slice, which only root can satisfy$')" 1 \
	"the refusal logged once, with the task, uid, rule and reason"
like "$(sldctl doctor 2>&1)" '\[error\] tasks-refused-admin: [0-9]+ refusal\(s\) of protection since load for tasks under rules only root can satisfy \(of all refusals: [1-9][0-9]* for no memory' \
	"sldctl doctor: an error, with what to do"
wait_for 100 '[ "$(ac tasks_live)" = 0 ]'

# ---- memory back: relief resumes ---------------------------------------------
echo N > $NM/fail
rn=$(ac tasks_refused_nomem) p0=$(passed)
out=$(in_cg "$V" sldcpu vm 200 20 2000 500)
diag "with memory: $out"
like "$out" '^threads=200 locks=20 ' "the next 200-task process ran"
run "the pool grew ($(ac tasks_capacity) records)" [ "$(ac tasks_capacity)" -ge 256 ]
is "$(ac tasks_refused_nomem)" "$rn" "no refusal for memory"
is "$(passed)" "$p0" "its vCPU relieved: none of its #ACs went to the kernel"
run "rmmod nomem" rmmod nomem
is "$(knob_w exempt_cgroup -)" OK "exempt_cgroup cleared"
is "$(knob_w exempt_proactive N)" OK "exempt_proactive N"
wait_for 100 '[ "$(ac tasks_live)" = 0 ]'
rmdir $V
unload
