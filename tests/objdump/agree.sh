#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Agreement test: x86scan must cut every executable section of every
# listed module at exactly the instruction boundaries objdump uses, and
# find exactly the VMX/SVM/MOV-CR/MOV-DR instructions objdump names.
# usage: agree.sh X86DUMP MODDIR LIST   (LIST: .ko paths relative to MODDIR,
#        "-" for all .ko under MODDIR). Output is TAP. JOBS=2 by default.
set -u
x86dump=$1 moddir=$2 list=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
jobs=${JOBS:-2}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# a private copy: rebuilding x86dump during a run must not change it
cp "$x86dump" "$tmp/x86dump" && x86dump=$tmp/x86dump || exit 1

if [ "$list" = - ]; then
	(cd "$moddir" && find . -name '*.ko' -printf '%P\n' | LC_ALL=C sort) > "$tmp/list"
else
	grep -v '^#' "$list" | grep . > "$tmp/list"
fi
total=$(wc -l < "$tmp/list")
start=$(date +%s)
# shellcheck disable=SC2016 # the inner sh's $1, $2 and $m
sed "s|^|$moddir/|" "$tmp/list" |
	xargs -P "$jobs" -n 8 sh -c 'a=$1 x=$2; shift 2; for m; do "$a" "$x" "$m"; done' \
		sh "$here/agree-one.sh" "$x86dump" > "$tmp/res.u" 2>/dev/null
# back into list order, module names relative to MODDIR (index(), not
# sub(): the "+" of a version like 7.2.13+deb14 is a regex operator)
awk -F'\t' -v OFS='\t' -v d="$moddir/" 'NR == FNR { r[$2] = $0; next }
	{ k = d $0; if (k in r) { $0 = r[k]; if (index($2, d) == 1) $2 = substr($2, length(d) + 1); print } }' \
	"$tmp/res.u" "$tmp/list" > "$tmp/res"
insns=0 agree=0 differ=0
while IFS=$'\t' read -r st mod n found; do
	insns=$((insns + n))
	if [ "$st" = ok ]; then
		agree=$((agree + 1))
		ok "$mod ($n insns${found:+, $found})"
	else
		differ=$((differ + 1))
		nok "$mod"
		printf '%s\n' "${found//|/$'\n'}" | sed 's/^/#   /'
	fi
done < "$tmp/res"
is "$((agree + differ))" "$total" "every module produced a result"
echo "# summary: $total modules, $agree agree, $differ disagree, $insns instructions compared"
echo "# time: $(( $(date +%s) - start )) s"
tap_done
