# The bus-lock #DB path on the enforcing CPU's AMD model in
# split_lock_detect=ratelimit:1, on a kernel that sets the bus-lock bit
# there (bench/Makefile vm-cpu-bld, issue #29 item 5), two benchmarks:
#  dbtrap  what a split-locking program pays per lock, cases interleaved,
#          order rotating, the locked add's time alone:
#    aligned     aligned locked adds, no #DB: the floor
#    kernel      split, unprotected: the kernel's ratelimit sleeps it to one
#                bus lock a second (M locks in a row)
#    exempt      split, exempt by path: sld_compat takes the first #DB,
#                then DEBUGCTL's bus-lock bit is off under the task (AMD)
#    proactive   the same with exempt_proactive=Y: no #DB at all
#  dbgwrmsr  WRMSRs to DEBUGCTL per context switch, counted by the test CPU
#          (tests/qemu/0006): two threads on cpu0 pass a byte (sldhv
#          pingpong), unprotected / protected (both: the hold is handed
#          over) / mixed (one)
# Prints: BENCH dbtrap ROUND CASE MEAN_NS LOCKS
#         BENCH dbgwrmsr ROUND CASE NS_PER_SWITCH REAL_PER_SWITCH
#         ACCOUNT_PER_SWITCH CSW
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
[ -e /dev/cpu/0/msr ] || insmod /kmod/msr.ko
if [ "$(sldcpu msr 0 0x1d9)" != 0x4 ] || ! sldcpu wrmsrs 0 debugctl > /dev/null 2>&1; then
	echo "# bench: buslock needs the kernel's bus-lock bit and the counting test CPU (bench/Makefile vm-cpu-bld)"
	exit 0
fi
R=${BENCH_ROUNDS:-7}
N=20	# locks per fast case
M=3	# locks on the ratelimit path (up to a second each)
P2=20000	# ping-pong rounds

load
cp "$(command -v sldcpu)" /tmp/blx
echo /tmp/blx > $P/exempt_path
trap_one() {	# one ROUND CASE
	n=$N
	case $2 in
	aligned) o=$(sldhv oncpu 0 sldcpu time $N aligned 0) ;;
	kernel) n=$M; o=$(sldhv oncpu 0 sldcpu time $M split 0) ;;
	exempt) o=$(sldhv oncpu 0 /tmp/blx time $N split 0) ;;
	proactive) echo Y > $P/exempt_proactive
		o=$(sldhv oncpu 0 /tmp/blx time $N split 0)
		echo N > $P/exempt_proactive ;;
	esac
	printf 'BENCH\tdbtrap\t%s\t%s\t%s\t%s\n' "$1" "$2" "$(field "$o" per_lock_ns)" "$n"
}
one() { trap_one "$@"; }
interleave "$R" aligned kernel exempt proactive
echo - > $P/exempt_path

PP_MSR=debugctl	# wrmsr_pingpong (lib.sh) counts WRMSRs to DEBUGCTL
insmod /mod/fx_hv.ko
echo bench_none > $P/exempt_comm	# the key on without fx_hv's ioctl
one() { wrmsr_bench_row dbgwrmsr "$1" "$2" $P2; }	# lib.sh
interleave "$R" unprotected protected mixed
echo - > $P/exempt_comm
unload
rmmod fx_hv
