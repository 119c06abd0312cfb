#!/bin/bash
# Boot every kernel of the suite and hand the TAP streams to prove.
# Two VMs run at a time: each is one TCG thread for two vCPUs, the machine has two
# cores, and a third would only queue.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KVERS=${KVERS:-$(sed -n 's/^KVERS ?= //p' "$top/tests/vm/kernels.mk")}
rm -f "$top"/build/vm/*.tap
rm -f "$top"/build/vm/*-smt.tap
# Two phases: the runs of one kernel share its build tree.
printf '%s\n' $KVERS | xargs -P "${VM_JOBS:-2}" -I{} "$top/tests/vm/vm.sh" {} check
# The SMT boots, and one 64-vCPU boot (t-many) on the first kernel.
many=${KVERS%% *}
rm -f "$top/build/vm/$many-many.tap"
{ printf '%s smt\n' $KVERS; echo "$many many"; } |
	xargs -P "${VM_JOBS:-2}" -L1 "$top/tests/vm/vm.sh"
taps=
for k in $KVERS; do taps="$taps $top/build/vm/$k.tap $top/build/vm/$k-smt.tap"; done
taps="$taps $top/build/vm/$many-many.tap"
prove --exec cat $taps
