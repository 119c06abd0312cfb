#!/bin/bash
# collect.sh KVER LOG: turn one VM's console log into a TAP stream. The
# suite's own results come first, renumbered, then the harness's checks.
set -u
# shellcheck source=SCRIPTDIR/kernel-errors.sh
. "$(dirname "$0")/kernel-errors.sh"
kver=$1
log=$2
tap=$(sed -n '/@@@ BEGIN [a-z]* /,/^@@@ END$/p' "$log" | sed '1d;$d')
dmesg=$(sed -n '/@@@ BEGIN DMESG/,/^@@@ END DMESG/p' "$log" | sed '1d;$d')
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

emit() {	# emit ok|not-ok DESCRIPTION [DIAG]
	if [ "$1" = ok ]; then ok "$2"; else
		nok "$2"
		[ -n "${3:-}" ] && echo "$3" | head -n 40 | sed 's/^/#   /'
	fi
	return 0
}

tap_fold "[$kver]" <<< "$tap"

if grep -q '^@@@ END$' "$log"; then
	emit ok "[$kver] VM booted and the suite ran to the end"
else
	emit not-ok "[$kver] VM booted and the suite ran to the end" \
		"$(tail -n 30 "$log")"
fi

bad=$(grep -E "$KERNEL_ERRORS" "$log" || true)
if [ -z "$bad" ]; then
	emit ok "[$kver] dmesg: no Oops, BUG, WARNING, GPF, lockdep, KASAN, hung task"
else
	emit not-ok "[$kver] dmesg: no Oops, BUG, WARNING, GPF, lockdep, KASAN, hung task" "$bad"
fi

# sld_compat lines at KERN_ERR or worse (<0>..<3>) must be announced.
expected=$(echo "$tap" | sed -n 's/^# expect-dmesg: //p')
errs=$(echo "$dmesg" | grep -E '^<[0-3]>.*sld_compat' || true)
if [ -n "$expected" ] && [ -n "$errs" ]; then
	errs=$(echo "$errs" | grep -vE -f <(echo "$expected") || true)
fi
if [ -z "$errs" ]; then
	emit ok "[$kver] dmesg: no unexpected sld_compat error line"
else
	emit not-ok "[$kver] dmesg: no unexpected sld_compat error line" "$errs"
fi
# The plan only: vm.sh (set -e) reads the failures from the TAP.
echo "1..$TAP_N"
