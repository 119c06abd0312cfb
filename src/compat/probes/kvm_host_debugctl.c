// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_KVM_HOST_DEBUGCTL: KVM snapshots the host's DEBUGCTL in common x86
 * code (struct kvm_vcpu_arch.host_debugctl), the change that came with
 * kvm_amd's own DEBUGCTL switch around VMRUN (6.14, in the stable kernels
 * and Debian's 6.12).
 */
#include <linux/kvm_host.h>

unsigned long conftest_kvm_host_debugctl(void);
unsigned long conftest_kvm_host_debugctl(void)
{
	return offsetof(struct kvm_vcpu_arch, host_debugctl);
}
