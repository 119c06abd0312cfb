# shellcheck disable=SC2016 # wait_for evaluates its condition at each try
# Issue #38 item 5: on a host with many CPUs (64 vCPUs here) the task pool
# grows past several chunks while tasks come and go: 8 VM-like processes
# of 64 tasks (sldcpu vm) start at once in root's scopes under an
# exempt_cgroup rule (admin records), beside a process in another of its
# scopes that makes and ends threads one after another (sldcpu churn, as
# QEMU's worker pool does). Every task gets its record, none is refused,
# the records go with their tasks, and the memory the pool keeps is what
# its chunks hold.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

CG=/sys/fs/cgroup
mkdir -p $CG
mount -t cgroup2 none $CG 2>/dev/null
M=$CG/sldmany.slice
for i in 1 2 3 4 5 6 7 8 churn; do mkdir -p "$M/vm-$i.scope"; done
ensure_unloaded
load
is "$(knob_w exempt_cgroup /sldmany.slice)" OK "exempt_cgroup /sldmany.slice (root's)"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y"
c0=$(ac tasks_capacity) r0=$(ac tasks_refused) p0=$(ac tasks_protected)
rm -f /tmp/many.stop
in_cg $M/vm-churn.scope sldcpu churn 3000 > /tmp/churn.out &
churn=$!
for i in 1 2 3 4 5 6 7 8; do
	in_cg "$M/vm-$i.scope" sldcpu vm 64 20 2000 @/tmp/many.stop > "/tmp/vm-$i.out" &
done
# The VMs start while the churn runs; once it is done, what is left are
# their 512 tasks, held alive until many.stop.
wait $churn
wait_for 1200 '[ "$(ac tasks_admin)" -ge 512 ]'
live=$(ac tasks_admin) cap=$(ac tasks_capacity)
diag "capacity $c0 -> $cap records, $(ac tasks_admin) admin records alive, $(ac tasks_pool_bytes) bytes"
is "$live" 512 "8 VMs of 64 tasks alive at once after the churn: 512 admin records"
run "the pool grew past several chunks of 128 ($c0 -> $cap records)" [ "$cap" -ge 640 ]
pb=$(ac tasks_pool_bytes) rb=$(ac tasks_record_bytes)
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
run "the pool's memory is its records and fixed tables under 64 KiB ($pb bytes for $cap of $rb)" \
	within "$pb" $((cap * rb)) $((cap * rb + 65536))
touch /tmp/many.stop
wait
bad=0
for i in 1 2 3 4 5 6 7 8; do
	grep -qx 'threads=64 locks=20 slow=[0-9]* counter=20' "/tmp/vm-$i.out" || { bad=$((bad + 1)); diag "vm-$i: $(cat "/tmp/vm-$i.out")"; }
done
is "$bad" 0 "every VM ran its 64 tasks"
like "$(cat /tmp/churn.out)" '^threads=3000 ' "the churn made and ended 3000 threads"
run "every task of them protected ($(($(ac tasks_protected) - p0)) protections)" \
	[ $(($(ac tasks_protected) - p0)) -ge $((512 + 3000)) ]
is "$(ac tasks_refused)" "$r0" "none refused while the pool grew"
wait_for 300 '[ "$(ac tasks_live)" = 0 ]'
is "$(ac tasks_live) $(ac tasks_admin)" "0 0" "the records went with their tasks"
# 512 tasks ending at once on 64 CPUs: up to 64 records wait for their
# task's last switch, the rest go at do_exit; every one comes back.
wait_for 50 '[ "$(ac tasks_exiting)" = 0 ]'
is "$(ac tasks_exiting)" 0 "after 512 tasks ended at once, no record still waits for a last switch"
is "$(ac tasks_capacity)" "$cap" "the chunks stay until unload (no shrinking)"
is "$(knob_w exempt_cgroup -)" OK "exempt_cgroup cleared"
is "$(knob_w exempt_proactive N)" OK "exempt_proactive N"
for i in 1 2 3 4 5 6 7 8 churn; do rmdir "$M/vm-$i.scope"; done
rmdir $M
unload
