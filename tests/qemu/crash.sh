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
. "$top/tests/lib/tap.sh"
in_log() { grep -qE -- "$1" "$log"; }	# in_log REGEX
tag="[$kver $what]"
run "$tag the VM booted and ran the test" in_log '^@@@ BEGIN check'
if [ "$what" = ibt ]; then
	# +0x4: the kprobe sits after the sealed (poisoned) ENDBR, which
	# fx_lookup() does not recognise as one, so it calls there.
	run "$tag #CP on the call: Missing ENDBR in kallsyms_lookup_name" \
		in_log 'Missing ENDBR: kallsyms_lookup_name\+0x[0-9a-f]+/'
else
	run "$tag #AC at CPL 0: the kernel's die(\"Split lock detected\")" \
		in_log 'Split lock detected'
	run "$tag at the module's lock (RIP in slcrash)" \
		in_log 'RIP: 0010:[A-Za-z_]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[slcrash\]'
fi
run "$tag the kernel dies of it (panic)" in_log 'Kernel panic'
fails "$tag the module's init never returned" in_log "$mod: survived"
tap_done
