# Issue #29 item 3: where sld_compat switches DEBUGCTL's bus-lock bit
# (the AMD model on a kernel that set it), it never takes the bits of the
# kernel's other users of the register. ptrace's block-step is one: the
# kernel sets BTF (bit 1) for a task in PTRACE_SINGLEBLOCK, on its CPU and
# at each switch to it (__switch_to_xtra()), and the test CPU
# (tests/qemu/0007) makes TF trap on taken branches only while BTF is set,
# as hardware does. sldcpu step traces a loop of L rounds of 9
# instructions: L - 1 stops block-stepped, 9 L + 3 single-stepped.
# Then the tracee itself is protected (exempt_comm, exempt_proactive=Y):
# at each switch to it, after the kernel set BTF, sld_compat's sched_in
# clears bit 2 with a read-modify-write. A write that dropped BTF would
# turn the block-step into single steps: the count says so.
# perf's LBR (bit 0 on Intel; bit 11, FREEZE_LBRS_ON_PMI, which its AMD
# code sets) has no session to show here: TCG emulates no PMU, so no perf
# event with a branch stack opens. Bits 0 and 11 are kept by the same
# read-modify-write (72-dbpath.sh, svm_register).
# Whether sld_compat switches the bit here comes from the boot's declared
# CPU, mode and kernel (lib.sh kernel_bld, issue #41), not from its own
# account: the AMD model on a kernel that sets the bit. The bit the kernel
# left is checked against that first; the account's writes are checked
# against the test CPU's own count of WRMSRs to DEBUGCTL (tests/qemu/0006).
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

L=300
DEBUGCTL=0x1d9
# steps MODE: the stops of sldcpu step MODE on cpu0 (tracer and tracee).
steps() { field "$(sldhv oncpu 0 sldcpu step "$1" $L)" stops; }
# dwr: cpu0's WRMSRs to DEBUGCTL, as the test CPU counts them.
dwr() { sldcpu wrmsrs 0 debugctl; }

msr_loaded=
[ -e /dev/cpu/0/msr ] || { insmod /kmod/msr.ko && msr_loaded=1; }
kernel_bld
want=0x0
[ "$KBLD" = 1 ] && want=0x4
run "the table has a row for $(cat /tests/cpu) on $(uname -r)" [ "$KBLD" != unknown ]
is "$(sldcpu msr 0 $DEBUGCTL) $(sldcpu msr 1 $DEBUGCTL)" "$want $want" \
	"DEBUGCTL bit 2 on cpu0 and cpu1 as the table says: $KBLD_WHY"
# sld_compat switches cpu0's bit under a protected task where the kernel
# set it on a CPU without split-lock detection (72-dbpath.sh: svm).
switches=0
[ "$BLD_MODEL" = enforcing-amd ] && [ "$KBLD" = 1 ] && switches=1

is "$(steps single)" $((9 * L + 3)) "without sld_compat: single-step stops at each of the loop's $((9 * L + 3)) instructions"
is "$(steps block)" $((L - 1)) "without sld_compat: block-step stops at the $((L - 1)) taken branches only (BTF)"

load
is "$(knob_w exempt_comm blxstep)" OK "exempt_comm blxstep: the tracee (sldcpu step names it so)"
is "$(knob_w exempt_proactive Y)" OK "exempt_proactive Y: protected as it names itself"
pc=$(ac tasks_protected_comm)
w=$(acf cpu0 bld_writes)
b=$(steps block)
# Single-step sets no BTF: the kernel writes DEBUGCTL for none of its
# switches, so every WRMSR the CPU counts meanwhile is sld_compat's.
sleep 0.2
r1=$(dwr) w1=$(acf cpu0 bld_writes)
s=$(steps single)
sleep 0.2	# the last switch's write is in the account
r2=$(dwr) w2=$(acf cpu0 bld_writes)
w=$((${w2:-0} - ${w:-0}))
diag "the tracee protected: block-step $b stops, single-step $s, cpu0's DEBUGCTL written $w times by sld_compat"
is "$(($(ac tasks_protected_comm) - pc))" 2 "both tracees protected (exempt_comm)"
is "$((r2 - r1))" "$((${w2:-0} - ${w1:-0}))" \
	"single-step: cpu0's WRMSRs to DEBUGCTL the CPU counted ($((r2 - r1))) are the account's"
if [ $switches = 1 ]; then
	like "$(grep '^cpu0 ' $ACCT)" ' bld=on bld_writes=[0-9]+ bld_failed=0$' \
		"AMD model, the kernel's bit: sld_compat switches cpu0's (bld=on)"
	run "sld_compat switched cpu0's bus-lock bit at the tracee's switches ($w writes)" [ "$w" -ge $((L / 2)) ]
	run "single-step: the CPU counted the switches' writes ($((r2 - r1)))" [ $((r2 - r1)) -ge $((L / 2)) ]
elif [ "$(cat /tests/cpu)" = enforcing ]; then
	# Intel in warn mode: the bit is set only on a CPU beside a held
	# core, never on the CPU of the protected task.
	like "$(grep '^cpu0 ' $ACCT)" ' bld=off bld_writes=0 bld_failed=0$' \
		"sld_compat leaves cpu0's bit off (Intel: set only beside a held core, not under the tracee)"
else
	is "$(grep '^cpu0 ' $ACCT | sed 's/.* bld=//')" none \
		"sld_compat does not switch DEBUGCTL here (bld=none: Intel, or no kernel bit)"
fi
is "$b" $((L - 1)) "the tracee protected: block-step still stops at the taken branches only (BTF kept)"
is "$s" $((9 * L + 3)) "... and single-step at each instruction"
knob_w exempt_proactive N > /dev/null
knob_w exempt_comm - > /dev/null
unload
[ -z "$msr_loaded" ] || rmmod msr
