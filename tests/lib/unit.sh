# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# What the sldctl shell tests share on top of tests/lib/tap.sh: T, a
# scratch dir removed on exit, and capture(), which fills $T/out, $T/err
# and RC (a test may define its own). The sourcing script ends with
# tap_done.
. "$(dirname "$0")/../lib/tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM

# capture CMD...: sets RC and the out and err files.
capture() {
	"$@" > "$T/out" 2> "$T/err"
	RC=$?
}

expect_rc() {	# WANT WHAT
	if [ "$RC" -eq "$1" ]; then
		ok "$2 (exit $RC)"
	else
		nok "$2: exit $RC, want $1"
		sed 's/^/#   stdout: /' "$T/out"
		sed 's/^/#   stderr: /' "$T/err"
	fi
}

# Python check over the JSON in $T/out; the script gets it as `doc`, and
# sys.argv[2] is $NMOD (0 if unset).
json_check() {	# WHAT SCRIPT
	if python3 -c "
import json, sys
doc = json.load(open(sys.argv[1], encoding='utf-8'))
$2
" "$T/out" "${NMOD:-0}" 2> "$T/pyerr"; then
		ok "$1"
	else
		nok "$1"
		sed 's/^/#   /' "$T/pyerr"
	fi
}
