# Context-switch and ioctl cost of the per-task engine (runs in the bench
# VM). Context switches: two threads pinned to one CPU pass a byte through
# pipes (sldhv pingpong: 2 switches per round) with sld_compat
#   unloaded      not loaded at all
#   unprotected   loaded, a watched hypervisor (fx_hv) and an exemption, so
#                 the preempt-notifier key is on, but the threads unprotected
#   protected     both threads protected (a RUN ioctl on /dev/fx_hv first)
# and, from the account, the MSR writes (made or skipped) per switch.
# ioctls on a pipe (a device no hypervisor owns, sldhv ioctlcost) with
#   ioctl-unloaded   sld_compat not loaded
#   ioctl-learning   fx_hv watched, its entry not known yet (generic probe)
#   ioctl-known      fx_hv's entry learned, the generic probe idle
# Prints: BENCH ctxsw ROUND CASE NS SWITCHES_OR_CALLS WRITES_PER_SWITCH
. /tests/lib.sh
R=${BENCH_ROUNDS:-7}
N=20000		# ping-pong rounds (40000 switches)
C=50000		# ioctls

up() {	# up learning|known: sld_compat with fx_hv watched
	lsmod | grep -q '^sld_compat ' || load
	echo bench_none > $P/exempt_comm
	if [ "$1" = known ]; then sldhv nop fx_hv > /dev/null; sleep 0.2; fi
}
down() { lsmod | grep -q '^sld_compat ' && unload; }
emit() { printf 'BENCH\tctxsw\t%s\t%s\t%s\t%s\t%s\n' "$@"; }
pp() {	# pp ROUND CASE [DEV]
	t0=$(toggles 2>/dev/null || echo 0)
	o=$(sldhv pingpong $N $3)
	t1=$(toggles 2>/dev/null || echo 0)
	sw=$(echo "$o" | sed -n 's/.*switches=\([0-9]*\).*/\1/p')
	ns=$(echo "$o" | sed -n 's/.*ns_per_switch=\([0-9]*\).*/\1/p')
	emit $1 $2 "$ns" "$sw" "$(awk -v d=$((t1 - t0)) -v s=$sw 'BEGIN { printf "%.3f", d / s }')"
}
io() {	# io ROUND CASE
	emit $1 $2 "$(sldhv ioctlcost $C | sed -n 's/mean_ns=//p')" $C -
}
one() {
	case $2 in
	unloaded) down; pp $1 $2 ;;
	unprotected) up known; pp $1 $2 ;;
	protected) up known; pp $1 $2 fx_hv ;;
	ioctl-unloaded) down; io $1 $2 ;;
	ioctl-learning) down; up learning; io $1 $2 ;;
	ioctl-known) up known; io $1 $2 ;;
	esac
}

insmod /mod/fx_hv.ko
interleave $R unloaded unprotected protected ioctl-unloaded ioctl-learning ioctl-known
down
rmmod fx_hv
