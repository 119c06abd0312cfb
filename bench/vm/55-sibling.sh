# The SMT sibling of a held core (issue #39) on the enforcing CPU's Intel
# model (split-lock and bus-lock detection, warn mode), booted as one core
# of two threads (bench/Makefile vm-cpu-smt): two threads pass a byte on
# cpu0 (sldhv pingpong), unprotected / protected (both: the hold is handed
# over) / mixed (one), while cpu1 idles; what sld_compat writes to cpu1's
# DEBUGCTL to police it, per switch on cpu0, as the test CPU counts the
# WRMSRs (tests/qemu/0006) and as the account says.
# Prints: BENCH sibwrmsr ROUND CASE NS_PER_SWITCH REAL_PER_SWITCH
#         ACCOUNT_PER_SWITCH CSW
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
[ -e /dev/cpu/0/msr ] || insmod /kmod/msr.ko
if [ $CPU_SLD = 0 ] || [ $CPU_BLD = 0 ] || [ ! -e /sys/devices/system/cpu/cpu1 ] ||
	! sldcpu wrmsrs 1 debugctl > /dev/null 2>&1; then
	echo "# bench: sibling needs the Intel model with both detections, two threads (bench/Makefile vm-cpu-smt)"
	exit 0
fi
R=${BENCH_ROUNDS:-7}
P2=20000	# ping-pong rounds

load
insmod /mod/fx_hv.ko
echo bench_none > $P/exempt_comm	# the key on without fx_hv's ioctl
PP_MSR=debugctl PP_CPU=1	# wrmsr_pingpong (lib.sh): cpu1's DEBUGCTL writes
one() { wrmsr_bench_row sibwrmsr "$1" "$2" $P2; }	# lib.sh
interleave "$R" unprotected protected mixed
echo - > $P/exempt_comm
unload
rmmod fx_hv
