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

# Every test file ran to its end (tests/vm/init, lib.sh's head): its end
# marker, exit status 0, at least one check and at least its plan.
files=$(awk '
	function judge() {
		if (f == "") return
		why = ""
		if (!ended) why = why ", no end marker (exit, error or killed)"
		if (rc != "0") why = why ", exit status " (rc == "" ? "none" : rc)
		if (n < 1) why = why ", no check"
		if (pl != "" && n < pl + 0) why = why ", " n " checks of its plan " pl
		if (why != "") print f ": " substr(why, 3)
		else good++
	}
	/^# --- / { judge(); f = $3; n = 0; ended = 0; rc = ""; pl = ""; total++; next }
	/^(not )?ok / { n++; next }
	/^# plan [0-9]+$/ { pl = $3; next }
	/^# end-of-file / { if ($3 == f) ended = 1; next }
	/^# exit-status / { if ($3 == f) rc = $4; next }
	END { judge(); print "# " good + 0 " of " total + 0 }' <<< "$tap")
if [ "$(echo "$files" | grep -vc '^# ')" = 0 ] && ! echo "$files" | grep -q '^# 0 of'; then
	emit ok "[$kver] every test file ran to its end ($(echo "$files" | sed -n 's/^# //p') files)"
else
	emit not-ok "[$kver] every test file ran to its end" "$(echo "$files" | grep -v '^# ')"
fi

# sld_compat lines at KERN_ERR or worse (<0>..<3>) must be announced, by
# the test file that ran when the kernel logged them (expect_dmesg; init
# logs "sldtest-file NAME" as each file starts).
errs=$(awk '
	NR == FNR {
		if ($0 ~ /^# --- /) f = $3
		else if (sub(/^# expect-dmesg: /, "")) pat[f] = pat[f] (f in pat ? "|" : "") "(" $0 ")"
		next
	}
	/sldtest-file / { f = $NF; next }
	/^<[0-3]>.*sld_compat/ { if (!(f in pat) || $0 !~ pat[f]) print }' \
	<(echo "$tap") <(echo "$dmesg"))
if [ -z "$errs" ]; then
	emit ok "[$kver] dmesg: no unexpected sld_compat error line"
else
	emit not-ok "[$kver] dmesg: no unexpected sld_compat error line" "$errs"
fi
# The plan only: vm.sh (set -e) reads the failures from the TAP.
echo "1..$TAP_N"
