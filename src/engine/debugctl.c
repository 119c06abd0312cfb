// SPDX-License-Identifier: GPL-2.0
/*
 * The bus-lock bit of IA32_DEBUGCTL (bit 2), the #DB path's detection, and
 * the account of it. Where the kernel set it at boot (sld_kernel.kernel_bld:
 * Intel in ratelimit mode, AMD from 6.13 on), it is cleared on a CPU while
 * that CPU holds SLD off for sld_compat (core_msr.c: a protected task runs
 * there, a vendor guest bracket, the global disable) and set again when
 * the hold ends. That is the #AC path's relief on the #DB path, and for an
 * SVM hypervisor the only one that works: VMRUN leaves DEBUGCTL as it is
 * (no LBR virtualization), so under a set bit its guest's bus locks raise
 * #DBs the guest never asked for.
 *
 * Unlike MSR_TEST_CTRL the register is per logical CPU: a hold clears it
 * on its own CPU only, and an SMT sibling keeps detecting. Only a change
 * of the CPU's hold writes, so a switch between two protected tasks
 * writes nothing. Every write is a read-modify-write of bit 2 alone, on
 * the CPU, irqs off: the kernel's own users of the register (BTF for
 * ptrace block-step, perf's LBR bits, KVM's save and restore around
 * VMRUN) do the same to their bits and keep them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/percpu.h>
#include <asm/msr-index.h>

#include "compat/compat.h"
#include "sld_compat.h"
#include "debugctl.h"
#include "symbols.h"

struct bld_cpu {
	bool off;		/* bit 2 cleared by sld_compat */
	unsigned long writes, failed;
};

static DEFINE_PER_CPU(struct bld_cpu, bld_cpu);

/* On this CPU, irqs off: the bit as the CPU's hold wants it. */
void sld_bld_sync(bool hold)
{
	struct bld_cpu *me = this_cpu_ptr(&bld_cpu);
	u64 v;

	if (!sld_kernel.kernel_bld || hold == me->off)
		return;
	if (sld_rdmsr_safe(MSR_IA32_DEBUGCTLMSR, &v)) {
		me->failed++;
		return;
	}
	if (hold)
		v &= ~DEBUGCTLMSR_BUS_LOCK_DETECT;
	else
		v |= DEBUGCTLMSR_BUS_LOCK_DETECT;
	if (sld_wrmsr_safe(MSR_IA32_DEBUGCTLMSR, v)) {
		me->failed++;
		return;
	}
	me->writes++;
	me->off = hold;
}

/* A CPU came online: the kernel's init set its bit again. */
void sld_bld_online(unsigned int cpu)
{
	per_cpu_ptr(&bld_cpu, cpu)->off = false;
}

/* The account line's fields for cpu ("" where the kernel sets no bit). */
int sld_bld_show(unsigned int cpu, char *buf, size_t size)
{
	const struct bld_cpu *c = per_cpu_ptr(&bld_cpu, cpu);

	if (!sld_kernel.kernel_bld)
		return scnprintf(buf, size, " bld=none");
	return scnprintf(buf, size, " bld=%s bld_writes=%lu bld_failed=%lu",
			 READ_ONCE(c->off) ? "off" : "on",
			 READ_ONCE(c->writes), READ_ONCE(c->failed));
}
