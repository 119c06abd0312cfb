// SPDX-License-Identifier: GPL-2.0
/*
 * The bus-lock bit of IA32_DEBUGCTL (bit 2), the #DB path's detection, and
 * the account of it. Per logical CPU, as the register is. Two uses:
 *
 * AMD hosts whose kernel set it at boot (6.13 on, sld_kernel.svm_bld).
 * There VMRUN leaves DEBUGCTL as it is (no LBR virtualization), so under
 * a set bit an SVM hypervisor's guest takes #DBs for its own bus locks
 * that it never asked for. While a CPU holds SLD off for sld_compat
 * (core_msr.c: a protected task runs there, a vendor guest bracket, the
 * global disable) the bit is cleared on that CPU, and set again when the
 * hold ends.
 *
 * Intel hosts with split-lock and bus-lock detection whose kernel runs the
 * #AC (warn or fatal: the kernel leaves bit 2 clear; sld_kernel.bld_police).
 * MSR_TEST_CTRL's SLD bit is per core: while a protected task holds it off,
 * the SMT sibling's tasks would split-lock undetected. So the bit is set on
 * every CPU of a held core that does not hold it itself: their split locks
 * trap by #DB after the instruction, and db_path.c gives them what the
 * kernel gives a split locker in its mode. The CPU that holds keeps the
 * bit clear. A kernel in ratelimit mode set the bit everywhere itself and
 * is left alone (SLD is off there).
 *
 * Each hold change reads the register and writes only if the bit is not
 * as the hold wants it, so a switch between two protected tasks writes
 * nothing, and a bit someone else changed meanwhile (a hypervisor's
 * restore after a VM exit, a CPU's bring-up) is put right at the next
 * change instead of being trusted from a cache. The write is a
 * read-modify-write of bit 2 alone, on the CPU, irqs off: the kernel's
 * other users of the register (BTF for ptrace block-step, perf's LBR
 * bits) do the same to theirs and keep them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/percpu.h>
#include <asm/msr-index.h>

#include "compat/compat.h"
#include "engine/msr/debugctl.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"

struct bld_cpu {
	bool on;		/* bit 2 as sld_compat left it */
	unsigned long writes, failed;
};

static DEFINE_PER_CPU(struct bld_cpu, bld_cpu);

/* Are the CPUs beside a held core policed by #DB (warn or fatal)? */
bool sld_bld_police(void)
{
	enum sld_mode m;

	if (!sld_kernel.bld_police)
		return false;
	m = sld_kernel_mode();
	return m == SLD_MODE_WARN || m == SLD_MODE_FATAL;
}

/*
 * At load: the bit as the kernel left it, which is what the account says
 * until the first hold change writes it (set on AMD where the kernel set
 * it, clear on Intel in warn or fatal mode).
 */
void sld_bld_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(&bld_cpu, cpu)->on = sld_kernel.svm_bld;
}

/*
 * This CPU's bus-lock #DB came from sld_compat's policing (preemption
 * off): its bit was set by sld_compat beside a held core, not by the
 * kernel or anyone else.
 */
bool sld_bld_policed_here(void)
{
	return sld_bld_police() && this_cpu_read(bld_cpu.on);
}

static bool bld_managed(void)
{
	return sld_kernel.svm_bld || sld_bld_police();
}

/*
 * On this CPU, irqs off, under its core lock: the bit as this CPU's hold
 * (cpu_holds) and its core's (core_held) want it.
 */
void sld_bld_sync(bool cpu_holds, bool core_held)
{
	struct bld_cpu *me = this_cpu_ptr(&bld_cpu);
	bool on;
	u64 v, want;

	if (sld_kernel.svm_bld)
		on = !cpu_holds;
	else if (sld_bld_police())
		on = core_held && !cpu_holds;
	else
		return;
	if (sld_rdmsr_safe(MSR_IA32_DEBUGCTLMSR, &v))
		return;
	want = on ? v | DEBUGCTLMSR_BUS_LOCK_DETECT :
		    v & ~DEBUGCTLMSR_BUS_LOCK_DETECT;
	if (want != v) {
		if (sld_wrmsr_safe(MSR_IA32_DEBUGCTLMSR, want)) {
			me->failed++;
			return;
		}
		me->writes++;
	}
	me->on = on;
}

/*
 * The account line's fields for cpu: bld=none where sld_compat never
 * writes the bit; else the bit as it left it, the writes and failures.
 */
int sld_bld_show(unsigned int cpu, char *buf, size_t size)
{
	const struct bld_cpu *c = per_cpu_ptr(&bld_cpu, cpu);

	if (!bld_managed())
		return scnprintf(buf, size, " bld=none");
	return scnprintf(buf, size, " bld=%s bld_writes=%lu bld_failed=%lu",
			 READ_ONCE(c->on) ? "on" : "off",
			 READ_ONCE(c->writes), READ_ONCE(c->failed));
}
