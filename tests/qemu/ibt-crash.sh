#!/bin/bash
# ibt-crash.sh KVER: boot KVER on the enforcing CPU with tests/vm/t-ibt
# (ibtcall.ko calls a sealed function through a pointer) and print TAP:
# the kernel must die of the missing ENDBR, as on IBT hardware (issue #12).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$1
out=$top/build/vm-enforcing/ibt
# loglevel=7: "Missing ENDBR" is a pr_err, printed before the oops raises
# the console level.
VM_CPU=enforcing VM_T=$top/tests/vm/t-ibt VM_OUT=$out VM_TIMEOUT=300 VM_APPEND=loglevel=7 \
	bash "$top/tests/vm/vm.sh" "$kver" check >/dev/null 2>&1
log=$out/$kver-check.log
n=0
t() {	# t DESCRIPTION REGEX [absent]: REGEX is in the log (or is not)
	n=$((n + 1))
	found=0 want=1
	grep -qE -- "$2" "$log" && found=1
	[ "${3:-}" = absent ] && want=0
	if [ $found = $want ]; then echo "ok $n - [$kver ibt] $1"; else
		echo "not ok $n - [$kver ibt] $1"; fi
}
t "the VM booted and ran the test" '^@@@ BEGIN check'
# +0x4: the kprobe sits after the sealed (poisoned) ENDBR, which
# fx_lookup() does not recognise as one, so it calls there.
t "#CP on the call: Missing ENDBR in kallsyms_lookup_name" 'Missing ENDBR: kallsyms_lookup_name\+0x[0-9a-f]+/'
t "the kernel dies of it (kernel BUG, panic)" 'Kernel panic'
t "the module's init never returned" 'ibtcall: survived' absent
echo "1..$n"
