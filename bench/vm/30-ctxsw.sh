# Context-switch and ioctl cost of the per-task engine (runs in the bench
# VM). Context switches: two threads pinned to one CPU pass a byte through
# pipes (sldhv pingpong: 2 switches per round) with sld_compat
#   unloaded      not loaded at all
#   loaded        loaded, no hypervisor module and no exemption (the state
#                 after a plain modprobe on a host without VMware/VirtualBox):
#                 the preempt-notifier key is off
#   unprotected   loaded, a watched hypervisor (fx_hv) and an exemption, so
#                 the preempt-notifier key is on, but the threads unprotected
#   protected     both threads protected (a RUN ioctl on /dev/fx_hv first):
#                 every switch between them hands the hold over, no MSR
#                 write
#   mixed         only one of them protected: every switch between them
#                 is one toggle (SLD off as it comes in, on as it goes)
# and, from the account, the MSR writes (made or skipped) per switch.
# ioctls on a pipe (a device no hypervisor owns, sldhv ioctlcost) with
#   ioctl-unloaded   sld_compat not loaded
#   ioctl-learning   fx_hv watched, its entry not known yet (generic probe)
#   ioctl-known      fx_hv's entry learned, the generic probe idle
# Prints: BENCH ctxsw ROUND CASE NS SWITCHES_OR_CALLS WRITES_PER_SWITCH CSW
# (NS and SWITCHES per ping-pong step, WRITES per switch the threads made,
# CSW those switches)
# In a VM_ICOUNT boot the bench is ctxsw-icount/KVER and NS is guest
# instructions (the guest clock counts them), not wall time.
# shellcheck source=../../tests/lib/vm.sh
. /tests/lib.sh
bench=$(bench_name ctxsw)
R=${BENCH_ROUNDS:-7}
N=20000		# ping-pong rounds (40000 switches)
C=50000		# ioctls

up() {	# up learning|known: sld_compat with fx_hv watched
	lsmod | grep -q '^sld_compat ' || load
	echo bench_none > $P/exempt_comm
	if [ "$1" = known ]; then sldhv nop fx_hv > /dev/null; sleep 0.2; fi
}
down() { lsmod | grep -q '^sld_compat ' && unload; }
emit() { printf 'BENCH\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$bench" "$@"; }
pp() {	# pp ROUND CASE [DEV]
	sleep 1		# let work left by a load or unload finish first
	t0=$(toggles 2>/dev/null || echo 0)
	# shellcheck disable=SC2086 # DEV: none, one word or "fx_hv one", split
	o=$(sldhv pingpong $N $3)
	t1=$(toggles 2>/dev/null || echo 0)
	# Writes per context switch the threads really made (csw: their
	# voluntary and involuntary switches, from getrusage). On PREEMPT_RT a
	# ping-pong step can take two (the pipe's sleeping lock).
	csw=$(field "$o" csw)
	emit "$1" "$2" "$(field "$o" ns_per_switch)" "$(field "$o" switches)" \
		"$(awk -v d=$((t1 - t0)) -v c="$csw" 'BEGIN { printf "%.3f", d / c }')" "$csw"
}
io() {	# io ROUND CASE
	emit "$1" "$2" "$(sldhv ioctlcost $C | sed -n 's/mean_ns=//p')" $C - -
}
one() {
	case $2 in
	unloaded) down; pp "$1" "$2" ;;
	loaded)	# fx_hv out of the way, so nothing takes the key
		down; rmmod fx_hv; load
		[ "$(ac key_held)" = 0 ] || echo "# bench: the key is held in 'loaded'"
		pp "$1" "$2"; unload; insmod /mod/fx_hv.ko ;;
	unprotected) up known; pp "$1" "$2" ;;
	protected) up known; pp "$1" "$2" fx_hv ;;
	mixed) up known; pp "$1" "$2" "fx_hv one" ;;
	ioctl-unloaded) down; io "$1" "$2" ;;
	ioctl-learning) down; up learning; io "$1" "$2" ;;
	ioctl-known) up known; io "$1" "$2" ;;
	esac
}

insmod /mod/fx_hv.ko
interleave "$R" unloaded loaded unprotected protected mixed ioctl-unloaded ioctl-learning ioctl-known
down
rmmod fx_hv
