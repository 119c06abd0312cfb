#!/bin/bash
# make cpu-boots: every boot of the enforcing test CPU's checks (what each
# covers: cpu-check in tests/Makefile), two at a time, then their
# TAP to prove. The kernel lists come from make (CPU_KVERS, CPU_SMT_KVERS,
# CPU_IBT_KVER, CPU_BLD_KVERS, CPU_BPO_KVER); each boot prints its
# seconds (vm.sh).
#
# Two at a time, as tests/vm/check.sh: each VM is one TCG thread and the
# machine has two cores. The longest boots (t-cpu on each kernel) are
# queued first, so that the two queues end together.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
read -r -a kvers <<< "${CPU_KVERS:?}"
read -r -a smt_kvers <<< "${CPU_SMT_KVERS:?}"
read -r -a bld_kvers <<< "${CPU_BLD_KVERS:?}"
ibt=${CPU_IBT_KVER:?}
bpo=${CPU_BPO_KVER:-}
e=build/vm-enforcing a=build/vm-enforcing-amd
rm -f $e/*.tap $e/ratelimit/*.tap $a/*.tap $a/ratelimit/*.tap $e/t/*.tap $e/nobld/*.tap
mkdir -p $e/t $e/nobld

# One boot per line, a command for bash.
boots() {
	local k vm="bash tests/vm/vm.sh" cpu="VM_CPU=enforcing VM_T=tests/vm/t-cpu"
	for k in "${kvers[@]}"; do echo "$cpu $vm $k check"; done
	for k in "${smt_kvers[@]}"; do echo "$cpu $vm $k smt"; done
	# crash.sh exits 1 if a test failed: prove reports it with the rest.
	echo "bash tests/qemu/crash.sh $ibt ibt > $e/$ibt-ibt.tap || :"
	echo "bash tests/qemu/crash.sh ${kvers[0]} splitlock > $e/${kvers[0]}-splitlock.tap || :"
	for k in "${bld_kvers[@]}"; do
		echo "VM_CPU=enforcing-amd VM_T=tests/vm/t-cpu VM_ONLY='70 72 75 76 77' $vm $k check"
		echo "$cpu VM_ONLY='70 72' VM_APPEND=split_lock_detect=ratelimit:1 VM_OUT=$e/ratelimit $vm $k check"
		echo "$cpu VM_ONLY=72 VM_APPEND=split_lock_detect=ratelimit:1 VM_OUT=$e/ratelimit $vm $k smt"
		echo "VM_CPU=enforcing-amd VM_T=tests/vm/t-cpu VM_ONLY='70 72' VM_APPEND=split_lock_detect=ratelimit:1 VM_OUT=$a/ratelimit $vm $k check"
	done
	# The 7.x kernel: what make vm-check runs on Debian 12's kernels only,
	# where the kernel changed under the module (issue #37: the exe
	# file's reference since 6.7, the re-enable paths, the account), and
	# sldctl offenders on the trap lines 7.x's bus_lock.c logs (t/58).
	if [ -n "$bpo" ]; then
		echo "VM_CPU=enforcing VM_ONLY='43 58' VM_OUT=$e/t $vm $bpo check"
		echo "VM_CPU=enforcing VM_OUT=$e/t $vm $bpo smt"
	fi
	# The Intel model without bus-lock detection (Ice Lake): the SMT
	# sibling's exposure (issue #39), on the newest kernels.
	for k in $ibt $bpo; do
		echo "VM_CPU=enforcing-nobld VM_ONLY=40 VM_OUT=$e/nobld $vm $k smt"
	done
}

# A pool of ${VM_JOBS:-2}; a failed boot is a not-ok in its TAP file.
boots | {
	while IFS= read -r cmd; do
		while [ "$(jobs -rp | wc -l)" -ge "${VM_JOBS:-2}" ]; do wait -n || :; done
		bash -c "$cmd" || : &
	done
	wait
}
prove --exec cat $e/*.tap $e/ratelimit/*.tap $a/*.tap $a/ratelimit/*.tap $e/t/*.tap $e/nobld/*.tap
