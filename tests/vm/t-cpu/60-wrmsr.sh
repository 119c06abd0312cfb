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
# In each, the real count equals the account's msr_writes on cpu0.
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
run "mixed: about one WRMSR per switch ($real for $csw switches)" \
	[ $((real * 2)) -ge "$csw" -a "$real" -le $((csw + 10)) ]
msr_matches "after the ping-pongs"
unload
rmmod fx_hv
sleep 0.1
is "$(sldcpu msr 0 0x33)" $SLD "unloaded: cpu0 MSR_TEST_CTRL back to the kernel's bit 29"
rmmod msr
