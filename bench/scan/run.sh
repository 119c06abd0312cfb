#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scan throughput, interleaved: REPS rounds, each one pass of every engine
# over the text of all modules of KVER (x86scan, kernel insn_decode, Zydis
# minimal, Zydis default) and one pass of x86scan and objdump over the
# sample of tests/objdump/sample.txt (objdump over all 4023 modules would
# take minutes a round; the ratio is per byte either way). The order of the
# engines rotates every round. Then the objdump agreement over all modules.
#   run.sh BUILD RESULTS     (REPS, MODDIR from the environment)
set -eu
B=$1 RES=$2
REPS=${REPS:-7}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$RES"

# Text extracted once (kofile: .ko, .ko.xz, .ko.zst), so only decoding is timed.
(cd "$MODDIR" && find . -name '*.ko*' -printf "$MODDIR/%P\n" | LC_ALL=C sort) > "$B/all.list"
grep -v '^#' "$top/tests/objdump/sample.txt" | grep . | sed "s|^|$MODDIR/|" > "$B/sample.list"
"$B/extract" "$B/all.bin" < "$B/all.list"
"$B/extract" "$B/sample.bin" < "$B/sample.list"
echo "# $(wc -l < "$B/all.list") modules, $(stat -c %s "$B/all.bin") bytes of executable sections"

rot() {	# rot N WORD...: ROT=(the words rotated left N times)
	local n=$1; shift
	local a=("$@") i
	ROT=()
	for ((i = 0; i < ${#a[@]}; i++)); do ROT+=("${a[$(((i + n) % ${#a[@]}))]}"); done
}

raw=$RES/scan.tsv
printf 'rep\tset\tengine\tbytes\twall_ns\tcpu_ns\tinsns\tinvalid\n' > "$raw"
for ((r = 1; r <= REPS; r++)); do
	echo "# round $r/$REPS"
	rot "$r" x86scan kernel zydis zydis-full
	"$B/scanbench" "$B/all.bin" "$r" "${ROT[@]}" |
		sed 's/\t/\tall\t/' >> "$raw"
	rot "$r" x86scan objdump
	"$B/scanbench" "$B/sample.bin" "$r" "${ROT[@]}" |
		sed 's/\t/\tsample\t/' >> "$raw"
done

# Agreement with objdump: every instruction boundary and finding, all modules.
echo "# objdump agreement over all modules (tests/objdump/agree.sh)"
JOBS=${JOBS:-2} "$top/tests/objdump/agree.sh" "$top/build/objdump/x86dump" "$MODDIR" - \
	> "$B/agree.tap" || true
grep -E '^# (summary|time)' "$B/agree.tap" | sed 's/^# //' > "$RES/scan-agree.txt"
cat "$RES/scan-agree.txt"
