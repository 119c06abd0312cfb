# Issue #39: every other task keeps split-lock detection, SMT siblings
# included. While a protected task holds the core's SLD off on cpu0, a
# task on cpu1, the other thread of the core, would split-lock undetected
# (MSR_TEST_CTRL is per core).
#  - Intel with split-lock and bus-lock detection (the enforcing model):
#    sld_compat sets DEBUGCTL's bus-lock bit on cpu1 while cpu0 holds, so
#    the unprotected task's split locks trap by #DB and get what the
#    kernel's warn mode gives a split locker (its line, the
#    split_lock_mitigate penalty); the protected task pays nothing; the
#    test CPU's count of DEBUGCTL writes on cpu1 is the account's.
#  - Split-lock detection only (enforcing-nobld, as Ice Lake): nothing can
#    police cpu1; its exposure (the user time it runs beside the held
#    core) is counted, rises while an unprotected task runs there and
#    stops when it leaves.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

dbc() { grep "^$1 " $S/db | cut -d' ' -f2; }
DEBUGCTL=0x1d9
N=20

# protect_cpu0 SECS: a protected task split-locks every ms on cpu0, SECS
# seconds without leaving its CPU (a vCPU running its guest); its output
# in /tmp/prot.out. Returns once cpu0 holds the core.
protect_cpu0() {
	sldhv oncpu 0 /tmp/slx spin $(($1 * 1000)) split 1000 > /tmp/prot.out &
	prot=$!
	wait_for 50 "grep -q '^cpu0 .* hold=1 task=1 ' $ACCT"
}

# held_line CPU: CPU's account line while cpu0 holds the core, read from
# cpu1: a reader on cpu0 would take the protected task's place and the
# core would be released while it reads. Up to 6 looks, as a kworker on
# cpu0 releases the core for a moment now and then.
held_line() {
	for _ in 1 2 3 4 5 6; do
		_l=$(sldhv oncpu 1 grep "^cpu$1 " $ACCT)
		case $_l in *" hold=1 "*) break ;; esac
		sleep 0.1
	done
	echo "$_l"
}

if [ $CPU_SLD = 0 ]; then
	# check.sh boots this file on the CPUs with SLD only.
	skip "SMT siblings beside a protected task" "the CPU has no split-lock detection"
else
	load
	msr_dev
	cp "$(command -v sldcpu)" /tmp/slx
	echo /tmp/slx > $P/exempt_path
	echo Y > $P/exempt_proactive
	echo 1 > /proc/sys/kernel/split_lock_mitigate

	if [ $CPU_BLD = 1 ]; then
		like "$(grep '^cpu1 ' $ACCT)" ' bld=off bld_writes=[0-9]+ bld_failed=0$' \
			"Intel with both detections: sld_compat keeps DEBUGCTL's bus-lock bit (off, nothing held)"
		r0=$(sldcpu wrmsrs 1 debugctl) a0=$(acf cpu1 bld_writes) p0=$(dbc db_policed)
		mark_dmesg
		protect_cpu0 6
		mid1=$(held_line 1) mid0=$(held_line 0)
		# The register, read from cpu1: up to 6 looks, as a kworker on cpu0
		# releases the core for a moment now and then (the bit follows).
		for _ in 1 2 3 4 5 6; do
			bit1=$(sldhv oncpu 1 sldcpu msr 1 $DEBUGCTL)
			[ $(($(printf '%d' "$bit1") & 4)) = 0 ] || break
			sleep 0.1
		done
		bit0=$(sldhv oncpu 1 sldcpu msr 0 $DEBUGCTL)
		# 20 split locks 30 ms apart on the sibling, unprotected.
		sldhv oncpu 1 sldcpu time $N split 30000 > /tmp/unp.out
		kill -0 $prot 2> /dev/null && during=1 || during=0
		wait
		unp=$(cat /tmp/unp.out) prot_out=$(cat /tmp/prot.out)
		diag "sibling: $unp"
		diag "protected: $prot_out"
		diag "cpu0: $mid0"
		diag "cpu1: $mid1"
		is "$during" 1 "the protected task still ran when the sibling's locks were done"
		like "$mid1" ' hold=1 task=0 .* bld=on ' "cpu1, beside the held core: bus-lock bit on (account)"
		is "$(($(printf '%d' "$bit1") & 4))" 4 "cpu1's DEBUGCTL has the bit ($bit1)"
		like "$mid0" ' hold=1 task=1 .* bld=off ' "cpu0, the protected task's: bit off (account)"
		is "$(($(printf '%d' "$bit0") & 4))" 0 "cpu0's DEBUGCTL has it clear ($bit0)"
		like "$unp" "counter=$N\$" "the sibling's locks all done"
		slow=$(field "$unp" slow)
		run "the sibling paid the kernel's penalty on at least 19 of $N split locks ($slow)" \
			[ "${slow:-0}" -ge 19 ]
		run "the kernel's trap line for the sibling's task" \
			[ "$(new_dmesg | grep -c 'sldcpu/[0-9]* took a split_lock trap')" -ge 1 ]
		p=$(($(dbc db_policed) - p0))
		run "its #DBs were policed as split locks ($p)" [ $p -ge 19 ]
		is "$(field "$prot_out" slow)" 0 "the protected task paid none"
		is "$(new_dmesg | grep -c 'slx/[0-9]* took a split_lock trap')" 0 \
			"no kernel trap line for the protected task"
		sleep 0.2
		r=$(($(sldcpu wrmsrs 1 debugctl) - r0)) a=$(($(acf cpu1 bld_writes) - a0))
		is "$a" "$r" "cpu1's DEBUGCTL writes: the account's are the CPU's ($r)"
		run "at least one to set the bit and one to clear it ($r)" [ "$r" -ge 2 ]
		like "$(grep '^cpu1 ' $ACCT)" ' hold=0 .* bld=off ' "after the run: cpu1's bit off (account)"
		is "$(($(printf '%d' "$(sldcpu msr 1 $DEBUGCTL)") & 4))" 0 "after the run: cpu1's DEBUGCTL clear"
		is "$(dbc sibling_exposures)" 0 "policed: no exposure counted"
	else
		like "$(grep '^cpu1 ' $ACCT)" ' bld=none$' \
			"split-lock detection only: sld_compat never writes DEBUGCTL (bld=none)"
		protect_cpu0 5
		sleep 0.3
		x1=$(held_line 1) e1=$(acf cpu1 exposed_ms)
		# A second of user time on the sibling, unprotected.
		sldhv oncpu 1 sldcpu spin 1000 aligned 1000 > /tmp/unp.out
		e2=$(acf cpu1 exposed_ms)
		sleep 0.5
		e3=$(acf cpu1 exposed_ms)
		kill -0 $prot 2> /dev/null && during=1 || during=0
		wait
		diag "cpu1: $x1"
		diag "exposed_ms $e1 -> $e2 (a second of user time) -> $e3 (idle 0.5 s)"
		is "$during" 1 "the protected task still ran"
		like "$x1" ' hold=1 task=0 .* exposed=1 ' "cpu1 beside the held core: exposed"
		run "the exposure rose while the sibling ran ($e1 -> $e2 ms)" [ $((e2 - e1)) -ge 500 ]
		run "and stopped when it left ($e2 -> $e3 ms)" [ $((e3 - e2)) -le 50 ]
		like "$(grep '^cpu1 ' $ACCT)" ' exposed=0 exposures=[1-9][0-9]* ' "after the run: cpu1 no longer exposed"
		# The core no longer held: user time on cpu1 is no exposure.
		e4=$(acf cpu1 exposed_ms)
		sldhv oncpu 1 sldcpu spin 500 aligned 1000 > /dev/null
		is "$(acf cpu1 exposed_ms)" "$e4" "after the run: half a second of user time on cpu1 adds none"
		run "the module's total ($(dbc sibling_exposed_ms) ms)" [ "$(dbc sibling_exposed_ms)" -ge 500 ]
		like "$(sldctl status)" 'SMT siblings beside a held core, unpoliced: times [1-9][0-9]*, user ms [1-9][0-9]*' \
			"sldctl status shows it"
		like "$(sldctl status --format prometheus | grep '^sld_compat_sibling_exposed_seconds_total ')" \
			' [0-9]+\.[0-9]{3}$' "and its metrics (seconds)"
	fi
	echo - > $P/exempt_path
	echo N > $P/exempt_proactive
	msr_matches "at the end"
	unload
fi
