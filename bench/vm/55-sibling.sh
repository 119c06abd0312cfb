# The SMT sibling of a held core (issue #39) on the enforcing CPU's Intel
# model (split-lock and bus-lock detection, warn mode), booted as one core
# of two threads (bench/Makefile vm-cpu-smt): two threads pass a byte on
# cpu0 (sldhv pingpong), unprotected / protected (both: the hold is handed
# over) / mixed (one), while cpu1 idles; what sld_compat writes to cpu1's
# DEBUGCTL to police it, per switch on cpu0, as the test CPU counts the
# WRMSRs (tests/qemu/0006) and as the account says.
# Prints: BENCH sibwrmsr ROUND CASE NS_PER_SWITCH REAL_PER_SWITCH
#         ACCOUNT_PER_SWITCH CSW
# shellcheck source=../../tests/vm/lib.sh
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
one() {
	case $2 in
	unprotected) dev= ;;
	protected) dev=fx_hv ;;
	mixed) dev="fx_hv one" ;;
	esac
	sleep 1		# work left by the last case done
	r=$(sldcpu wrmsrs 1 debugctl) a=$(acf cpu1 bld_writes)
	# shellcheck disable=SC2086 # dev: none, one word or "fx_hv one"
	out=$(sldhv pingpong $P2 $dev)
	sleep 0.2	# the last kick is in the account
	r=$(($(sldcpu wrmsrs 1 debugctl) - r)) a=$(($(acf cpu1 bld_writes) - a))
	c=$(field "$out" csw)
	if [ "${c:-0}" -eq 0 ]; then echo "# bench: sibling $2: no switches ($out)"; return; fi
	printf 'BENCH\tsibwrmsr\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" \
		"$(field "$out" ns_per_switch)" "$(ratio3 "$r" "$c")" "$(ratio3 "$a" "$c")" "$c"
}
interleave "$R" unprotected protected mixed
echo - > $P/exempt_comm
unload
rmmod fx_hv
