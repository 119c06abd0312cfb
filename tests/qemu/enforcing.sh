# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The one place that says what the enforcing test CPU is (VM_CPU=enforcing
# of tests/vm/vm.sh, the booted systems of tests/system/). Sourced; sets
# enf_qemu (the binary, built by tests/qemu/build.sh on first use; VM_QEMU:
# another build of the patched QEMU, for patch development), enf_cpu (the
# -cpu), enf_opts (more QEMU options, an array) and enf_append (kernel
# command line).
#
# Ice Lake-SP (family 6, model 106) is in both kernels' split_lock_cpu_ids
# with nothing more to check; hypervisor=off because a guest kernel skips
# split-lock setup; the CPU's SMT siblings share MSR_TEST_CTRL as on
# hardware. The firmware is the system QEMU's. spectre_v2=off: retpolines
# would turn indirect calls into returns, which IBT does not track (a real
# IBT host has enhanced IBRS and plain indirect calls);
# indirect_target_selection=off, or 6.12 logs "ITS: WARNING: Spectre-v2
# mitigation is off" (model 106 has that bug).
# shellcheck disable=SC2034 # used by the scripts that source this
enforcing_cpu() {
	enf_qemu=${VM_QEMU:-$(bash "$(dirname "${BASH_SOURCE[0]}")/build.sh")}
	enf_cpu=max,hypervisor=off,vendor=GenuineIntel,family=6,model=106
	enf_opts=(-L /usr/share/qemu -L /usr/share/seabios -nic none)
	enf_append="spectre_v2=off indirect_target_selection=off"
}
