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
# shellcheck source=../../tests/vm/lib.sh
. /tests/lib.sh
[ -e /dev/cpu/0/msr ] || insmod /kmod/msr.ko
if ! sldcpu wrmsrs 0 > /dev/null 2>&1; then
	echo "# bench: wrmsr needs the counting test CPU (bench/Makefile vm-cpu)"
	exit 0
fi
R=${BENCH_ROUNDS:-7}
N=20000		# ping-pong rounds (40000 switches)

per() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
one() {	# one ROUND CASE
	case $2 in
	unprotected) dev= ;;
	protected) dev=fx_hv ;;
	mixed) dev="fx_hv one" ;;
	esac
	sleep 1		# work left by the last case done
	# shellcheck disable=SC2086 # dev: none, one word or "fx_hv one", split
	wrmsr_pingpong $N $dev	# lib.sh: sets pp_out, pp_real, pp_acct, pp_csw
	csw=$pp_csw
	if [ "${csw:-0}" -eq 0 ]; then echo "# bench: wrmsr $2: no switches ($pp_out)"; return; fi
	printf 'BENCH\twrmsr\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$(field "$pp_out" ns_per_switch)" \
		"$(per $pp_real "$csw")" "$(per $pp_acct "$csw")" "$csw"
}

load
insmod /mod/fx_hv.ko
echo bench_none > $P/exempt_comm	# the key on without fx_hv's ioctl
interleave "$R" unprotected protected mixed
echo - > $P/exempt_comm
unload
rmmod fx_hv
