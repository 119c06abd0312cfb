#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The documentation against the code. The knobs are the schema's
# (src/schema/knobs_table.c), the sldctl subcommands tools/sldctl/
# commands.def's. Every knob and subcommand that README.md, docs/knobs.md
# or sldctl(8) names must exist; conversely every knob has a row in
# docs/knobs.md's table and is named in sldctl(8), and every subcommand
# is in README's cheat-sheet and has its entry in sldctl(8). The status
# files (src/status/status.c) each have their row in docs/status.md. Also: no
# Markdown table row of README.md or docs/ holds an unescaped `|` inside
# a code span (it splits the cell), and every relative link resolves.
# Part of `make lint`; TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/lib/tap.sh

man=packaging/sldctl.8
ref=docs/knobs.md
knobs=$(sed -n '/^#define/d; s/.*\.name = "\([a-z_]*\)".*/\1/p; s/.*_KNOB(\([a-z_]*\),.*/\1/p; s/.*_KNOB(\([a-z_]*\)).*/\1/p' \
	src/schema/knobs_table.c | sort -u)
cmds=$(sed -n 's/^SLDCTL_CMD(\([a-z]*\),.*/\1/p' tools/sldctl/commands.def | sort -u)
# count WORDS: how many words.
count() { wc -w <<<"$1"; }
like "$(tr '\n' ' ' <<<"$knobs")" '^[a-z_]+( [a-z_]+){9,} $' "the schema names at least 10 knobs ($(count "$knobs"))"
like "$(tr '\n' ' ' <<<"$cmds")" '^[a-z]+( [a-z]+){5,} $' "commands.def names at least 6 subcommands ($(count "$cmds"))"

# sldctl(8) as plain text, one line: fonts, escapes and macro names gone.
man_text() {
	sed -e 's/\\f[BIRP]//g; s/\\-/-/g; s/\\(dq/"/g; s/\\e/\\/g' \
		-e 's/^\.[A-Z][A-Z]*[[:space:]]*//; s/^\.\\".*//' "$man" | tr '\n' ' '
}

# knob_names FILE...: the words the text presents as knobs: NAME=VALUE or
# NAME = VALUE (kernel parameters excepted), `policy set NAME VALUE`,
# "knob NAME" where NAME has an underscore, and every word of a knob's family (exempt_*, on_*, trust_*,
# max_*, safe_*, tasks_per_*, hypervisor_modules).
knob_names() {
	# shellcheck disable=SC2016 # the backquotes are Markdown's
	cat "$@" | tr '\n' ' ' | grep -oE \
		'(^|[ `(,])([a-z][a-z0-9]*(_[a-z0-9]+)+|enabled|verbose) ?= ?[A-Za-z0-9/+-]|policy set [a-z_]+ [A-Za-z0-9]|knobs? `?[a-z][a-z0-9]*_[a-z_]+|(^|[^a-z_.])((exempt|on|trust|max|safe|tasks_per)_[a-z_]+|hypervisor_modules?)\b' |
		sed -E 's/^[^a-z]*//; s/^policy set //; s/^knobs? `?//; s/[ =].*//' |
		grep -vxE 'split_lock_detect|split_lock_mitigate|enable_virt_at_load' |
		grep -vxF -f <(status_files) | sort -u
}

# status_files: the status files' names (src/status/status.c), which share
# the knobs' families (exempt_pending) but are no knobs.
status_files() {
	sed -n 's/^[[:space:]]*{ "\([a-z_]*\)", [a-z_]*_show },$/\1/p' src/status/status.c
}

# check_named WHAT LIST: every name of LIST is a knob.
check_named() {
	local bad=
	for n in $2; do
		grep -qx "$n" <<<"$knobs" || bad="$bad $n"
	done
	is "$bad" "" "$1: every knob it names exists ($(count "$2") named)"
}

man_text > "${TMPDIR:-/tmp}/sldctl8.$$.txt"
mantxt=${TMPDIR:-/tmp}/sldctl8.$$.txt
trap 'rm -f "$mantxt"' EXIT

check_named README.md "$(knob_names README.md)"
check_named "$ref" "$(knob_names "$ref")"
check_named "sldctl(8)" "$(knob_names "$mantxt")"

# The knob reference: one table row per knob, no row for anything else.
# shellcheck disable=SC2016 # the backquotes are Markdown's
rows=$(sed -n 's/^| `\([a-z_]*\)` |.*/\1/p' "$ref" | sort)
is "$rows" "$knobs" "$ref: its table has one row per knob of the schema"
missing=
for k in $knobs; do
	grep -qw "$k" "$mantxt" || missing="$missing $k"
done
is "$missing" "" "sldctl(8) names every knob"

# Subcommands: `sldctl WORD` as code: in a code span or an indented
# block of Markdown, in bold in sldctl(8).
sub_names() {
	case $1 in
	*.md) grep -oE '(`|^    )sldctl [a-z]+' "$1" ;;
	*) grep -oE '(^\.BR? "?|\\fB)sldctl [a-z]+' "$1" ;;
	esac | sed 's/.*sldctl //' | sort -u
}
for f in README.md "$ref" "$man"; do
	bad=
	names=$(sub_names "$f")
	for w in $names; do
		grep -qx "$w" <<<"$cmds" || bad="$bad $w"
	done
	is "$bad" "" "$f: every 'sldctl SUBCOMMAND' it names exists ($(count "$names") named)"
done
missing=
for c in $cmds; do
	grep -qE "^    sldctl $c( |$)" README.md || missing="$missing $c"
done
is "$missing" "" "README.md: the cheat-sheet shows every subcommand"
missing=
for c in $cmds; do
	grep -qE "^\.B sldctl $c( |$)" "$man" || missing="$missing $c"
	# Its entry under COMMANDS: .TP, then .B NAME.
	sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$man" | grep -A1 '^\.TP' |
		grep -qE "^\.B $c( |\\\\|$)" || missing="$missing $c(entry)"
done
is "$missing" "" "sldctl(8): every subcommand in SYNOPSIS and under COMMANDS"
bad=
entries=$(sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$man" | grep -A1 '^\.TP' |
	sed -n 's/^\.B \([a-z]*\).*/\1/p' | sort -u)
for w in $entries; do
	grep -qx "$w" <<<"$cmds" || bad="$bad $w"
done
is "$bad" "" "sldctl(8): every entry under COMMANDS is a subcommand"

# docs/status.md: a row for every file of /sys/kernel/sld_compat/ (the
# items of src/status/status.c; "status" repeats them all), none for others.
files=$(status_files | sort)
# shellcheck disable=SC2016 # the backquotes are Markdown's
rows=$(sed -n 's/^| \(`[a-z_]*`\(, `[a-z_]*`\)*\) |.*/\1/p' docs/status.md | tr -d '`' |
	tr ',' '\n' | tr -d ' ' | sort)
like "$(tr '\n' ' ' <<<"$files")" '^[a-z_]+( [a-z_]+){9,} $' "status.c names at least 10 status files"
is "$rows" "$files" "docs/status.md: one row per status file of src/status/status.c"

# sldctl(8) cites README's trust-model section by its title.
title=$(grep -oE 'the section "[^"]+" of' "$mantxt" | sed 's/^the section "//; s/" of$//')
like "$title" 'trust model' "sldctl(8) cites the trust model's section ($title)"
run "README.md has the section sldctl(8) cites" grep -qxF "## $title" README.md

# Markdown tables: `a|b` inside a code span must be written `a\|b`.
docs=(README.md docs/*.md)
bad=$(awk '/^\|/ {
	code = 0
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "`") code = !code
		else if (c == "|" && code && substr($0, i - 1, 1) != "\\") {
			print FILENAME ":" FNR; break
		}
	}
}' "${docs[@]}")
is "$bad" "" "no table row has an unescaped | inside a code span"

# Relative links ([text](path) and ![img](path)) point at files.
bad=
for f in "${docs[@]}"; do
	while read -r l; do
		[ -z "$l" ] || [ -e "$(dirname "$f")/$l" ] || bad="$bad $f:$l"
	done < <(grep -oE '\]\([^)#: ]+' "$f" | sed 's/^](//')
done
is "$bad" "" "every relative link of README.md and docs/ resolves"
tap_done
