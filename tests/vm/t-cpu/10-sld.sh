# The enforcing CPU (VM_CPU=enforcing, tests/qemu/) as the kernel sees it,
# without sld_compat: split-lock detection found and enabled, a user split
# lock trapped and punished by the kernel's own warn mode.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

like "$(dmesg)" 'x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks' \
	"the kernel enables split-lock detection (warn mode)"
like "$(grep -m1 '^flags' /proc/cpuinfo)" ' split_lock_detect( |$)' "/proc/cpuinfo: split_lock_detect"

# time N split|aligned: N locked adds 100 ms apart (the kernel re-enables
# detection 2 jiffies after a trap, by a work item that a busy host can
# delay), their mean cost in us.
per_lock() { sldcpu time "$1" "$2" 100000; }
echo 1 > /proc/sys/kernel/split_lock_mitigate
mark_dmesg
base=$(per_lock 10 aligned)
split=$(per_lock 10 split)
diag "aligned: $base"
diag "split, split_lock_mitigate=1: $split"
like "$base" 'counter=10$' "aligned locked adds: counter right"
like "$split" 'counter=10$' "split locked adds: counter right (#AC before memory changed, add redone once)"
b=$(field "$base" per_lock_us)
s=$(field "$split" per_lock_us)
# The kernel sleeps 10 ms in every trap (split_lock_mitigate=1).
run "a split lock costs the kernel's 10 ms penalty ($s us/lock), aligned ones do not ($b us/lock)" \
	[ "$s" -ge 9000 -a "$s" -gt $((b * 10 + 100)) ]
like "$(new_dmesg)" 'sldcpu/[0-9]+ took a split_lock trap at address' "dmesg: the task took a split_lock trap"

# Without the penalty the trap stays, its cost goes: the 10 ms above is the
# kernel's mitigation, not the emulator.
echo 0 > /proc/sys/kernel/split_lock_mitigate
fast=$(per_lock 10 split)
diag "split, split_lock_mitigate=0: $fast"
like "$fast" 'counter=10$' "split locked adds without mitigation: counter right"
run "split_lock_mitigate=0: no 10 ms sleep ($(field "$fast" per_lock_us) us/lock)" \
	[ "$(field "$fast" per_lock_us)" -lt 5000 ]
echo 1 > /proc/sys/kernel/split_lock_mitigate

# Every locked instruction form traps when split: the kernel's line names
# each op's task. Each op runs on cpu0 once the kernel has set bit 29 there
# again (its re-enable is a work item 2 jiffies after the last trap, late
# on a busy host: a 30 ms sleep once let an op run undetected). The trap
# line is rate-limited, 10 in 5 s: the lines above have had their 5 s.
insmod /kmod/msr.ko
sleep 5.1
for k in add inc not neg xadd cmpxchg cmpxchg8b xchg bts; do
	sld_on_wait 0
	o=$(taskset -c 0 sldcpu op $k split)
	diag "lock $k: $o"
	like "$(new_dmesg)" "sldcpu/$(field "$o" pid) took a split_lock trap at address" \
		"lock $k across a cache line traps ($(field "$o" us) us)"
done
rmmod msr
