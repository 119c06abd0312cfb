# SPDX-License-Identifier: GPL-2.0
# TAP helpers shared by the sldctl shell tests: T, a scratch dir removed
# on exit, and run(), which fills $T/out, $T/err and RC (a test may define
# its own). The sourcing script ends with: echo "1..$N"; [ "$FAILS" -eq 0 ]
FAILS=0
N=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM

# run CMD...: sets RC and the out and err files.
run() {
	"$@" > "$T/out" 2> "$T/err"
	RC=$?
}

ok() { N=$((N + 1)); echo "ok $N - $1"; }
not_ok() { N=$((N + 1)); FAILS=$((FAILS + 1)); echo "not ok $N - $1"; }

expect_rc() {	# WANT WHAT
	if [ "$RC" -eq "$1" ]; then
		ok "$2 (exit $RC)"
	else
		not_ok "$2: exit $RC, want $1"
		sed 's/^/#   stdout: /' "$T/out"
		sed 's/^/#   stderr: /' "$T/err"
	fi
}

expect_grep() {	# FILE PATTERN WHAT
	if grep -qF -- "$2" "$1"; then
		ok "$3"
	else
		not_ok "$3: no '$2' in:"
		sed 's/^/#   /' "$1"
	fi
}

expect_no_grep() {	# FILE PATTERN WHAT
	if grep -qF -- "$2" "$1"; then
		not_ok "$3: unexpected '$2' in:"
		sed 's/^/#   /' "$1"
	else
		ok "$3"
	fi
}

is() {	# GOT WANT WHAT
	if [ "$1" = "$2" ]; then ok "$3"; else
		not_ok "$3: got '$1', want '$2'"; fi
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
		not_ok "$1"
		sed 's/^/#   /' "$T/pyerr"
	fi
}
