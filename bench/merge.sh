#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# merge.sh NEW RAW: put a partial run's lines (NEW) into the raw numbers
# (RAW): NEW's BENCH lines replace those of the same benchmarks in RAW,
# the others stay; every other line (comments, stderr) is kept once.
set -e
new=$1 raw=$2
touch "$raw"
awk -F'\t' '
NR == FNR { if ($1 == "BENCH") b[$2] = 1; else if (seen[$0]++) next; print; next }
$1 == "BENCH" { if (!($2 in b)) print; next }
!seen[$0]++' "$new" "$raw" > "$raw.new"
mv "$raw.new" "$raw"
