# Thread create+exit in a relieved scope (issue #38 item 3): QEMU's worker
# pool makes and ends threads all the time, and with exempt_proactive=Y
# each one in a relieved cgroup takes a record at clone (a probe on
# wake_up_new_task, in the parent) and gives it back after its last
# switch. sldcpu churn N, pinned to CPU 0, in
#   plain     a cgroup no rule names (sld_compat loaded, the rule set)
#   relieved  a root's cgroup the exempt_cgroup rule names
# Prints: BENCH churn|churn-sld ROUND CASE NS_PER_THREAD PROTECTIONS WRMSRS
# (tasks_protected during the run: one per thread in relieved, none in
# plain; cpu0's WRMSRs to MSR_TEST_CTRL as the enforcing CPU counts them,
# tests/qemu/0004, 0 on the stock CPU)
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
# churn on a CPU without split-lock detection (bookkeeping only),
# churn-sld on the enforcing one (the MSR writes of each switch as well).
if [ "$CPU_SLD" = 1 ]; then bench=$(bench_name churn-sld); else bench=$(bench_name churn); fi
R=${BENCH_ROUNDS:-7}
N=5000
CG=/sys/fs/cgroup
mkdir -p $CG
mount -t cgroup2 none $CG 2>/dev/null
mkdir -p $CG/benchplain.slice $CG/benchrelieved.slice
lsmod | grep -q '^sld_compat ' || load
echo /benchrelieved.slice > $P/exempt_cgroup
echo Y > $P/exempt_proactive
[ "$CPU_SLD" = 1 ] && msr_dev
wrmsrs() { if [ "$CPU_SLD" = 1 ]; then sldcpu wrmsrs 0; else echo 0; fi; }
emit() { printf 'BENCH\t%s\t%s\t%s\t%s\t%s\t%s\n' "$bench" "$@"; }
one() {	# one ROUND CASE
	sleep 1
	p0=$(ac tasks_protected) w0=$(wrmsrs)
	# shellcheck disable=SC2016 # $$ is the inner shell's
	o=$(sh -c 'echo $$ > "$0/cgroup.procs" && exec sldhv oncpu 0 sldcpu churn "$1"' \
		"$CG/bench$2.slice" $N)
	emit "$1" "$2" "$(field "$o" ns_per_thread)" $(($(ac tasks_protected) - p0)) \
		$(($(wrmsrs) - w0))
}
interleave "$R" plain relieved
echo - > $P/exempt_cgroup
echo N > $P/exempt_proactive
unload
rmdir $CG/benchplain.slice $CG/benchrelieved.slice
