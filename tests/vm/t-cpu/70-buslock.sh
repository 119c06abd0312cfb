# The bus-lock #DB trap of the enforcing CPU (tests/qemu/0005, issue #29),
# without sld_compat: CPUID.(7,0):ECX[24], IA32_DEBUGCTL bit 2 held per
# logical CPU, and a #DB after a split locked access at CPL 3 (DR6 bit 11
# cleared: the kernel's handle_bus_lock() runs and says so). Three boots:
#  - the Intel model in warn mode (make cpu-check's t-cpu boots): the
#    kernel leaves bit 2 off (#AC does the job); set by hand, the #AC comes
#    first and the #DB after the redone instruction;
#  - the Intel model with split_lock_detect=ratelimit:1: the kernel sets
#    bit 2 on every CPU, no #AC, each bus lock past one a second sleeps;
#  - the AMD model (VM_CPU=enforcing-amd): no split-lock detection, no
#    MSR_TEST_CTRL or IA32_CORE_CAPABILITIES; a kernel without AMD
#    bus-lock support (6.12) never sets bit 2, so this test does;
#    one with it (trixie-backports' 7.3 in make cpu-check, Debian
#    unstable's 7.x in cpu-check-sid) sets it on every CPU and says "#DB: warning on
#    user-space bus_locks", and with ratelimit:1 sleeps as on Intel.
# In ratelimit mode the sleep is also a ratio: the same split locks with
# bit 2 cleared on the CPU cost over 1000 times less.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

DEBUGCTL=0x1d9
BLD=0x4
insmod /kmod/msr.ko allow_writes=on
cpuinfo=$(grep -m1 '^flags' /proc/cpuinfo)
like "$cpuinfo" ' bus_lock_detect( |$)' "/proc/cpuinfo: bus_lock_detect (CPUID.(7,0):ECX[24])"
# The model and mode the boot declares, and the table's word on the bit
# the kernel set (lib.sh kernel_bld), not the guest's /proc.
kernel_bld
amd=0
[ "$BLD_MODEL" = enforcing-amd ] && amd=1
ratelimit=0
[ "$BLD_MODE" = ratelimit ] && ratelimit=1

# bus_locks_on CPU KIND N: N locked ops KIND (split|aligned) pinned to
# CPU, 30 ms apart; prints the kernel's bus_lock and split_lock lines.
bus_locks_on() {
	mark_dmesg
	sldhv oncpu "$1" sldcpu time "$3" "$2" 30000 > /tmp/bl.out
	new_dmesg | grep -E 'took a (bus|split)_lock trap'
}

if [ $amd = 1 ]; then
	fails "AMD model: no split_lock_detect in /proc/cpuinfo" \
		sh -c "grep -m1 '^flags' /proc/cpuinfo | grep -qw split_lock_detect"
	fails "AMD model: the kernel enables no split-lock #AC" \
		sh -c "dmesg | grep -q '#AC: crashing the kernel'"
	fails "AMD model: IA32_CORE_CAPABILITIES (0xcf) absent (#GP)" sldcpu msr 0 0xcf
	fails "AMD model: MSR_TEST_CTRL (0x33) read absent (#GP)" sldcpu msr 0 0x33
	fails "AMD model: MSR_TEST_CTRL (0x33) write absent (#GP)" sldcpu msr 0 0x33 0x20000000
else
	like "$cpuinfo" ' split_lock_detect( |$)' "Intel model: split_lock_detect kept"
	is "$(sldcpu msr 0 0xcf)" 0x20 "Intel model: IA32_CORE_CAPABILITIES bit 5 kept"
fi

if [ $ratelimit = 1 ]; then
	like "$(dmesg)" '#DB: setting system wide bus lock rate limit to 1' \
		"ratelimit:1: the kernel takes the #DB path"
fi
# The kernel's own setting of bit 2: on only where it handles bus locks by
# #DB (the table, lib.sh BLD_TABLE: Intel in ratelimit; AMD on a kernel
# with AMD bus-lock support, every mode but off; 6.12 reads the CPUID bit
# but sets DEBUGCTL only in init_intel()).
run "the table has a row for $(cat /tests/cpu) on $(uname -r)" [ "$KBLD" != unknown ]
want=0x0
[ "$KBLD" = 1 ] && want=$BLD
is "$(sldcpu msr 0 $DEBUGCTL) $(sldcpu msr 1 $DEBUGCTL)" "$want $want" \
	"DEBUGCTL bit 2 on cpu0 and cpu1 as the table says: $KBLD_WHY"
if [ $amd = 1 ] && [ $ratelimit = 0 ]; then
	# sld_state_show(): no #AC on AMD, so warn mode says #DB. 6.12 says
	# so too (it reads the CPUID bit on any vendor) but sets DEBUGCTL
	# only in init_intel(): the line alone proves nothing, bit 2 does.
	like "$(dmesg)" '#DB: warning on user-space bus_locks' \
		"AMD model: the kernel's mode line names the #DB"
fi

# Per logical CPU: cpu0 only, whatever the topology (the smt boot makes
# cpu1 its sibling). Only bit 2 is held.
is "$(sldcpu msr 0 $DEBUGCTL 0)" 0x0 "DEBUGCTL: bit 2 cleared on cpu0"
w=$(sldcpu wrmsrs 0 debugctl)
is "$(sldcpu msr 0 $DEBUGCTL 0x6)" 0x6 "DEBUGCTL: bits 1-2 read back as written (bits 0-2 held, tests/qemu/0006)"
is "$(sldcpu msr 0 $DEBUGCTL 0x1c)" $BLD "DEBUGCTL: bits above 2 dropped"
is "$(($(sldcpu wrmsrs 0 debugctl) - w))" 2 "the CPU counted the two WRMSRs to DEBUGCTL"
is "$(sldcpu msr 1 $DEBUGCTL)" "$want" "DEBUGCTL of cpu1 unchanged (per logical CPU)"

if [ $ratelimit = 1 ]; then
	# 5 locks without a gap: the first passes, each later one waits for
	# the next second (msleep(20) until __ratelimit allows it).
	mark_dmesg
	out=$(sldhv oncpu 0 sldcpu time 5 split 0)
	al=$(sldhv oncpu 0 sldcpu time 5 aligned 0)
	diag "ratelimit:1 split: $out"
	diag "ratelimit:1 aligned: $al"
	# The same split locks with bit 2 cleared on cpu0: what they cost
	# without the mode (no trap, no sleep), the ratio's denominator.
	sldcpu msr 0 $DEBUGCTL 0 > /dev/null
	off=$(sldhv oncpu 0 sldcpu time 5 split 0)
	sldcpu msr 0 $DEBUGCTL $BLD > /dev/null
	diag "bit 2 cleared, split: $off"
	like "$out" 'counter=5$' "ratelimit: 5 split locked adds, counter right (a trap, not a fault: done once)"
	s=$(field "$out" per_lock_ns) s_off=$(field "$off" per_lock_ns)
	# Documented (kernel-parameters: ratelimit:N, N bus locks a second):
	# 5 locks in a row take 4 waits of up to a second, 800 ms a lock.
	run "ratelimit: the kernel sleeps to one bus lock a second ($((s / 1000)) us/lock over 5)" \
		[ "${s:-0}" -ge 600000000 ]
	r=$((s / (${s_off:-0} + 1)))
	diag "ratelimit split / split without bit 2: ${r}x"
	run "ratelimit: a split lock costs over 1000x what it does without bit 2 (${r}x)" \
		[ "$r" -ge 1000 ]
	run "ratelimit: aligned locked adds pay nothing ($(field "$al" per_lock_us) us/lock)" \
		[ "$(field "$al" per_lock_us)" -lt 5000 ]
	nd=$(new_dmesg)
	like "$nd" '#DB: sldcpu/[0-9]+ took a bus_lock trap at address: 0x' \
		"ratelimit: dmesg: the task took a bus_lock trap"
	# shellcheck disable=SC2016 # $1: sh -c's argument
	fails "ratelimit: no split-lock #AC" sh -c 'echo "$1" | grep -q split_lock' _ "$nd"
else
	sleep 5	# the kernel's trap lines are rate-limited (10 per 5 s)
	lines=$(bus_locks_on 0 split 3)
	diag "$lines"
	like "$(cat /tmp/bl.out)" 'counter=3$' "split locks under bit 2: counter right"
	like "$lines" 'sldcpu/[0-9]+ took a bus_lock trap at address: 0x' \
		"bit 2 set on cpu0: a split lock there takes the bus_lock #DB trap"
	if [ $amd = 0 ]; then
		# #AC (SLD on, warn mode) comes first: the kernel turns SLD off
		# on the CPU, the instruction is redone and completes, then #DB.
		like "$(echo "$lines" | head -n1)" 'took a split_lock trap' \
			"Intel warn mode: the #AC comes first"
		like "$(echo "$lines" | sed -n 2p)" 'took a bus_lock trap' \
			"then the #DB of the completed instruction"
	fi
	lines=$(bus_locks_on 0 aligned 3)
	is "$lines" "" "aligned locked adds on cpu0: no trap"
	lines=$(bus_locks_on 1 split 3)
	diag "$lines"
	if [ "$want" = 0x0 ]; then
		# shellcheck disable=SC2016 # $1: sh -c's argument
		fails "cpu1, bit 2 clear: no bus_lock trap" sh -c 'echo "$1" | grep -q bus_lock' _ "$lines"
	else
		# cpu1's bit is the kernel's own, never written by this test.
		is "$(echo "$lines" | grep -c 'sldcpu/[0-9]* took a bus_lock trap')" 3 \
			"cpu1, bit 2 as the kernel set it: each of 3 split locks traps"
	fi
fi
is "$(sldcpu msr 0 $DEBUGCTL "$want")" "$want" "DEBUGCTL of cpu0 restored"
rmmod msr
