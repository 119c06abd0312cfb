# Issue #25 item 2: where the kernel's split-lock mode cannot be read
# (degraded sld-mode: no CONFIG_KALLSYMS_ALL, so no sld_state), a
# protected task's split lock must not leave SLD off on its core for good.
# hidesym.ko makes a suite kernel look like such a kernel: while it is
# loaded, kallsyms_lookup_name() does not find sld_state (the shipped
# module has no switch for this). sld_compat then learns from the MSR
# whether the kernel runs SLD, puts back on what its #AC path cleared when
# the task's hold ends, and its account says what the MSR holds. On the
# enforcing CPU: after the protected task exits, cpu0's MSR_TEST_CTRL has
# bit 29 again and an unprivileged split lock there traps again.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

SLD=0x20000000
ensure_unloaded
run "insmod hidesym (kallsyms_lookup_name finds no sld_state)" insmod /mod/hidesym.ko
mark_dmesg
run "sld_compat loads" load
like "$(cat $S/degraded)" '^sld-mode: kernel has no sld_state$' "degraded lists sld-mode"
is "$(cat $S/sld_mode)" unknown "sld_mode: unknown"
run "hidesym answered sld_compat's lookup" [ "$(cat /sys/module/hidesym/parameters/hidden)" -ge 1 ]
ncpu=$(grep -c . $ACCT)
if [ $CPU_SLD = 1 ]; then
	insmod /kmod/msr.ko 2>/dev/null
	echo 1 > /proc/sys/kernel/split_lock_mitigate
	like "$(new_dmesg)" 'sld_compat: kernel split-lock mode unknown; MSR_TEST_CTRL says SLD is on \(warn or fatal\)' \
		"dmesg: mode unknown, the MSR says SLD is on"
	is "$(grep -c ' sld=on ' $ACCT)" "$ncpu" "account: sld=on on every CPU, as the MSR says"
	msr_matches "mode unknown, nothing held"

	# A protected task's split locks on cpu0: one #AC, taken by us.
	cp "$(command -v sldcpu)" /tmp/slx
	echo /tmp/slx > $P/exempt_path
	h=$(ac ac_user_handled)
	out=$(sldhv oncpu 0 /tmp/slx time 200 split 0)
	diag "exempt task on cpu0: $out"
	like "$out" 'counter=200$' "exempt task: 200 split locks, counter right"
	is "$(($(ac ac_user_handled) - h))" 1 "exempt task: one #AC, handled by sld_compat"
	run "exempt task: no penalty ($(field "$out" per_lock_us) us/lock)" \
		[ "$(field "$out" per_lock_us)" -lt 1000 ]
	is "$(knob_w exempt_path -)" OK "exempt_path cleared"

	# It exited: SLD is back on under cpu0, and bites the next task.
	sleep 0.1
	is "$(sldcpu msr 0 0x33)" $SLD "after it exited: cpu0 MSR_TEST_CTRL bit 29 set again"
	like "$(grep '^cpu0 ' $ACCT)" ' hold=0 task=0 .* sld=on ' "account cpu0: not held, sld=on"
	msr_matches "after the protected task exited"
	p=$(ac ac_user_passed)
	out=$(sldtest asuser 65534 sldhv oncpu 0 sldcpu time 3 split 30000)
	diag "unprivileged task on cpu0: $out"
	like "$out" 'counter=3$' "unprivileged task: counter right"
	run "unprivileged task on cpu0 traps again, with the kernel's penalty ($(field "$out" per_lock_us) us/lock)" \
		[ "$(field "$out" per_lock_us)" -ge 5000 ]
	run "its #ACs went to the kernel (ac_user_passed +$(($(ac ac_user_passed) - p)))" \
		[ "$(($(ac ac_user_passed) - p))" -ge 1 ]
	is "$(sldcpu msr 0 0x33)" $SLD "cpu0 MSR_TEST_CTRL bit 29 set after it"
else
	is "$(grep -c ' sld=off ' $ACCT)" "$ncpu" "account: sld=off on every CPU (no SLD here)"
	# The #AC path works in this mode: holds are skipped writes.
	run "insmod actest" insmod /mod/actest.ko
	ln -sf /tests/bin/sldtest /tmp/sldgame
	is "$(knob_w exempt_comm sldgame)" OK "exempt_comm=sldgame"
	echo 0 > /proc/sys/kernel/split_lock_mitigate
	protected_user 3 "mode unknown: the exempt task's #ACs handled by us" /tmp/sldgame ac user 3
	echo 1 > /proc/sys/kernel/split_lock_mitigate
	is "$(acct_sum msr_writes)" 0 "no MSR write (no SLD)"
	is "$(acct_sum hold)" 0 "no core held after it exited"
	rm -f /tmp/sldgame
	rmmod actest
fi
run "rmmod sld_compat" unload
run "rmmod hidesym" rmmod hidesym
load
is "$(cat $S/sld_mode)" $KMODE "without hidesym: mode $KMODE again"
is "$(cat $S/degraded)" none "without hidesym: nothing degraded"
unload
