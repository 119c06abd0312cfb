# shellcheck shell=sh
# TAP helpers for the in-VM suite (busybox ash). The test counter lives in
# a file so that subshells and separate test files share one numbering.
#
# What a test file in t/ (or t-cpu, t-smt, ...) must do, and what the
# harness checks (tests/vm/init runs each file, collect.sh judges it):
# - start with `. /tests/lib.sh` and from the state it needs
#   (ensure_loaded / ensure_unloaded), so that it runs alone (VM_ONLY);
# - run to its last line: init sources it in a shell of its own and
#   prints an end marker after its last line, then its exit status. A
#   file that calls `exit` (even `exit 0`), dies of a shell error or is
#   killed has no marker, and collect.sh fails it ("every test file ran
#   to its end"). Nothing to add at its end; no `exit`, no top-level
#   `return`. A file that knows how many checks it makes may say so
#   first (`plan N`): fewer fail it.
# - make at least one check, and follow the CPU the boot was given
#   (CPU_SLD, KMODE below), never the guest's /proc/cpuinfo: the boot's
#   first check (cpu-proof.sh) proves that CPU, or the boot bails out.
# - expect_dmesg PATTERN for an sld_compat error line it causes: the
#   pattern holds for the kernel's lines logged while this file runs.
TAPN=/tmp/tap.n
# KERNEL_ERRORS: the regex of a kernel error line (one definition for the
# host's checks and the VM's).
# shellcheck source=SCRIPTDIR/../vm/kernel-errors.sh # the VM's /tests/kernel-errors.sh
. /tests/kernel-errors.sh
[ -f $TAPN ] || echo 0 > $TAPN
MOD=/mod/sld_compat.ko
P=/sys/module/sld_compat/parameters
S=/sys/kernel/sld_compat
ACCT=/proc/sld_compat_account

# ok, nok, skip, diag, is, like, run, fails: tests/lib/tap.sh, the TAP
# library of the host's tests too (vm.sh copies it), counting in $TAPN.
TAP_FILE=$TAPN
# shellcheck source=SCRIPTDIR/tap.sh # the VM's /tests/tap.sh
. /tests/tap.sh
# The harness fails a run on any sld_compat error line unless a test says
# it expects it (an extended regex matched against the line).
expect_dmesg() { echo "# expect-dmesg: $*"; }
# plan N: this file makes at least N checks (collect.sh fails it if fewer).
plan() { echo "# plan $1"; }

# mark_dmesg, new_dmesg: tests/lib/kmsg.sh (the booted system's too).
# shellcheck source=SCRIPTDIR/kmsg.sh # the VM's /tests/kmsg.sh
. /tests/kmsg.sh

# msr_dev: the msr driver, for sldcpu (cpu-proof.sh proved vm.sh packed
# it; loaded here where a file has not loaded it with its own options).
msr_dev() { [ -e /dev/cpu/0/msr ] || insmod /kmod/msr.ko; }
# wrmsr_base [CPU...]: every CPU's (cpu0 and cpu1, or CPU's) WRMSRs to MSR_TEST_CTRL so far, as the test
# CPU counts them (sldcpu wrmsrs), and the account's msr_writes (0 when
# not loaded), for balanced: taken before each load, and again where a
# CPU's count restarts (its INIT when it comes online). An msr driver it
# loads goes again, or a later sld_compat would list it among the loaded
# modules that tests count.
# shellcheck disable=SC2120 # the CPUs are optional
wrmsr_base() {
	[ $CPU_SLD = 1 ] && command -v sldcpu > /dev/null || return 0
	_wm=
	[ -e /dev/cpu/0/msr ] || { msr_dev && _wm=1; }
	[ $# -gt 0 ] || set -- 0 1
	for _c in "$@"; do
		_a=0
		! loaded sld_compat || _a=$(acf "cpu$_c" msr_writes)
		echo "$(sldcpu wrmsrs "$_c") $_a" > "/tmp/wrmsrs.base.$_c"
		echo 0 > "/tmp/wrmsrs.kernel.$_c"
	done
	[ -z "$_wm" ] || rmmod msr
}
# shellcheck disable=SC2120 # the module parameters are optional
# shellcheck disable=SC2119 # wrmsr_base: every CPU
load() { wrmsr_base; insmod $MOD "$@"; }
unload() { rmmod sld_compat; }
# loaded NAME: module NAME is loaded.
loaded() { grep -q "^$1 " /proc/modules; }

# A test file starts from the state it needs, whatever ran before it, so
# that it runs alone (VM_ONLY) and one file's failure does not spread to
# the next. A setup step that fails is a not-ok line naming the file.
_setup_failed() {
	nok "$(basename "$0"): setup: $1"
	diag "$2"
}
# ensure_loaded [FIXTURE...]: sld_compat loaded, then each FIXTURE
# (/mod/FIXTURE.ko); what is loaded already stays as it is.
# shellcheck disable=SC2120 # the fixtures are optional
ensure_loaded() {
	for _e in sld_compat "$@"; do
		loaded "$_e" && continue
		# shellcheck disable=SC2119 # wrmsr_base: every CPU
		[ "$_e" != sld_compat ] || wrmsr_base
		_eo=$(insmod "/mod/$_e.ko" 2>&1) || _setup_failed "insmod $_e" "$_eo"
	done
}
# ensure_unloaded: sld_compat not loaded, for a file that loads it itself
# (with knobs of its own, or after modules it must find preloaded).
ensure_unloaded() {
	loaded sld_compat || return 0
	_eo=$(unload 2>&1) || _setup_failed "rmmod sld_compat" "$_eo"
}

# knob_w KNOB DATA: write DATA (escapes as sldtest) in one write(2); prints
# OK or the errno name.
knob_w() { sldtest write "$P/$1" "$2"; }

# knob_rejects KNOB BAD...: every BAD value fails with EINVAL, leaves the
# knob as it was and logs the knob's rejection line. Once per boot: a
# (KNOB, BAD) pair an earlier file tried already (25-badinput.sh's
# tables) is not tried again, so that it counts once.
knob_rejects() {
	_k=$1; shift
	_before=$(cat "$P/$_k")
	_n=0
	mark_dmesg
	for _b in "$@"; do
		if grep -qxF -- "$_k $_b" /tmp/knob_rejects 2>/dev/null; then
			diag "$_k: '$(echo "$_b" | cut -c1-24)' rejected earlier in this boot (once per boot)"
			continue
		fi
		printf '%s\n' "$_k $_b" >> /tmp/knob_rejects
		_d=$(echo "$_b" | cut -c1-24)
		is "$(knob_w "$_k" "$_b")" EINVAL "$_k: rejects '$_d'"
		is "$(cat "$P/$_k")" "$_before" "$_k: unchanged after '$_d'"
		_n=$((_n + 1))
	done
	[ $_n -gt 0 ] || return 0
	# One read of the kernel's log for all of them: a read per value made
	# 25-badinput the suite's longest file under TCG (188 s of a 6.12 boot).
	is "$(new_dmesg | grep -c "sld_compat: $_k: rejected")" $_n \
		"$_k: dmesg says why, a line for each of the $_n values"
}

# ---- sld_compat's status files ----------------------------------------------
# ac NAME: a counter of $S/ac.
ac() { grep "^$1 " $S/ac | cut -d' ' -f2; }
# passed: the #ACs the kernel handled itself (no rule matched, or the
# task was refused), as a count to compare before and after.
passed() { echo $(($(ac ac_user_passed) + $(ac ac_not_protected))); }
# in_cg [-p] DIR CMD...: CMD in the cgroup directory DIR, moved there
# before it starts, so its first instruction is already there (-p: its
# PID printed first).
in_cg() {
	_say=:
	[ "$1" = -p ] && { _say='echo'; shift; }
	_dir=$1; shift
	sh -c '$1 $$; echo $$ > "$0/cgroup.procs" && shift && exec "$@"' "$_dir" $_say "$@"
}
# acf CPU FIELD: one field of one CPU's line of $ACCT.
acf() { sed -n "s/^$1 .* $2=\([0-9]*\).*/\1/p" $ACCT; }
# acct_sum FIELD: a field of $ACCT summed over the CPUs.
acct_sum() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" $ACCT | awk '{ s += $1 } END { print s + 0 }'; }
# toggles: every CPU's toggles, off and on.
toggles() { echo $(($(acct_sum toggles_off) + $(acct_sum toggles_on))); }
# hv MODULE: its line of $S/hypervisors.
hv() { grep "^$1 " $S/hypervisors; }
# field TEXT NAME: the value of NAME=... in TEXT.
field() { echo "$1" | sed -n "s/.*$2=\([0-9A-Z]*\).*/\1/p"; }
# CPU_SLD: 1 on a CPU that enforces split-lock detection (VM_CPU=enforcing),
# where sld_compat's MSR writes are real; 0 under stock TCG, where it
# skips them (no SLD to switch). The CPU the boot was given (vm.sh), which
# cpu-proof.sh proved first: not what the guest happens to see.
case $(cat /tests/cpu) in enforcing | enforcing-nobld) CPU_SLD=1 ;; *) CPU_SLD=0 ;; esac
# CPU_BLD: 1 where the boot's CPU offers bus-lock detection (both test
# CPU models since tests/qemu/0005), 0 under stock TCG.
# shellcheck disable=SC2034 # CPU_BLD: what the tests read
case $(cat /tests/cpu) in enforcing-nobld) CPU_BLD=0 ;; enforcing*) CPU_BLD=1 ;; *) CPU_BLD=0 ;; esac
# KMODE: the kernel's split-lock mode at boot, its default warn where the
# CPU has SLD; off under stock TCG (no X86_FEATURE_SPLIT_LOCK_DETECT).
if [ $CPU_SLD = 1 ]; then KMODE=warn; else KMODE=off; fi

# ---- the kernel's bus-lock #DB at boot: a table ------------------------------
# Whether the booted kernel set IA32_DEBUGCTL bit 2 (bus-lock #DB) on every
# CPU at boot, by the CPU and split_lock_detect mode the boot declares and
# the kernel's version, never by what the guest sees: a kernel that stops
# setting the bit, or starts to, fails the tests that read this (issue #41;
# t-cpu/70, 72, 77). The one place that knows it; read from Debian's
# linux-source of each kernel booted (6.1.192 = 6.1.0-57, 6.12.107, 7.3.4):
#  - bus_lock_init() writes the bit: nothing without
#    X86_FEATURE_BUS_LOCK_DETECT; clear where the CPU has split-lock
#    detection and the mode is warn or fatal, or the mode is off; set
#    otherwise (6.1 intel.c:1292-1314, 6.12 intel.c:1167-1189, 7.3
#    bus_lock.c:301-323, the same condition in all three);
#  - its caller: 6.1 and 6.12 only init_intel() (intel.c:760, 648), the
#    Intel CPU's c_init, so on AMD the bit stays clear whatever the mode;
#    7.3 identify_cpu() for every vendor (common.c:2066). Kernels between
#    6.12 and 7.3 were not read: no AMD row covers them, so such a boot
#    fails here until someone reads its source and adds the row;
#  - the mode: sld_state_setup() makes it warn on a CPU with either
#    feature, or what split_lock_detect= says (all three versions).
#    handle_bus_lock(), the #DB's handler, is called on every kernel and
#    logs its line in warn and ratelimit alike.
# The boot declares its CPU and mode in /tests/cpu (vm.sh): the model,
# "-ratelimit" for split_lock_detect=ratelimit:1, the kernel's default
# warn otherwise. A boot given another mode (VM_APPEND=split_lock_detect=off)
# without a label saying so is caught: the table expects warn.
# Rows: MODEL MODE FIRST LAST BIT WHY; MODE warn, ratelimit or * (any);
# FIRST and LAST kernel versions MAJOR.MINOR, inclusive, - for open.
BLD_TABLE='
enforcing       warn      - -    0 split-lock #AC takes warn mode: bus_lock_init() leaves bit 2 clear
enforcing       ratelimit - -    1 ratelimit is the #DB path: bus_lock_init() sets bit 2
enforcing-nobld *         - -    0 no bus-lock detection: bus_lock_init() returns first
enforcing-amd   *         - 6.12 0 bus_lock_init() only in init_intel(): no AMD bus-lock support
enforcing-amd   *         7.3 -  1 bus_lock_init() for every vendor, no split-lock #AC: warn and ratelimit set bit 2
stock           *         - -    0 stock TCG: no bus-lock detection
'
# kver_num MAJOR.MINOR[...]: MAJOR * 1000 + MINOR, to compare versions.
kver_num() {
	_kn=${1#*.}
	echo $((${1%%.*} * 1000 + ${_kn%%[!0-9]*}))
}
# kernel_bld: the table's row for this boot (/tests/cpu, uname -r). Sets
# BLD_MODEL (the label less "-ratelimit"), BLD_MODE (warn or ratelimit),
# KBLD (1: the kernel set bit 2 on every CPU at boot; 0: left it clear;
# unknown: no row, which the caller fails) and KBLD_WHY (the row's reason).
kernel_bld() {
	_kl=$(cat /tests/cpu)
	BLD_MODEL=${_kl%-ratelimit} BLD_MODE=warn
	[ "$BLD_MODEL" = "$_kl" ] || BLD_MODE=ratelimit
	_kv=$(kver_num "$(uname -r)")
	KBLD=unknown KBLD_WHY="no row for $_kl on $(uname -r) in tests/lib/vm.sh BLD_TABLE"
	while read -r _tm _tmo _tlo _thi _tb _tw; do
		[ "$_tm" = "$BLD_MODEL" ] || continue
		[ "$_tmo" = '*' ] || [ "$_tmo" = "$BLD_MODE" ] || continue
		[ "$_tlo" = - ] || [ "$_kv" -ge "$(kver_num "$_tlo")" ] || continue
		[ "$_thi" = - ] || [ "$_kv" -le "$(kver_num "$_thi")" ] || continue
		# shellcheck disable=SC2034 # KBLD, KBLD_WHY: what the caller reads
		KBLD=$_tb KBLD_WHY=$_tw
		break
	done <<EOF
$BLD_TABLE
EOF
}

# kguest_out N: what `sldtest ac guest N` prints when the kernel's own
# guest path took all N calls: with mode off, SIGBUS each; in warn mode,
# its split_lock_warn (the 10 ms penalty), which returns "handled".
kguest_out() {
	if [ $KMODE = warn ]; then echo "handled=$1 sigbus=0"; else echo "handled=0 sigbus=$1"; fi
}
# user_traps N OUT [before]: the #ACs sld_compat handles for a protected
# task's N `ac user` split locks whose output is OUT: N handler calls
# through the fixture; where it made real split locks instead (real=1:
# the handler is sealed under IBT), the first only, after which SLD is off
# under the task, or none for a task protected before its first lock
# (before: a hypervisor's vCPU after its RUN, exempt_proactive=Y).
user_traps() {
	if [ "$(field "$2" real)" != 1 ]; then echo "$1"
	elif [ "${3:-}" = before ]; then echo 0
	else echo 1; fi
}
# protected_user [-b] N DESCRIPTION CMD...: CMD's N `ac user` split locks
# all completed and sld_compat handled them: ac_user_handled + user_traps
# (-b: protected before its first lock), none passed on to the kernel
# (ac_user_passed unchanged) and the kernel's own path never ran: it logs
# a task's first split lock it penalises ("took a split_lock trap"), once
# per task. Not the lock's time: a loaded host slows a guest's calls past
# any bound that would tell the 10 ms penalty apart.
pu_seq=0
protected_user() {
	_b=
	[ "$1" = -b ] && { _b=before; shift; }
	_n=$1 _d=$2
	shift 2
	# A marker of its own: the caller's mark_dmesg stays where it was.
	pu_seq=$((pu_seq + 1))
	_m="sldtest-protected-user-$$-$pu_seq"
	echo "$_m" > /dev/kmsg
	_h0=$(ac ac_user_handled) _p0=$(ac ac_user_passed)
	_o=$("$@" 2>&1)
	_t=$(user_traps "$_n" "$_o" $_b)
	_h1=$(ac ac_user_handled) _p1=$(ac ac_user_passed)
	_k=$(dmesg | sed -n "/$_m\$/,\$p" | grep -c 'took a split_lock trap')
	# Real split locks prove something only where they trap: on a CPU
	# with SLD.
	_real=$(field "$_o" real)
	if echo "$_o" | grep -q "^handled=$_n sigbus=0 " &&
	   [ "$_h1" = $((_h0 + _t)) ] && [ "$_p1" = "$_p0" ] && [ "$_k" = 0 ] &&
	   { [ "$_real" != 1 ] || [ $CPU_SLD = 1 ]; }; then
		ok "$_d"
	else
		nok "$_d"
		diag "  got: '$_o' (ac_user_handled $_h0 -> $_h1, want +$_t; ac_user_passed $_p0 -> $_p1; kernel trap lines $_k, want 0; real split locks only on a CPU with SLD)"
	fi
}
# guest_by ours|kernel N DESCRIPTION CMD...: whose CMD's N `ac guest`
# split locks were. ours: sld_compat's, "handled=N sigbus=0" and
# ac_guest_handled + N; kernel: its own path, kguest_out N and
# ac_guest_handled unchanged. In warn mode both print "handled": the
# counter tells them apart.
guest_by() {
	_who=$1 _n=$2 _d=$3
	shift 3
	if [ "$_who" = ours ]; then _want="handled=$_n sigbus=0" _add=$_n; else
		_want=$(kguest_out "$_n") _add=0; fi
	_h0=$(ac ac_guest_handled 2>/dev/null)
	_o=$("$@" 2>&1)
	_h1=$(ac ac_guest_handled 2>/dev/null)
	if echo "$_o" | grep -q "^$_want " && [ "${_h1:-0}" = $((${_h0:-0} + _add)) ]; then
		ok "$_d"
	else
		nok "$_d"
		diag "  got: '$_o' (ac_guest_handled $_h0 -> $_h1)"
		diag "  expected: '$_want ...', ac_guest_handled +$_add"
	fi
}
kguest() { guest_by kernel "$@"; }
oguest() { guest_by ours "$@"; }

# msr_matches WHEN: on a CPU with SLD, every CPU's MSR_TEST_CTRL is what
# the account says: bit 29 exactly where it says sld=on, no other bit.
msr_matches() {
	msr_dev
	sleep 0.1	# the kernel's own re-enable work (2 jiffies) is done
	_c=0
	while [ -e /dev/cpu/$_c ]; do
		case $(sed -n "s/^cpu$_c .* sld=\([a-z]*\) .*/\1/p" $ACCT) in
		on) _want=0x20000000 ;;
		*) _want=0x0 ;;
		esac
		is "$(sldcpu msr $_c 0x33)" $_want "$1: cpu$_c MSR_TEST_CTRL as the account says"
		_c=$((_c + 1))
	done
}

# balanced WHEN: nothing is held, no task on a CPU; where the CPU has
# SLD, the MSR writes sld_compat's account claims since wrmsr_base are
# WRMSRs the CPU executed (the test CPU's own count, tests/qemu/0004:
# at least as many, the kernel's own warn-mode writes come on top), none
# was skipped, and the real MSR agrees with the account; without SLD it
# wrote nothing (the CPU has no SLD to switch). BALANCED_EXACT=1: the CPU
# executed exactly the account's writes and those kernel_wrote counted.
balanced() {
	for _c in 0 1; do
		_w=$(acf cpu$_c msr_writes)
		if [ $CPU_SLD = 1 ]; then
			msr_dev
			# No base (loaded otherwise than by load/ensure_loaded):
			# since boot, which is at least as many.
			_wb=$(cat /tmp/wrmsrs.base.$_c 2>/dev/null)
			[ -n "$_wb" ] || _wb="0 0"
			_r=$(sldcpu wrmsrs $_c)
			_r=$((${_r:--1} - ${_wb% *})) _w=$((${_w:-999999999} - ${_wb#* }))
			if [ -n "${BALANCED_EXACT:-}" ]; then
				_k=$(kernel_writes $_c)
				is "$_r" $((_w + _k)) "$1: cpu$_c the CPU executed the account's $_w MSR writes and the kernel's $_k"
			elif [ "$_r" -ge "$_w" ]; then
				ok "$1: cpu$_c the account's $_w MSR writes were executed (the CPU counts $_r)"
			else
				nok "$1: cpu$_c the account's $_w MSR writes were executed (the CPU counts $_r)"
			fi
			is "$(acf cpu$_c msr_skipped)" 0 "$1: cpu$_c no MSR write skipped (the CPU has SLD)"
		else
			is "$_w" 0 "$1: cpu$_c no real MSR write (no SLD under TCG)"
		fi
	done
	is "$(acct_sum hold) $(acct_sum task)" "0 0" "$1: no core held off, no task on a CPU"
	[ $CPU_SLD = 0 ] || msr_matches "$1"
}

# kernel_wrote CPU: the kernel made one MSR_TEST_CTRL write on CPU that
# is not sld_compat's (split_lock_warn()'s own sld_update_msr(false)), for
# balanced's exact count; kernel_writes CPU: how many since wrmsr_base.
kernel_writes() { cat "/tmp/wrmsrs.kernel.$1" 2>/dev/null || echo 0; }
kernel_wrote() { echo $(($(kernel_writes "$1") + 1)) > "/tmp/wrmsrs.kernel.$1"; }
# wrmsr_pingpong N [DEV [one]]: `sldhv pingpong N ...` on cpu0; sets
# pp_out (its output), pp_real and pp_acct (cpu0's WRMSRs to MSR_TEST_CTRL
# meanwhile, as the test CPU counts them, tests/qemu/0004, and as
# sld_compat's account says) and pp_csw (the threads' context switches).
# PP_MSR=debugctl: to IA32_DEBUGCTL instead (tests/qemu/0006, the
# account's bld_writes; 0 where sld_compat never writes it, bld=none).
# PP_CPU=1: cpu1's writes instead (the SMT sibling, bench/vm/55-sibling.sh).
wrmsr_pingpong() {
	# Names of its own: interleave's round counter is _r.
	if [ "${PP_MSR:-}" = debugctl ]; then _pp_c=debugctl _pp_f=bld_writes
	else _pp_c='' _pp_f=msr_writes; fi
	# shellcheck disable=SC2086 # _pp_c: empty or one word
	_pp_r=$(sldcpu wrmsrs "${PP_CPU:-0}" $_pp_c) _pp_a=$(acf "cpu${PP_CPU:-0}" $_pp_f)
	pp_out=$(sldhv pingpong "$@")
	sleep 0.2	# the last switch's write is in the account
	# shellcheck disable=SC2086 # as above
	_pp_r2=$(sldcpu wrmsrs "${PP_CPU:-0}" $_pp_c) _pp_a2=$(acf "cpu${PP_CPU:-0}" $_pp_f)
	# shellcheck disable=SC2034 # pp_*: what the caller reads
	pp_real=$((_pp_r2 - _pp_r)) pp_acct=$((${_pp_a2:-0} - ${_pp_a:-0}))
	# shellcheck disable=SC2034 # as above
	pp_csw=$(field "$pp_out" csw)
}

# wrmsr_bench_row NAME ROUND CASE N: one round of a WRMSR-per-switch
# benchmark (bench/vm/45-wrmsr.sh, 50-buslock.sh): N ping-pongs on cpu0 in
# CASE (unprotected; protected: both threads fx_hv's; mixed: one), then
# "BENCH NAME ROUND CASE NS_PER_SWITCH REAL_PER_SWITCH ACCOUNT_PER_SWITCH
# CSW" (PP_MSR picks the register, as for wrmsr_pingpong).
wrmsr_bench_row() {
	case $3 in
	unprotected) _wb_dev= ;;
	protected) _wb_dev=fx_hv ;;
	mixed) _wb_dev="fx_hv one" ;;
	esac
	sleep 1		# work left by the last case done
	# shellcheck disable=SC2086 # _wb_dev: none, one word or "fx_hv one", split
	wrmsr_pingpong "$4" $_wb_dev
	if [ "${pp_csw:-0}" -eq 0 ]; then echo "# bench: $1 $3: no switches ($pp_out)"; return; fi
	printf 'BENCH\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" \
		"$(field "$pp_out" ns_per_switch)" "$(ratio3 "$pp_real" "$pp_csw")" \
		"$(ratio3 "$pp_acct" "$pp_csw")" "$pp_csw"
}
# ratio3 A B: A / B with three decimals.
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# rounds CHECK FULL: how many rounds a repeating file runs, CHECK under
# make check's matrix, FULL in check-full or a boot of its own.
rounds() { if [ "$(cat /tests/matrix 2>/dev/null)" = check ]; then echo "$1"; else echo "$2"; fi; }

# wait_for TENTHS CONDITION: evaluate CONDITION (a shell test, e.g.
# '[ "$(ac key_held)" = 0 ]') every 0.1 s until it holds, at most TENTHS
# times; the caller asserts the outcome. CONDITION is evaluated here, so
# $1..$9 in it are wait_for's own: expand a caller's before the call. A
# wait that gives up says so on stderr, which the TAP stream carries (a
# condition that cannot hold, or errs each try, otherwise costs its whole
# bound unseen).
wait_for() {
	_n=0
	until eval "$2"; do
		if [ $_n -ge "$1" ]; then
			diag "wait_for gave up after $1 tries: $2" >&2
			return 0
		fi
		sleep 0.1
		_n=$((_n + 1))
	done
}

# sld_on_wait CPU...: wait (at most 10 s) until MSR_TEST_CTRL bit 29 is
# set on each CPU again. After a trap the kernel turns split-lock
# detection off on that CPU until its re-enable work runs (2 jiffies, late
# on a busy host); a lock before that is not detected. The caller has
# loaded the msr driver; the check that follows says if it never came.
sld_on_wait() { wait_for 100 "_sld_on $*"; }
_sld_on() {
	for _c; do [ $(($(sldcpu msr "$_c" 0x33) >> 29 & 1)) = 1 ] || return 1; done
}

# bench_name NAME: a benchmark's name in the raw numbers, NAME-icount/KVER
# in a VM_ICOUNT boot (its times count guest instructions).
bench_name() {
	if [ "$(cat /tests/clock)" = icount ]; then echo "$1-icount/$(uname -r)"; else echo "$1"; fi
}

# interleave ROUNDS CASE...: call one ROUND CASE for every CASE, ROUNDS
# times, the order rotated by one each round, so that the cases of a
# benchmark are measured side by side and none always runs first.
interleave() {
	_rounds=$1; shift
	_r=1
	while [ "$_r" -le "$_rounds" ]; do
		# Round r runs the cases rotated by r: one more than the last.
		_x=$1; shift; set -- "$@" "$_x"
		for _c in "$@"; do one "$_r" "$_c"; done
		_r=$((_r + 1))
	done
}

# big_module: load kvm and the dependencies of the largest module of the
# kernel (/kmod/big/order, vm.sh bench), and set big (its file name) and
# bigname (its module name); exits the bench if there is none.
big_module() {
	insmod /kmod/irqbypass.ko 2>/dev/null
	insmod /kmod/kvm.ko
	[ -s /kmod/big/order ] || { echo "# bench: no largest module in /kmod/big"; exit 1; }
	big=$(tail -n 1 /kmod/big/order)
	for _m in $(head -n -1 /kmod/big/order); do
		insmod "/kmod/big/$_m.ko" 2>/dev/null || echo "# bench: dependency $_m did not load"
	done
	# shellcheck disable=SC2034 # bigname: what the caller reads
	bigname=$(echo "$big" | tr - _)
}
