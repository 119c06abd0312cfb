// SPDX-License-Identifier: GPL-2.0
/*
 * The bus-lock bit of IA32_DEBUGCTL (bit 2), the #DB path's detection, and
 * the account of it, on AMD hosts whose kernel set it at boot (6.13 on,
 * sld_kernel.svm_bld). There VMRUN leaves DEBUGCTL as it is (no LBR
 * virtualization), so under a set bit an SVM hypervisor's guest takes
 * #DBs for its own bus locks that it never asked for. While a CPU holds
 * SLD off for sld_compat (core_msr.c: a protected task runs there, a
 * vendor guest bracket, the global disable) the bit is cleared on that
 * CPU, and set again when the hold ends.
 *
 * Never on Intel: VM entry loads a VMX guest's DEBUGCTL from its VMCS, so
 * no guest sees the host's bit, db_path.c already spares protected tasks
 * the kernel's penalty, and clearing it there would only switch off the
 * admin's split_lock_detect=ratelimit for whoever holds a CPU (the global
 * disable: every CPU), and race kvm_intel's own save and restore.
 *
 * Per logical CPU, as the register is: an SMT sibling keeps detecting.
 * Each hold change reads the register and writes only if the bit is not
 * as the hold wants it, so a switch between two protected tasks writes
 * nothing, and a bit someone else changed meanwhile (a hypervisor's
 * restore after VMRUN, a CPU's bring-up) is put right at the next change
 * instead of being trusted from a cache. The write is a read-modify-write
 * of bit 2 alone, on the CPU, irqs off: the kernel's other users of the
 * register (BTF for ptrace block-step, perf's LBR bits) do the same to
 * theirs and keep them.
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
	bool off;		/* bit 2 held clear by sld_compat */
	unsigned long writes, failed;
};

static DEFINE_PER_CPU(struct bld_cpu, bld_cpu);

/* On this CPU, irqs off: the bit as the CPU's hold wants it. */
void sld_bld_sync(bool hold)
{
	struct bld_cpu *me = this_cpu_ptr(&bld_cpu);
	u64 v, want;

	if (!sld_kernel.svm_bld || sld_rdmsr_safe(MSR_IA32_DEBUGCTLMSR, &v))
		return;
	want = hold ? v & ~DEBUGCTLMSR_BUS_LOCK_DETECT :
		      v | DEBUGCTLMSR_BUS_LOCK_DETECT;
	if (want != v) {
		if (sld_wrmsr_safe(MSR_IA32_DEBUGCTLMSR, want)) {
			me->failed++;
			return;
		}
		me->writes++;
	}
	me->off = hold;
}

/* The account line's fields for cpu (bld=none where it is never held). */
int sld_bld_show(unsigned int cpu, char *buf, size_t size)
{
	const struct bld_cpu *c = per_cpu_ptr(&bld_cpu, cpu);

	if (!sld_kernel.svm_bld)
		return scnprintf(buf, size, " bld=none");
	return scnprintf(buf, size, " bld=%s bld_writes=%lu bld_failed=%lu",
			 READ_ONCE(c->off) ? "off" : "on",
			 READ_ONCE(c->writes), READ_ONCE(c->failed));
}
