// SPDX-License-Identifier: GPL-2.0
/*
 * The only place that would touch MSR_TEST_CTRL (0x33). Writing it on a
 * CPU without split-lock detection can misbehave even when writing 0, so
 * every write is gated on sld_kernel.cpu_sld (the kernel's own
 * X86_FEATURE_SPLIT_LOCK_DETECT verdict). Whether or not a write is made,
 * the account records what sld_compat intends per CPU and what it did:
 * that is what status shows and what tests check under TCG.
 *
 * The account is changed only from sleepable context under account_lock;
 * the MSR itself is written on the target CPU by smp_call_function_single.
 * CPUs that come online later are not yet covered (no hotplug callback).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/msr.h>

#include "sld_compat.h"

#define SLD_MSR_TEST_CTRL		0x33
#define SLD_TEST_CTRL_SPLIT_LOCK_DETECT	BIT_ULL(29)

struct sld_cpu_account {
	bool sld_off;		/* intended: sld_compat wants SLD off here */
	unsigned long msr_writes;
	unsigned long msr_skipped;
};

static DEFINE_PER_CPU(struct sld_cpu_account, sld_account);
static DEFINE_MUTEX(account_lock);
static unsigned int disable_count;

static void msr_write_local(void *info)
{
	bool off = *(bool *)info;
	u64 v;

	if (rdmsrl_safe(SLD_MSR_TEST_CTRL, &v))
		return;
	if (off)
		v &= ~SLD_TEST_CTRL_SPLIT_LOCK_DETECT;
	else
		v |= SLD_TEST_CTRL_SPLIT_LOCK_DETECT;
	if (!wrmsrl_safe(SLD_MSR_TEST_CTRL, v))
		this_cpu_inc(sld_account.msr_writes);
}

/* Called with account_lock held. */
static void set_all(bool off)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct sld_cpu_account *a = per_cpu_ptr(&sld_account, cpu);

		WRITE_ONCE(a->sld_off, off);
		/*
		 * Turning SLD back on is only right if the kernel runs it:
		 * on a CPU with SLD but kernel mode "off" we must not enable it.
		 */
		if (sld_kernel.cpu_sld &&
		    (off || sld_kernel_mode() != SLD_MODE_OFF))
			smp_call_function_single(cpu, msr_write_local, &off, 1);
		else
			a->msr_skipped++;
	}
	cpus_read_unlock();
}

void sld_msr_disable_get(void)
{
	mutex_lock(&account_lock);
	if (disable_count++ == 0)
		set_all(true);
	mutex_unlock(&account_lock);
}

void sld_msr_disable_put(void)
{
	mutex_lock(&account_lock);
	if (!WARN_ON_ONCE(!disable_count) && --disable_count == 0)
		set_all(false);
	mutex_unlock(&account_lock);
}

/*
 * "cpuN sld=on|off held_off=0|1 msr_writes=N msr_skipped=N" per CPU, then
 * the count. sld= is the state the MSR should be in: on only where the
 * CPU has SLD, the kernel runs it, and nobody holds it off; held_off is
 * sld_compat's own demand, which is what changes under TCG.
 */
int sld_account_show(char *buf, size_t size)
{
	bool kernel_on = sld_kernel.cpu_sld &&
			 sld_kernel_mode() != SLD_MODE_OFF &&
			 sld_kernel_mode() != SLD_MODE_UNKNOWN;
	unsigned int cpu;
	int n = 0;

	mutex_lock(&account_lock);
	for_each_online_cpu(cpu) {
		struct sld_cpu_account *a = per_cpu_ptr(&sld_account, cpu);

		n += scnprintf(buf + n, size - n,
			       "cpu%u sld=%s held_off=%d msr_writes=%lu msr_skipped=%lu\n",
			       cpu, kernel_on && !a->sld_off ? "on" : "off",
			       a->sld_off, a->msr_writes, a->msr_skipped);
	}
	n += scnprintf(buf + n, size - n, "disable_count %u\n", disable_count);
	mutex_unlock(&account_lock);
	return n;
}

/* At unload every holder is gone; put SLD back if a holder leaked. */
void sld_msr_exit(void)
{
	mutex_lock(&account_lock);
	if (disable_count) {
		disable_count = 0;
		set_all(false);
	}
	mutex_unlock(&account_lock);
}

/*
 * Per-task SLD off (ac_path.c), from any context: the task running on this
 * CPU wants SLD off while it runs. Per-task switching is not implemented
 * yet, so this only counts the intent; no MSR write is made or attempted.
 */
static DEFINE_PER_CPU(unsigned long, sld_task_off_intent);

void sld_msr_task_off_note(void)
{
	this_cpu_inc(sld_task_off_intent);
}

unsigned long sld_msr_task_off_count(unsigned int cpu)
{
	return READ_ONCE(per_cpu(sld_task_off_intent, cpu));
}
