# MSR writes per context switch from real WRMSRs (issue #13 step 7), on
# the enforcing CPU (bench/Makefile vm-cpu): the test QEMU counts every
# vCPU's WRMSRs to MSR_TEST_CTRL (tests/qemu/0004-*.patch, sldcpu
# wrmsrs). Two threads on cpu0 pass a byte (sldhv pingpong), interleaved:
#   unprotected  fx_hv watched (the preempt-notifier key on), neither
#                thread protected
#   protected    both protected: the hold is handed over
#   mixed        one protected: SLD off as it comes in, on as it goes
# Prints: BENCH wrmsr ROUND CASE NS_PER_SWITCH REAL_PER_SWITCH
#         ACCOUNT_PER_SWITCH CSW
# (REAL: cpu0's counted WRMSRs per thread switch; ACCOUNT: sld_compat's
# msr_writes on cpu0 per thread switch, the number 30-ctxsw reports)
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
[ -e /dev/cpu/0/msr ] || insmod /kmod/msr.ko
if ! sldcpu wrmsrs 0 > /dev/null 2>&1; then
	echo "# bench: wrmsr needs the counting test CPU (bench/Makefile vm-cpu)"
	exit 0
fi
R=${BENCH_ROUNDS:-7}
N=20000		# ping-pong rounds (40000 switches)

one() { wrmsr_bench_row wrmsr "$1" "$2" $N; }	# lib.sh

load
insmod /mod/fx_hv.ko
echo bench_none > $P/exempt_comm	# the key on without fx_hv's ioctl
interleave "$R" unprotected protected mixed
echo - > $P/exempt_comm
unload
rmmod fx_hv
