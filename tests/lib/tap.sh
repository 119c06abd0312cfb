# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# TAP for every shell test: sourced on the host (tests/unit, tests/pkg,
# tests/qemu, tests/lint, tests/vm/collect.sh) and, copied into the VM's
# initramfs as /tests/tap.sh, in the guest (tests/lib/vm.sh, busybox ash).
# POSIX sh only, and no `local`: dash, bash and busybox all run it.
#
# The test number is $TAP_N, or, where TAP_FILE names a file, kept in that
# file, so that subshells and separate test files share one numbering (the
# guest: /tmp/tap.n, whose total tests/vm/init prints as the plan).
# TAP_FAILS counts this shell's failures; a script ends with tap_done.
# TAP_DIAG_LINES=N shows only the last N lines of a failed command's output.

TAP_N=${TAP_N:-0}
TAP_FAILS=0

_tap_next() {
	if [ -n "${TAP_FILE:-}" ]; then
		TAP_N=$(($(cat "$TAP_FILE" 2>/dev/null || echo 0) + 1))
		echo "$TAP_N" > "$TAP_FILE"
	else
		TAP_N=$((TAP_N + 1))
	fi
}

ok() { _tap_next; echo "ok $TAP_N - $*"; }
nok() { _tap_next; TAP_FAILS=$((TAP_FAILS + 1)); echo "not ok $TAP_N - $*"; }
# skip DESCRIPTION REASON: a TAP skip, only where a feature is absent.
skip() { _tap_next; echo "ok $TAP_N - $1 # skip $2"; }
# diag TEXT...: TEXT as TAP comment lines.
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

# is GOT EXPECTED DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then ok "$3"; else
		nok "$3"; diag "  got:      '$1'"; diag "  expected: '$2'"; fi
}
# like GOT REGEX DESCRIPTION: GOT matches the extended regex
like() {
	if printf '%s\n' "$1" | grep -qE -- "$2"; then ok "$3"; else
		nok "$3"; diag "  got: '$1'"; diag "  expected to match: $2"; fi
}

# _tap_diag_out: the output of the command that just failed, as diagnostics.
_tap_diag_out() {
	[ -n "$TAP_OUTPUT" ] || return 0
	if [ -n "${TAP_DIAG_LINES:-}" ]; then
		printf '%s\n' "$TAP_OUTPUT" | tail -n "$TAP_DIAG_LINES" | sed 's/^/#   /'
	else
		diag "$TAP_OUTPUT"
	fi
}
# run DESCRIPTION CMD...: passes if CMD exits 0. Its stdout and stderr are
# kept in TAP_OUTPUT, and shown if it fails.
run() {
	_tap_d=$1
	shift
	if TAP_OUTPUT=$("$@" 2>&1); then ok "$_tap_d"; else
		nok "$_tap_d"; _tap_diag_out; fi
}
# fails DESCRIPTION CMD...: passes if CMD exits non-zero.
fails() {
	_tap_d=$1
	shift
	if TAP_OUTPUT=$("$@" 2>&1); then nok "$_tap_d"; _tap_diag_out; else
		ok "$_tap_d"; fi
}

# expect_grep FILE STRING DESCRIPTION: FILE has a line containing STRING.
expect_grep() {
	if grep -qF -- "$2" "$1"; then ok "$3"; else
		nok "$3: no '$2' in:"; sed 's/^/#   /' "$1"; fi
}
# expect_no_grep FILE STRING DESCRIPTION: no line of FILE contains STRING.
expect_no_grep() {
	if grep -qF -- "$2" "$1"; then
		nok "$3: unexpected '$2' in:"; sed 's/^/#   /' "$1"
	else
		ok "$3"
	fi
}

# tap_fold TAG < TAP: another TAP stream's results as this script's own:
# renumbered in this numbering, TAG put after the number ("ok 7 TAG - ..."),
# its plan dropped, every other line passed through. Reads stdin in this
# shell (redirect a file or a here-document, not a pipe, or the count is
# lost).
tap_fold() {
	while IFS= read -r _tap_l; do
		case $_tap_l in
		"ok "*|"not ok "*)
			_tap_r=${_tap_l#not }
			_tap_r=${_tap_r#ok }
			_tap_r=${_tap_r#"${_tap_r%%[!0-9]*}"}
			case $_tap_l in
			"not ok "*) _tap_f=1 ;;
			*) _tap_f=0 ;;
			esac
			_tap_next
			if [ $_tap_f = 1 ]; then
				TAP_FAILS=$((TAP_FAILS + 1))
				echo "not ok $TAP_N${1:+ $1}$_tap_r"
			else
				echo "ok $TAP_N${1:+ $1}$_tap_r"
			fi ;;
		"1.."*) ;;
		*) printf '%s\n' "$_tap_l" ;;
		esac
	done
}

# tap_done: the plan; exit status 1 if any test of this shell failed.
tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILS" -eq 0 ]
}
