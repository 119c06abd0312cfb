# What a split-locking program pays per lock on a CPU that enforces
# split-lock detection (bench/Makefile vm-cpu boots VM_CPU=enforcing):
# real #AC traps, unlike 10-ac.sh, which calls the handlers by ioctl.
# Cases, interleaved, order rotating; N locked adds each, 30 ms apart
# (the kernel re-enables detection 2 jiffies after a trap, so every
# unprotected split lock traps); the time is the locked add's alone:
#   aligned     aligned locked adds, no #AC: the floor
#   kernel-m1   split, unprotected, split_lock_mitigate=1: #AC + 10 ms sleep
#   kernel-m0   split, unprotected, split_lock_mitigate=0: #AC, warn path
#   exempt      split, exempt by path: sld_compat takes the first #AC
#               and turns SLD off under the task, no #AC after it
#   proactive   the same with exempt_proactive=Y: protected at exec, no #AC
# Prints: BENCH actrap ROUND CASE MEAN_NS LOCKS
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
if ! grep -qw split_lock_detect /proc/cpuinfo; then
	echo "# bench: actrap needs a CPU with split-lock detection (bench/Makefile vm-cpu)"
	exit 0
fi
R=${BENCH_ROUNDS:-7}
N=20	# locks per fast case
M=3	# locks on the mitigated path (10 ms each)

load
cp "$(command -v sldcpu)" /tmp/slx
echo /tmp/slx > $P/exempt_path
mit() { echo "$1" > /proc/sys/kernel/split_lock_mitigate; }
one() {	# one ROUND CASE
	n=$N
	case $2 in
	aligned) mit 1; o=$(sldhv oncpu 0 sldcpu time $N aligned 30000) ;;
	kernel-m1) mit 1; n=$M; o=$(sldhv oncpu 0 sldcpu time $M split 30000) ;;
	kernel-m0) mit 0; o=$(sldhv oncpu 0 sldcpu time $N split 30000) ;;
	exempt) mit 1; o=$(sldhv oncpu 0 /tmp/slx time $N split 30000) ;;
	proactive) mit 1; echo Y > $P/exempt_proactive
		o=$(sldhv oncpu 0 /tmp/slx time $N split 30000)
		echo N > $P/exempt_proactive ;;
	esac
	printf 'BENCH\tactrap\t%s\t%s\t%s\t%s\n' "$1" "$2" "$(field "$o" per_lock_ns)" "$n"
}
interleave "$R" aligned kernel-m1 kernel-m0 exempt proactive
mit 1
echo - > $P/exempt_path
unload
