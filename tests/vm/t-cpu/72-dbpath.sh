# Issue #29 item 3, the #DB path with sld_compat: where the kernel takes
# bus locks by the #DB trap (DEBUGCTL bit 2: the Intel model in
# split_lock_detect=ratelimit:1, the AMD model on a kernel with AMD
# bus-lock support, 6.13 on), the db-bus-lock hook on handle_bus_lock
# gives an exempt task what the #AC path gives it: no kernel line, no
# ratelimit sleep, sld_compat's own line once, counters; an unprotected
# task keeps the kernel's handling. Where the kernel leaves bit 2 clear
# (the Intel model in warn mode, the AMD model before 6.13), `mechanism`
# says so and nothing reaches the hook. Every boot: the file `mechanism`,
# `sldctl status` and its metrics name what is active.
# shellcheck source=SCRIPTDIR/../lib.sh # the VM's /tests is tests/vm
. /tests/lib.sh

DEBUGCTL=0x1d9
X=/tests/bin/sldctl
insmod /kmod/msr.ko allow_writes=on
ratelimit=0
grep -q 'split_lock_detect=ratelimit:1' /proc/cmdline && ratelimit=1
bld=$(sldcpu msr 0 $DEBUGCTL)
db() { grep "^$1 " $S/db | cut -d' ' -f2; }
cp "$(command -v sldcpu)" /tmp/blx	# the exempt program: exempt_path

load
like "$(grep '^db-bus-lock ' $S/hooks)" '^db-bus-lock handle_bus_lock override=[a-z0-9-]+ armed$' \
	"db-bus-lock hook armed on handle_bus_lock, as an override"
is "$(grep '^handle_bus_lock ' $S/kernel_code)" "handle_bus_lock present" \
	"kernel_code: handle_bus_lock present"
mech=$(cat $S/mechanism)
diag "mechanism: $mech (DEBUGCTL of cpu0: $bld)"
if [ "$bld" = 0x4 ]; then
	like "$mech" '^bus-lock #DB: the kernel set DEBUGCTL bit 2; no split-lock #AC: ' \
		"mechanism: bus-lock #DB (bit 2 set by the kernel)"
elif grep -q '^vendor_id.*AuthenticAMD' /proc/cpuinfo; then
	is "$mech" "none: no split-lock #AC: CPU has no split-lock detection; no bus-lock #DB: the kernel left DEBUGCTL bit 2 clear" \
		"mechanism: none (AMD model, a kernel without AMD bus-lock support)"
else
	is "$mech" "split-lock #AC: sld_mode warn; no bus-lock #DB: the kernel left DEBUGCTL bit 2 clear" \
		"mechanism: split-lock #AC (Intel model, warn mode)"
fi
st=$($X status 2>&1)
like "$st" "mechanism: $(echo "$mech" | sed 's/[#()]/./g')" "sldctl status names the mechanism"
like "$($X status --format prometheus)" "sld_compat_mechanism\\{mechanism=\"${mech%%:*}\"\\} 1" \
	"metrics: sld_compat_mechanism{mechanism=\"${mech%%:*}\"} 1"
like "$($X doctor 2>&1)" "trap-mechanism" "sldctl doctor reports the mechanism"

# bit_clear: no #DB here, so split locks of an exempt task never reach
# the hook.
bit_clear() {
	echo /tmp/blx > $P/exempt_path
	h=$(db db_handled) p=$(db db_passed)
	sldhv oncpu 0 /tmp/blx time 3 split 0 > /dev/null
	is "$(db db_handled) $(db db_passed)" "$h $p" "bit 2 clear: no bus-lock #DB reaches the hook"
	echo > $P/exempt_path
}

# bit_set: the kernel takes bus locks by #DB here.
bit_set() {
	# ---- an unprotected task: the kernel's handling ------------------------------
	sleep 5	# the kernel's trap lines are rate-limited (10 per 5 s)
	mark_dmesg
	p=$(db db_passed) h=$(db db_handled)
	plain=$(sldhv oncpu 0 sldcpu time 5 split 0)
	diag "unprotected, 5 split locks: $plain"
	like "$plain" 'counter=5$' "unprotected: 5 split locks, counter right"
	is "$(($(db db_passed) - p)) $(($(db db_handled) - h))" "5 0" \
		"unprotected: 5 #DBs passed to the kernel, none handled"
	like "$(new_dmesg)" '#DB: sldcpu/[0-9]+ took a bus_lock trap' \
		"unprotected: the kernel's bus_lock line"

	# ---- an exempt task: sld_compat's handling ---------------------------------------
	# Its first bus lock's #DB reaches the hook, which protects it: from
	# then on bit 2 is off on its CPU while it runs (debugctl.c), as SLD
	# is on the #AC path, and its later bus locks raise nothing.
	echo /tmp/blx > $P/exempt_path
	mark_dmesg
	p=$(db db_passed) h=$(db db_handled) w=$(acf cpu0 bld_writes)
	ex=$(sldhv oncpu 0 /tmp/blx time 5 split 0)
	diag "exempt, 5 split locks: $ex"
	like "$ex" 'counter=5$' "exempt: 5 split locks, counter right (a trap: each done once)"
	is "$(($(db db_handled) - h)) $(($(db db_passed) - p))" "1 0" \
		"exempt: one #DB, handled by sld_compat; bit 2 off under it since"
	nd=$(new_dmesg)
	# shellcheck disable=SC2016 # $1: sh -c's argument
	fails "exempt: no kernel bus_lock line for it" \
		sh -c 'echo "$1" | grep -q "blx/[0-9]* took a bus_lock trap"' _ "$nd"
	is "$(echo "$nd" | grep -c 'sld_compat: bus lock by exempt-path task blx\[[0-9]*\]: #DB handled without')" 1 \
		"exempt: sld_compat's own line, once for the task"
	run "exempt: DEBUGCTL written on cpu0 as it came and went ($w -> $(acf cpu0 bld_writes))" \
		[ "$(acf cpu0 bld_writes)" -ge $((w + 2)) ]
	like "$(grep '^cpu0 ' $ACCT)" ' bld=on bld_writes=[0-9]+ bld_failed=0$' \
		"account: cpu0's bit back on after it exited, no failed write"

	# Under the task itself: bit 2 clear on its CPU, kept on the other
	# (the register is per logical CPU).
	echo Y > $P/exempt_proactive
	h=$(db db_handled)
	is "$(sldhv oncpu 0 /tmp/blx msr 0 $DEBUGCTL)" 0x0 \
		"exempt_proactive=Y: under the exempt task, DEBUGCTL bit 2 of its cpu0 is clear"
	other="cpu1's"
	[ "$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)" = 0-1 ] &&
		other="cpu1's, its SMT sibling's,"
	is "$(sldhv oncpu 0 /tmp/blx msr 1 $DEBUGCTL)" "$bld" \
		"... and $other as the kernel set it"
	out=$(sldhv oncpu 0 /tmp/blx time 5 split 0)
	like "$out" 'counter=5$' "exempt_proactive=Y: 5 split locks, counter right"
	is "$(db db_handled)" "$h" "exempt_proactive=Y: no #DB at all (protected at exec)"
	echo N > $P/exempt_proactive
	p=$(db db_passed)
	sldhv oncpu 0 sldcpu time 2 split 0 > /dev/null
	is "$(($(db db_passed) - p))" 2 "after it: an unprotected task on cpu0 traps again"
	if [ $ratelimit = 1 ]; then
		# The sleep is the penalty: the same 5 split locks, side by side.
		r=$(($(field "$plain" per_lock_ns) / ($(field "$ex" per_lock_ns) + 1)))
		diag "ratelimit: unprotected / exempt per split lock: ${r}x"
		run "ratelimit: the exempt task pays no sleep (unprotected costs ${r}x as much)" \
			[ "$r" -ge 100 ]
	fi
	like "$($X status -v 2>&1)" '#DB \(bus lock\): handled [0-9]+' "sldctl status -v: the #DB counters"
	like "$($X status --format prometheus)" 'sld_compat_db_traps_total\{outcome="handled"\} [1-9]' \
		"metrics: sld_compat_db_traps_total{outcome=\"handled\"}"

	# ---- disarmed: the kernel's again --------------------------------------------------
	echo N > $P/enabled
	like "$(grep '^db-bus-lock ' $S/hooks)" ' disarmed$' "enabled=N: db-bus-lock disarmed"
	h=$(db db_handled)
	sldhv oncpu 0 /tmp/blx time 2 split 0 > /dev/null
	is "$(db db_handled)" "$h" "enabled=N: nothing handled"
	echo Y > $P/enabled
	echo > $P/exempt_path
}

if [ "$bld" = 0x4 ]; then bit_set; else bit_clear; fi
is "$(sldcpu msr 0 $DEBUGCTL) $(sldcpu msr 1 $DEBUGCTL)" "$bld $bld" \
	"DEBUGCTL bit 2 as the kernel left it on cpu0 and cpu1"
unload
rmmod msr
