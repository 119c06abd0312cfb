# #AC handling latency (runs in the bench VM, see tests/vm/vm.sh KVER bench).
# One ioctl of /dev/fx_actest calls the kernel's handler from task context
# (TCG raises no #AC), so every case pays the same syscall round trip; the
# null case is that round trip alone. Cases, interleaved, order rotating:
#   exempt-user       handle_user_split_lock, task in exempt_comm (our path)
#   kernel-user-m1    the kernel's path, split_lock_mitigate=1 (10 ms sleep)
#   kernel-user-m0    the kernel's path, split_lock_mitigate=0
#   exempt-guest      handle_guest_split_lock, task exempt (our path)
#   kernel-guest-m1/0 the kernel's guest path; under TCG the kernel's mode is
#                     off, so it is the SIGBUS branch (mitigate not read)
#   kernel-guest-warn-m1/0 what that path runs in warn mode, the default on
#                     SLD hardware: split_lock_warn(ip), called directly
#   null              the ioctl alone
# Prints: BENCH ac ROUND CASE MEAN_NS CALLS
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
R=${BENCH_ROUNDS:-7}
N=2000	# calls per fast case
M=5	# calls on the mitigated path (10 ms each)

load
insmod /mod/actest.ko
ln -sf /tests/bin/sldtest /tmp/sldgame
echo sldgame > $P/exempt_comm
mit() { echo "$1" > /proc/sys/kernel/split_lock_mitigate; }
one() {	# one ROUND CASE
	case $2 in
	exempt-user) mit 1; o=$(/tmp/sldgame ac user $N); n=$N ;;
	kernel-user-m1) mit 1; o=$(sldtest ac user $M); n=$M ;;
	kernel-user-m0) mit 0; o=$(sldtest ac user $N); n=$N ;;
	exempt-guest) mit 1; o=$(/tmp/sldgame ac guest $N); n=$N ;;
	kernel-guest-m1) mit 1; o=$(sldtest ac guest $N); n=$N ;;
	kernel-guest-m0) mit 0; o=$(sldtest ac guest $N); n=$N ;;
	kernel-guest-warn-m1) mit 1; o=$(sldtest ac guest-warn $M); n=$M ;;
	kernel-guest-warn-m0) mit 0; o=$(sldtest ac guest-warn $N); n=$N ;;
	null) o=$(sldtest ac null $N); n=$N ;;
	esac
	printf 'BENCH\tac\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" \
		"$(echo "$o" | sed -n 's/.*mean_ns=\([0-9]*\).*/\1/p')" "$n" \
		"$(echo "$o" | sed -n 's/^\(handled=[0-9]* sigbus=[0-9]*\).*/\1/p' | tr ' ' ,)"
}
interleave "$R" exempt-user kernel-user-m1 kernel-user-m0 exempt-guest kernel-guest-m1 kernel-guest-m0 \
	kernel-guest-warn-m1 kernel-guest-warn-m0 null
mit 1
echo - > $P/exempt_comm
rmmod actest
unload
