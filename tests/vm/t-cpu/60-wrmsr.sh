# Issue #13 step 7 on the enforcing CPU: the MSR writes sld_compat's
# account claims are the WRMSRs the CPU executed. The test QEMU counts
# every vCPU's WRMSRs to MSR_TEST_CTRL (tests/qemu/0004-*.patch; read
# with sldcpu wrmsrs). Two threads on cpu0 pass a byte back and forth
# (sldhv pingpong) while nothing split-locks, so the kernel writes
# nothing itself and every WRMSR on cpu0 is sld_compat's:
#   unprotected  fx_hv watched, neither thread protected: no WRMSR
#   protected    both protected: the hold is handed over, no WRMSR per
#                switch
#   mixed        one protected: SLD off as it comes in, on as it goes
#                out, about one WRMSR per switch
# In each, the real count equals the account's msr_writes on cpu0. Then
# churn: threads made and ended under a protected parent (below).
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

SLD=0x20000000
N=2000		# ping-pong rounds: 4000 switches
insmod /kmod/msr.ko allow_writes=on
w0() { sldcpu wrmsrs 0; }

n=$(w0)
run "the CPU counts WRMSRs to MSR_TEST_CTRL" [ -n "$n" ]
[ -n "$n" ] || { rmmod msr; exit 0; }	# a QEMU without tests/qemu/0004
sldcpu msr 0 0x33 "$(sldcpu msr 0 0x33)" > /dev/null
is "$(($(w0) - n))" 1 "one WRMSR through the msr driver counts one"

# pp CASE [DEV [one]]: ping-pong (lib.sh wrmsr_pingpong); sets real,
# acct (cpu0's WRMSRs, real and as the account says) and csw.
pp() {
	_case=$1
	shift
	sleep 0.5	# work left by the last case (a release's re-enable) done
	wrmsr_pingpong $N "$@"
	real=$pp_real acct=$pp_acct csw=$pp_csw
	diag "$_case: $pp_out real_wrmsr=$real account_msr_writes=$acct"
	is "$real" "$acct" "$_case: cpu0's real WRMSRs ($real) are the account's"
}

load
insmod /mod/fx_hv.ko
pp unprotected
is "$real" 0 "unprotected: no WRMSR"
# Protected: writes only where another task (a kworker, on PREEMPT_RT
# an IRQ thread) ran between the two: 10 per 4000 switches on 7.2, 50 on
# 7.2-rt. Per switch they would be about 4000, as in mixed.
# At least two (SLD off as the first comes in, on as the last goes), and
# the switches between them were handovers, not unprotected ones.
ho=$(ac sched_handovers)
pp protected fx_hv
ho=$(($(ac sched_handovers) - ho))
run "protected: the hold is handed over ($real WRMSRs, $ho handovers for $csw switches)" \
	[ "$real" -ge 2 -a $((real * 10)) -lt "$csw" -a $((ho * 2)) -ge "$csw" ]
pp mixed fx_hv one
# Above one per switch: other tasks on cpu0 (2 writes each time one
# comes between the protected thread and the other), as many as the
# machine's load brings: 11 and 23 in a CI run beside two VMs (6.1,
# 6.1-rt). Two per switch, a write too many, stays far outside 2%.
run "mixed: about one WRMSR per switch ($real for $csw switches)" \
	[ $((real * 2)) -ge "$csw" -a "$real" -le $((csw + csw / 50 + 10)) ]
msr_matches "after the ping-pongs"
rmmod fx_hv

# churn (issue #38 item 3): a protected thread on cpu0 starts and joins
# threads one after another in its relieved cgroup, as QEMU's worker pool
# makes and ends them. Each child is protected at clone, before it first
# runs, and keeps its record to its last switch: the hold passes parent
# -> child -> parent without a WRMSR: two handovers a thread. Protected
# at its start and let go at do_exit, a thread cost 4 writes and no
# handover; either half alone costs 2 writes and one handover. Writes
# left: the parent's first and last, and 2 for any other task that runs
# on cpu0 in between (the kernel's: 10 to 30 per 400 threads on 6.1, 216
# to 712 on 6.1-rt, whose timers and RCU callbacks run in threads and
# take some of the handovers' places).
CG=/sys/fs/cgroup
mkdir -p $CG
mount -t cgroup2 none $CG 2>/dev/null
mkdir -p $CG/churn.slice
echo /churn.slice > $P/exempt_cgroup
echo Y > $P/exempt_proactive
like "$(grep '^task-clone ' $S/hooks)" '^task-clone wake_up_new_task armed$' \
	"churn: the clone probe is armed"
T=400
live0=$(ac tasks_live) prot0=$(ac tasks_protected) cap0=$(ac tasks_capacity)
r0=$(w0) a0=$(acf cpu0 msr_writes) ho=$(ac sched_handovers)
out=$(in_cg $CG/churn.slice sldhv oncpu 0 sldcpu churn $T)
wait_for 50 "[ \"\$(ac tasks_live)\" = $live0 ]"
r1=$(w0) a1=$(acf cpu0 msr_writes)
real=$((r1 - r0)) acct=$((a1 - a0)) ho=$(($(ac sched_handovers) - ho))
diag "churn: $out real_wrmsr=$real account_msr_writes=$acct handovers=$ho"
is "$(($(ac tasks_protected) - prot0))" $((T + 1)) \
	"churn: the parent and its $T threads protected"
is "$(ac tasks_live)" "$live0" "churn: every record gone with its task"
# shellcheck disable=SC2016 # wait_for evaluates it at each try
wait_for 50 '[ "$(ac tasks_exiting)" = 0 ]'
is "$(ac tasks_exiting)" 0 "churn: no record waits after the last thread's last switch"
# At most a chunk more: the pool keeps a chunk free ahead (the first
# protected task brings a second one), and threads that end faster than
# 64 a tick leave up to 64 records waiting, which it grows for.
cap=$(ac tasks_capacity)
run "churn: the pool grew at most a chunk ($cap0 -> $cap): each record came back after its task's last switch" \
	[ "$cap" -le $((cap0 + 128)) ]
is "$real" "$acct" "churn: cpu0's real WRMSRs ($real) are the account's"
run "churn: the switches into and out of each thread are handovers ($ho for $T threads)" \
	[ -n "$out" -a $((ho * 2)) -ge $((T * 3)) ]
# The other tasks' writes grow with the load: 712 per 400 threads on
# 6.1-rt in a CI run beside two VMs. The handovers above tell a half
# missing; this bound the old 4 a thread.
run "churn: under three WRMSRs per thread ($real for $T threads)" \
	[ -n "$out" -a "$real" -lt $((T * 3)) ]
sld_on_wait 0
is "$(sldcpu msr 0 0x33)" $SLD "churn: cpu0 has detection on once no protected task runs"
echo - > $P/exempt_cgroup
echo N > $P/exempt_proactive
rmdir $CG/churn.slice
unload
sleep 0.1
is "$(sldcpu msr 0 0x33)" $SLD "unloaded: cpu0 MSR_TEST_CTRL back to the kernel's bit 29"
rmmod msr
