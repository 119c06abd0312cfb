#!/bin/bash
# crash.sh KVER ibt|splitlock: boot KVER on the enforcing CPU with a test
# that must kill the kernel, and print TAP from its console:
#   ibt        tests/vm/t-ibt: ibtcall.ko calls kallsyms_lookup_name, which
#              6.12 sealed, through a pointer: "Missing ENDBR" (issue #12)
#   splitlock  tests/vm/t-slcrash: slcrash.ko does a split lock at CPL 0:
#              "Split lock detected"
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$1 what=$2
case $what in
ibt) dir=t-ibt mod=ibtcall ;;
splitlock) dir=t-slcrash mod=slcrash ;;
*) echo "usage: crash.sh KVER ibt|splitlock" >&2; exit 2 ;;
esac
out=$top/build/vm-enforcing/$what
# loglevel=7: "Missing ENDBR" is a pr_err, printed before the oops raises
# the console level.
VM_CPU=enforcing VM_T=$top/tests/vm/$dir VM_OUT=$out VM_TIMEOUT=300 VM_APPEND=loglevel=7 \
	bash "$top/tests/vm/vm.sh" "$kver" check >/dev/null 2>&1
log=$out/$kver-check.log
n=0
t() {	# t DESCRIPTION REGEX [absent]: REGEX is in the log (or is not)
	n=$((n + 1))
	found=0 want=1
	grep -qE -- "$2" "$log" && found=1
	[ "${3:-}" = absent ] && want=0
	if [ $found = $want ]; then echo "ok $n - [$kver $what] $1"; else
		echo "not ok $n - [$kver $what] $1"; fi
}
t "the VM booted and ran the test" '^@@@ BEGIN check'
if [ "$what" = ibt ]; then
	# +0x4: the kprobe sits after the sealed (poisoned) ENDBR, which
	# fx_lookup() does not recognise as one, so it calls there.
	t "#CP on the call: Missing ENDBR in kallsyms_lookup_name" 'Missing ENDBR: kallsyms_lookup_name\+0x[0-9a-f]+/'
else
	t "#AC at CPL 0: the kernel's die(\"Split lock detected\")" 'Split lock detected'
	t "at the module's lock (RIP in slcrash)" 'RIP: 0010:[A-Za-z_]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[slcrash\]'
fi
t "the kernel dies of it (panic)" 'Kernel panic'
t "the module's init never returned" "$mod: survived" absent
echo "1..$n"
