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
# The matrix, for the boots too (vm.sh tells the guest; a boot of its own
# defaults to full).
export VM_MATRIX=${VM_MATRIX:-check}
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
# VM_MATRIX=check (make check): each boot runs what only it can catch.
# The newest kernel runs the whole suite but the stress files; the files
# that do not depend on the kernel (knob tables and bad input, privilege,
# sldctl, udev, task names: the schema and userspace) run there alone.
# sldctl offenders (58) reads the lines each kernel logs for real traps:
# the 6.1 and 6.12 boots (cpu-check's 7.3 Intel boot too). 6.1 and 6.1-rt
# are one kernel version: 6.1 (Debian 12's
# default) runs all that depends on it; -rt, whose sleeping locks and
# preemption find races the others hide, runs the files that race the
# engine (the #AC path, task records and their pool, release, the
# allocator failing, modules in use, unload) and the stress files (knob
# writers, re-decide flips, unload cycles, teardown races), which run on
# -rt alone. The stock CPU boot runs the files that take another branch
# without split-lock detection. VM_MATRIX=full (make check-full): every
# file on every boot. Files with a repeat count run fewer rounds under
# check (tests/lib/vm.sh's rounds).
indep='20 25 28 48 54 55'
stress='26 50 85 89'
rt_races='10 40 42 43 46 51 52 57 87 90'
stock_only='10 30 40 41 45 49 51 54 60 87'
newest=${kvers[${#kvers[@]}-1]}
# files_of KVER: the VM_ONLY or VM_SKIP of KVER's boot.
files_of() {
	[ "${VM_MATRIX:-check}" = check ] || return 0
	case $1 in
	"$newest") echo "VM_SKIP='$stress'" ;;
	*-rt-*) echo "VM_ONLY='$rt_races $stress'" ;;
	*) echo "VM_SKIP='$indep $stress'" ;;
	esac
}
case ${VM_MATRIX:-check} in
check) stock_sel="VM_ONLY='$stock_only'" ;;
full) stock_sel="VM_SKIP='20 25 28'" ;;
*) echo "check.sh: VM_MATRIX=$VM_MATRIX: check or full" >&2; exit 2 ;;
esac
# The SMT suite (t-smt): under VM_MATRIX=check not on the first kernel
# where another of the same version follows (6.1: its -rt runs t-smt on
# that version, with the preemption that finds the races).
smt=()
for k in "${kvers[@]}"; do
	if [ "$VM_MATRIX" = check ] && [ "$k" = "$first" ] &&
		[[ " ${kvers[*]} " = *" ${first%-amd64}-rt-amd64 "* ]]; then
		continue
	fi
	smt+=("$k")
done
{
	# Newest first: under VM_MATRIX=check it runs the most.
	for ((i = ${#kvers[@]} - 1; i >= 0; i--)); do
		k=${kvers[i]}
		echo "VM_CPU=$cpu VM_OUT=$vm $(files_of "$k") $top/tests/vm/vm.sh $k check"
	done
	# The knob tables (20, 25, 28) do not depend on the CPU: never on the
	# stock boot. t-smt/20, 30 and 40 need the CPU's #AC.
	[ -z "$cpu" ] || echo "VM_CPU= VM_OUT=$stock $stock_sel $top/tests/vm/vm.sh $first check"
	printf "VM_CPU=$cpu VM_OUT=$vm $top/tests/vm/vm.sh %s smt\n" "${smt[@]}"
	echo "VM_CPU= VM_OUT=$vm $top/tests/vm/vm.sh $first many"
	[ -z "$cpu" ] || echo "VM_CPU= VM_OUT=$stock VM_SKIP='20 30 40' $top/tests/vm/vm.sh $first smt"
} | xargs -P "${VM_JOBS:-2}" -L1 env
taps=()
for k in "${kvers[@]}"; do taps+=("$vm/$k.tap"); done
for k in "${smt[@]}"; do taps+=("$vm/$k-smt.tap"); done
taps+=("$vm/$first-many.tap")
[ -z "$cpu" ] || taps+=("$stock/$first.tap" "$stock/$first-smt.tap")
prove --exec cat "${taps[@]}"
