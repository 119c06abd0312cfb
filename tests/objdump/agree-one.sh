#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Compare x86dump and objdump on every executable section of one module.
# usage: agree-one.sh X86DUMP MODULE.ko
# prints one line: "ok<TAB>module<TAB>insns<TAB>findings" or
# "not ok<TAB>module<TAB>insns<TAB>first differences (| separated)".
set -u
x86dump=$1 ko=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Sections with the X flag, as readelf prints them ("[Nr] Name Type ...").
readelf -SW "$ko" | sed -n 's/^ *\[ *[0-9]*\] //p' |
	awk '$7 ~ /X/ && $2 == "PROGBITS" { print $1 }' > "$tmp/secs"

: > "$tmp/mine"
while read -r sec; do
	objcopy -O binary --only-section="$sec" "$ko" "$tmp/bin" 2>/dev/null || continue
	[ -s "$tmp/bin" ] || continue
	"$x86dump" "$tmp/bin" | awk -v s="$sec" '{ print s, $1, ($3 == "" || $3 == "(bad)" || $3 == ".byte") ? "-" : $3 }' >> "$tmp/mine"
done < "$tmp/secs"

# objdump: one line per instruction start, the finding from its mnemonic.
# -z: do not collapse runs of zero bytes, we want every boundary.
args=()
while read -r sec; do args+=(-j "$sec"); done < "$tmp/secs"
if [ ${#args[@]} -gt 0 ]; then
	objdump -d -z --no-show-raw-insn "${args[@]}" "$ko" 2>/dev/null |
	awk -f "$(dirname "$0")/objdump-findings.awk" > "$tmp/theirs"
else
	: > "$tmp/theirs"
fi
n=$(wc -l < "$tmp/theirs")
mod=$ko
if cmp -s "$tmp/mine" "$tmp/theirs"; then
	f=$(awk '$3 != "-" { c[$3]++ } END { for (k in c) printf "%s%s=%d", (n++ ? "," : ""), k, c[k] }' "$tmp/mine")
	printf 'ok\t%s\t%d\t%s\n' "$mod" "$n" "$f"
else
	d=$(diff "$tmp/theirs" "$tmp/mine" | grep '^[<>]' | head -5 | sed 's/^</objdump:/; s/^>/x86scan:/' | paste -sd'|')
	printf 'not ok\t%s\t%d\t%s\n' "$mod" "$n" "$d"
fi
