#!/bin/bash
# Boot every kernel of the suite and hand the TAP streams to prove.
#
# The suite runs on the enforcing test CPU (tests/qemu: split-lock
# detection and kernel IBT, vm.sh VM_CPU=enforcing), where a split lock
# raises a real #AC and MSR_TEST_CTRL holds what was written: the tests
# check what the CPU does. Two more boots keep the CPU without SLD
# covered: the first kernel's suite and SMT boot on the system QEMU's
# stock TCG CPU (sld_compat's kernel-only mode), TAP in build/vm-stock/.
# The 64-vCPU
# boot (t-many) runs on stock TCG too. SUITE_CPU=stock runs everything on
# stock TCG, as before the enforcing CPU existed.
#
# Two VMs run at a time: each is one TCG thread for two vCPUs, the machine
# has two cores, and a third would only queue.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../config.sh
. "$top/tests/config.sh"
read -r -a kvers <<< "$KVERS"
case ${SUITE_CPU:-enforcing} in
enforcing) cpu=enforcing ;;
stock) cpu= ;;
*) echo "check.sh: SUITE_CPU=$SUITE_CPU: enforcing or stock" >&2; exit 2 ;;
esac
# Build the test QEMU once here (a first run: 13 to 17 minutes), not in
# two VMs racing to build it.
[ -z "$cpu" ] || bash "$top/tests/qemu/build.sh" > /dev/null
vm=$top/build/vm stock=$top/build/vm-stock
first=${KVERS%% *}
rm -f "$vm"/*.tap "$stock"/*.tap
# One pool, longest boots first, so that no boot waits on an idle core
# (two phases left 6.12's main suite alone on one core for 10 minutes).
# Two boots of one kernel may start together: vm.sh builds its trees
# under a lock, and the second finds them built.
{
	printf "VM_CPU=$cpu VM_OUT=$vm $top/tests/vm/vm.sh %s check\n" "${kvers[@]}"
	# The knob tables (20, 25, 28) do not depend on the CPU: once per
	# kernel, on the enforcing boot. t-smt/20 and 30 need the CPU's #AC.
	[ -z "$cpu" ] || echo "VM_CPU= VM_OUT=$stock VM_SKIP='20 25 28' $top/tests/vm/vm.sh $first check"
	printf "VM_CPU=$cpu VM_OUT=$vm $top/tests/vm/vm.sh %s smt\n" "${kvers[@]}"
	echo "VM_CPU= VM_OUT=$vm $top/tests/vm/vm.sh $first many"
	[ -z "$cpu" ] || echo "VM_CPU= VM_OUT=$stock VM_SKIP='20 30' $top/tests/vm/vm.sh $first smt"
} | xargs -P "${VM_JOBS:-2}" -L1 env
taps=()
for k in "${kvers[@]}"; do taps+=("$vm/$k.tap" "$vm/$k-smt.tap"); done
taps+=("$vm/$first-many.tap")
[ -z "$cpu" ] || taps+=("$stock/$first.tap" "$stock/$first-smt.tap")
prove --exec cat "${taps[@]}"
