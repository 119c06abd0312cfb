# Issue #37 item 2: the kernel's re-enable work must never turn SLD on
# under a protected task on the sibling thread, whatever preempts where.
# __split_lock_reenable_unlock() is `sld_update_msr(true); up(&buslock_sem)`:
# up() can wake a waiter that preempts the kworker before it returns, so a
# put-back after the function comes too late. sld_compat decides at its
# entry instead (core_msr.c), and withholds the write while the core is
# held. slowup.ko stalls that up() 3 ms every time, the window a
# preemption there opens, so the check does not depend on luck.
#
# cpu1: a protected task (exempt_path, exempt_proactive=Y) split-locks
# every millisecond without leaving its CPU, as a vCPU running its guest;
# an unprotected sleeper wakes there every 7.3 ms (off the 4 ms tick the
# kernel's work runs on), releasing the core for a moment. cpu0: two unprotected split lockers with split_lock_mitigate=1:
# each trap there queues the kernel's re-enable work on cpu0 (and takes
# buslock_sem), mostly while cpu1's task holds the core. The protected
# task must take no #AC with SLD on under it (ac_sld_cleared stays 0); the
# kernel's writes under it are withheld; the unprotected ones keep paying.
# With preempt=full where the kernel can switch at run time (PREEMPT_RT
# always preempts).
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

PM=/sys/kernel/debug/sched/preempt
SECS=4

if [ $CPU_SLD = 0 ]; then
	# No #AC on this CPU: nothing queues the kernel's re-enable work.
	skip "the kernel's re-enable under a protected sibling" "the CPU has no split-lock detection"
else
	load
	msr_dev
	insmod /mod/slowup.ko ms=3
	cp "$(command -v sldcpu)" /tmp/slx
	echo /tmp/slx > $P/exempt_path
	echo Y > $P/exempt_proactive
	echo 1 > /proc/sys/kernel/split_lock_mitigate
	[ ! -w $PM ] || echo full > $PM
	diag "preemption: $(cat $PM 2>/dev/null || uname -v)"
	is "$(sldcpu msr 0 0x33)" 0x20000000 "SLD on before the run (nothing held)"
	is "$(grep -E '^(reenable|reenable-unlock|cpu-offline) ' $S/hooks | grep -c ' override=[a-z0-9-]* armed$')" 3 \
		"the three re-enable paths are override hooks, armed"

	cleared=$(ac ac_sld_cleared) handled=$(ac ac_user_handled)
	w0=$(acct_sum withheld)
	mark_dmesg
	# About SECS seconds of 1 ms gaps, on cpu1 without a switch; the
	# others start once it holds the core (on a host busy with a second
	# VM it once started late: CI saw none withheld on 6.1). Again, up to
	# three runs, while no re-enable came under the held core; every run
	# must pass the rest.
	for r in 1 2 3; do
		sldhv oncpu 1 /tmp/slx spin $((SECS * 1000)) split 1000 > /tmp/prot.out &
		wait_for 100 "grep -q '^cpu1 .* task=1 ' $ACCT"
		sldhv oncpu 1 sldcpu time $((SECS * 137)) aligned 7300 > /tmp/nap.out &
		sldhv oncpu 0 sldcpu spin $((SECS * 500)) split 2000 > /tmp/u1.out &
		sldhv oncpu 0 sldcpu spin $((SECS * 500)) split 2000 > /tmp/u2.out &
		wait
		prot=$(cat /tmp/prot.out)
		diag "run $r, protected: $prot"
		diag "unprotected on cpu0: $(cat /tmp/u1.out) / $(cat /tmp/u2.out)"
		like "$prot" "counter=$((SECS * 1000))\$" "run $r, the protected task: every lock done"
		[ "$(acct_sum withheld)" -le "$w0" ] || break
	done
	diag "kernel re-enables stalled in up(): $(cat /sys/module/slowup/parameters/delayed)"
	diag "$(cat $ACCT)"
	is "$(($(ac ac_sld_cleared) - cleared))" 0 \
		"no #AC of the protected task found SLD on under it (ac_sld_cleared)"
	is "$(($(ac ac_user_handled) - handled))" 0 \
		"the protected task took no #AC at all (protected from exec)"
	run "the kernel's re-enable writes under it were withheld ($w0 -> $(acct_sum withheld))" \
		[ "$(acct_sum withheld)" -gt "$w0" ]
	run "the kernel's re-enable work ran through the stalled up()" \
		[ "$(cat /sys/module/slowup/parameters/delayed)" -ge 1 ]
	run "the unprotected ones on cpu0 took the kernel's trap" \
		[ "$(new_dmesg | grep -c 'sldcpu/[0-9]* took a split_lock trap')" -ge 1 ]
	is "$(new_dmesg | grep -c 'slx/[0-9]* took a split_lock trap')" 0 \
		"no kernel trap line for the protected task"
	echo - > $P/exempt_path
	echo N > $P/exempt_proactive
	rmmod slowup
	msr_matches "after the run"
	unload
fi
