# Unload undoes everything; load/unload cycles leave nothing behind.
# shellcheck source=SCRIPTDIR/../../lib/vm.sh # the VM's /tests/lib.sh
. /tests/lib.sh

ensure_loaded
KPL=/sys/kernel/debug/kprobes/list
# The list names the probed symbol, not the owner: match our hooks' symbols.
re=" ($(cut -d' ' -f2 $S/hooks | paste -sd'|'))\+0x"
kp_before=$(grep -cE "$re" $KPL)
run "rmmod sld_compat" unload
fails "sysfs status directory is gone" test -e $S
fails "module directory is gone" test -e /sys/module/sld_compat
is "$(grep -cE "$re" $KPL)" 0 "no kprobe left behind"
like "$kp_before" "^[1-9]" "kprobes listed while loaded ($kp_before)"
mark_dmesg
slab0=$(grep -E '^(Slab|SUnreclaim):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')
slab_kb() { sed -n 's/^SUnreclaim: *\([0-9]*\) kB/\1/p' /proc/meminfo; }
slab_kb0=$(slab_kb)
# 100 cycles take 70 s of TCG; make check's boots run 25 (leak bound per cycle).
cycles=$(rounds 25 100)
fails=0
i=0
while [ $i -lt "$cycles" ]; do
	load && unload || fails=$((fails + 1))
	i=$((i + 1))
done
is "$fails" 0 "$cycles load/unload cycles"
# Our load line names the kernel's split-lock mode, "warn" on a CPU with SLD.
is "$(new_dmesg | grep -v 'sld_compat: version ' | grep -ciE 'warn|error|bug|oops')" 0 \
	"no new warning or error in dmesg over $cycles cycles"
diag "meminfo before: $slab0"
diag "meminfo after:  $(grep -E '^(Slab|SUnreclaim):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
# Unreclaimable slab after the cycles: what a load leaves behind, that
# many times over. Bounded at 10 kB a cycle (measured growth: see the diag).
grow=$(($(slab_kb) - slab_kb0))
run "unreclaimable slab grew at most $((cycles * 10)) kB over $cycles cycles ($grow kB)" \
	[ "$grow" -le $((cycles * 10)) ]
