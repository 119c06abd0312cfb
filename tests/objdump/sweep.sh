#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Opcode-space agreement: x86dump -c vs objdump on
#  1. every legacy (prefix, map, opcode, ModRM.reg, reg/mem) combination
#     and every register ModRM of 0f 01/a6/a7/ae (the table generator's
#     cases): must agree 100%;
#  2. 100000 random instruction-shaped legacy byte strings (fixed seeds):
#     must agree 100%;
#  3. 5000 random VEX/EVEX/XOP strings: reported, not required (the decoder
#     does not model which W/L/vvvv/ModRM variants of a VEX opcode exist,
#     see decode.c; compilers only emit valid ones).
# usage: sweep.sh X86DUMP
set -u
x86dump=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

compare() {	# name cases-file -> prints "name: N cases, D differ", returns D>0
	"$here/objdump-oracle.py" < "$2" > "$tmp/obj"
	"$x86dump" -c < "$2" > "$tmp/mine"
	paste -d '\n' "$tmp/obj" "$tmp/mine" | awk -v name="$1" '
		NR % 2 == 1 { split($0, a, / \| /); next }
		{ split($0, b, / \| /); n++
		  if (a[2] != b[2]) { d++; if (d <= 5) print "#   " a[1] ": objdump " a[2] " (" a[3] "), x86scan " b[2] } }
		END { printf "# %s: %d cases, %d differ\n", name, n, d; exit d > 0 }'
}

rc=0
"$here/gen-legacy-tables.py" --cases > "$tmp/legacy"
compare legacy-opcode-space "$tmp/legacy" || rc=1
for seed in 1 2 3 4 5; do
	"$here/random-cases.py" 20000 $seed legacy
done > "$tmp/random"
compare random-legacy "$tmp/random" || rc=1
"$here/random-cases.py" 60000 7 all | grep -E '^((66|f2|f3|4[0-9a-f]) )*(c4|c5|62|8f) ' | head -5000 > "$tmp/vex"
compare random-vex-evex-xop "$tmp/vex" || echo "# (VEX/EVEX/XOP differences are informational)"
exit $rc
