#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A sample of a kernel whose modules are .ko.xz (Debian unstable's 7.x),
# decompressed for agree.sh (objdump and readelf of binutils 2.40 do not
# read .ko.xz): every module whose bytes hold a VMX or SVM opcode
# (0F 01 C1-C4 vmcall..vmxoff, 0F 01 D8-DF vmrun..invlpga, 0F 78/79
# vmread/vmwrite; a superset: data can match too) plus OTHERS more, evenly
# spaced over the sorted rest.
# usage: xz-sample.sh MODDIR OUTDIR [OTHERS]   (OTHERS: 50 by default)
# Writes OUTDIR/NAME.ko for each and OUTDIR/list (paths relative to OUTDIR);
# a second run with the same MODDIR reuses them.
set -eu
moddir=$1 out=$2 others=${3:-50}
[ -f "$out/list" ] && [ "$(cat "$out/.src" 2>/dev/null)" = "$moddir $others" ] && exit 0
rm -rf "$out"
mkdir -p "$out"
cd "$moddir"
find . -name '*.ko.xz' -printf '%P\n' | LC_ALL=C sort > "$out/all"
: > "$out/vmx"
while read -r m; do
	xz -dc "$m" | LC_ALL=C grep -qaP '\x0f\x01[\xc1-\xc4\xd8-\xdf]|\x0f[\x78\x79]' &&
		echo "$m" >> "$out/vmx"
done < "$out/all"
LC_ALL=C comm -23 "$out/all" "$out/vmx" > "$out/rest"
awk -v k="$others" '{ r[NR] = $0 } END { if (k > NR) k = NR
	for (i = 0; i < k; i++) print r[int(i * NR / k) + 1] }' "$out/rest" > "$out/others"
LC_ALL=C sort "$out/vmx" "$out/others" | while read -r m; do
	mkdir -p "$out/$(dirname "$m")"
	xz -dc "$m" > "$out/${m%.xz}"
	echo "${m%.xz}"
done > "$out/list"
echo "# $(wc -l < "$out/vmx") modules with VMX/SVM opcode bytes, $(wc -l < "$out/others") others, of $(wc -l < "$out/all")" > "$out/summary"
rm -f "$out/all" "$out/rest"
echo "$moddir $others" > "$out/.src"
