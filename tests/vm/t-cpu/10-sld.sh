# The enforcing CPU (VM_CPU=enforcing, tests/qemu/) as the kernel sees it,
# without sld_compat: split-lock detection found and enabled, a user split
# lock trapped and punished by the kernel's own warn mode.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

like "$(dmesg)" 'x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space split_locks' \
	"the kernel enables split-lock detection (warn mode)"
like "$(grep -m1 '^flags' /proc/cpuinfo)" ' split_lock_detect( |$)' "/proc/cpuinfo: split_lock_detect"

# time N split|aligned: N locked adds 30 ms apart (the kernel re-enables
# detection 2 jiffies after a trap), their mean cost in us.
per_lock() { sldcpu time "$1" "$2" 30000; }
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

# Every locked instruction form traps when split (each a new task, 30 ms
# after the last trap).
for k in add inc not neg xadd cmpxchg cmpxchg8b xchg bts; do
	sleep 0.03
	u=$(field "$(sldcpu op $k split)" us)
	run "lock $k across a cache line traps (${u} us)" [ "${u:-0}" -ge 9000 ]
done
