// SPDX-License-Identifier: GPL-2.0
/*
 * The only place that touches MSR_TEST_CTRL (0x33), and the account of it.
 *
 * The SLD bit is per core: SMT siblings share it. sld_compat holds it off
 * on a core while any of its CPUs runs a protected task or is inside a
 * vendor guest bracket, or while a module holds the global disable
 * (on_hypervisor=disable). Each CPU says what it holds; the core's state
 * is the OR over its online siblings, decided under a lock that all
 * siblings share. Only a change of that state writes the MSR, on the CPU
 * that changed it, so a sibling never turns SLD back on under a protected
 * task on the other thread.
 *
 * The lock is picked by (package, core) id, not by "first sibling": ids
 * do not change when a sibling goes offline, so the pairing survives
 * hotplug. Holds change from the scheduler (preempt notifiers, irqs off
 * or preemption off), hence raw spinlocks.
 *
 * Writing 0x33 on a CPU without split-lock detection can misbehave even
 * when writing 0, and writing it where the kernel runs SLD off would turn
 * it on: a write is made only when sld_kernel.cpu_sld and the kernel's
 * mode is warn or fatal (or, where it cannot be read, the MSR showed SLD
 * on: kernel_runs_sld()), and otherwise counted as skipped. The account
 * (per CPU: holds, toggles, writes, skips, re-assertions, the kernel's
 * re-enables withheld) is exact either way: under TCG it is what the
 * tests check. The kernel's own re-enable writes are decided here too
 * (kernel_reenable_local()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/kernel_stat.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <linux/kprobes.h>
#include <linux/semaphore.h>
#include <asm/msr.h>
#include <asm/msr-index.h>

#include "compat/compat.h"
#include "engine/msr/core_msr.h"
#include "engine/msr/debugctl.h"
#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"

#define CORE_LOCK_BITS			6

struct sld_cpu {
	bool task;		/* a protected task runs here */
	unsigned int bracket;	/* vendor guest bracket depth */
	bool core_off;		/* this core's state as we last set it */
	unsigned long toggles_off, toggles_on;
	unsigned long msr_writes, msr_skipped, reasserts, withheld;
	unsigned long brackets;
	/* Beside a held core, unpoliced: since when (user ns), how long. */
	bool exposed;
	u64 exposed_from, exposed_ns;
	unsigned long exposures;
};

static DEFINE_PER_CPU(struct sld_cpu, sld_cpu);
static DEFINE_PER_CPU(call_single_data_t, bld_kick);
static atomic_t kicks_pending;		/* queued or running bld_kicked() */
static bool kicks_stopped;		/* unloading */
static raw_spinlock_t core_locks[1 << CORE_LOCK_BITS];
static DEFINE_MUTEX(disable_lock);		/* lock order: knobs.c */
static unsigned int disable_count;
static int hp_state = -1;

static raw_spinlock_t *core_lock(unsigned int cpu)
{
	u32 id = topology_physical_package_id(cpu) << 16 |
		 (topology_core_id(cpu) & 0xffff);

	return &core_locks[hash_32(id, CORE_LOCK_BITS)];
}

/*
 * Where the kernel's mode cannot be read (degraded sld-mode: sld_state is
 * a static that only KALLSYMS_ALL kernels name), the MSR says whether it
 * runs SLD: the kernel sets bit 29 on every CPU at boot in warn and fatal
 * mode and leaves it clear in off and ratelimit mode, and only a set bit
 * raises a split-lock #AC. Learned at load (any online CPU with the bit)
 * or at the first #AC that finds it set (sld_msr_ac_off()); never
 * forgotten, as the kernel's mode does not change after boot. Without
 * this, every hold would be a skipped write, and the bit an #AC of a
 * protected task clears would stay clear on that core until reboot.
 */
static bool sld_seen_on;

static bool kernel_runs_sld(void)
{
	enum sld_mode m = sld_kernel_mode();

	if (!sld_kernel.cpu_sld)
		return false;
	if (m == SLD_MODE_UNKNOWN)
		return READ_ONCE(sld_seen_on);
	return m == SLD_MODE_WARN || m == SLD_MODE_FATAL;
}

/* On this CPU; true if a write was made. */
static bool msr_write_local(bool off)
{
	u64 v;

	if (!kernel_runs_sld() || sld_rdmsr_safe(MSR_TEST_CTRL, &v))
		return false;
	if (off)
		v &= ~MSR_TEST_CTRL_SPLIT_LOCK_DETECT;
	else
		v |= MSR_TEST_CTRL_SPLIT_LOCK_DETECT;
	return !sld_wrmsr_safe(MSR_TEST_CTRL, v);
}

/* Core lock held. Does the core of cpu want SLD off? */
static bool core_wants_off(unsigned int cpu)
{
	unsigned int s;

	if (READ_ONCE(disable_count))
		return true;
	for_each_cpu(s, topology_sibling_cpumask(cpu)) {
		const struct sld_cpu *c = per_cpu_ptr(&sld_cpu, s);

		if (c->task || c->bracket)
			return true;
	}
	return false;
}

static void count_write(struct sld_cpu *me, bool off, bool written)
{
	if (written)
		me->msr_writes++;
	else
		me->msr_skipped++;
	if (off)
		me->toggles_off++;
	else
		me->toggles_on++;
}

/* Core lock held: does cpu itself hold (a task, a bracket, the disable)? */
static bool cpu_holds(unsigned int cpu)
{
	const struct sld_cpu *c = per_cpu_ptr(&sld_cpu, cpu);

	return READ_ONCE(disable_count) || c->task || c->bracket;
}

/*
 * The user and nice time cpu has run, in ns, as accounted so far. Read
 * directly, never through kcpustat_field(): on a nohz_full CPU that waits
 * for the running task's vtime, and here (a context switch, before
 * vtime_task_switch()) it would wait forever. Coarser there, never stuck.
 */
static u64 user_ns(unsigned int cpu)
{
	const u64 *t = kcpustat_cpu(cpu).cpustat;

	return READ_ONCE(t[CPUTIME_USER]) + READ_ONCE(t[CPUTIME_NICE]);
}

/*
 * Where nothing polices the CPUs beside a held core (split-lock detection
 * without bus-lock detection, or the kernel's mode unknown), what their
 * tasks run meanwhile escapes detection. Once true, never false again:
 * the kernel's mode does not change after boot, and sld_seen_on is never
 * forgotten.
 */
static bool exposure_counted(void)
{
	return kernel_runs_sld() && !sld_bld_police();
}

/*
 * Core lock held; any CPU of the core, whose hold state is core_held
 * (core_wants_off()), where exposure_counted(): the user time cpu runs
 * while its core is held and it does not hold it itself is its exposure
 * (shown in the account).
 */
static void exposure_sync(unsigned int cpu, bool core_held)
{
	struct sld_cpu *c = per_cpu_ptr(&sld_cpu, cpu);
	bool want = core_held && !cpu_holds(cpu);

	if (want == c->exposed)
		return;
	if (want) {
		c->exposed_from = user_ns(cpu);
		c->exposures++;
	} else {
		c->exposed_ns += user_ns(cpu) - c->exposed_from;
	}
	c->exposed = want;
}

/* Core lock held: cpu's exposure so far, in ns. */
static u64 exposed_now(unsigned int cpu, const struct sld_cpu *c)
{
	return c->exposed_ns + (c->exposed ? user_ns(cpu) - c->exposed_from : 0);
}

/*
 * On this CPU, core lock held: DEBUGCTL's bus-lock bit as this CPU's hold
 * and its core's want it (debugctl.c: the register is per logical CPU),
 * and the exposure of the core's CPUs.
 */
static void bld_sync_local(void)
{
	unsigned int cpu = smp_processor_id(), s;
	bool held = core_wants_off(cpu);

	sld_bld_sync(cpu_holds(cpu), held);
	if (!exposure_counted())
		return;
	for_each_cpu(s, topology_sibling_cpumask(cpu))
		exposure_sync(s, held);
}

/* A sibling's core changed: its DEBUGCTL, on it (the IPI, hard irq). */
static void bld_kicked(void *unused)
{
	raw_spinlock_t *lock = core_lock(smp_processor_id());
	unsigned long flags;

	raw_spin_lock_irqsave(lock, flags);
	bld_sync_local();
	raw_spin_unlock_irqrestore(lock, flags);
	atomic_dec(&kicks_pending);
}

/*
 * Core lock held, on cpu: the core's hold changed, so the bit its other
 * CPUs want did too; each writes its own register. Until the kick lands
 * (an IPI, microseconds) a split lock there goes unnoticed. The call is
 * asynchronous (irqs are off here); one still queued will read the state
 * when it runs, so a busy csd needs no second. Counted in kicks_pending
 * before unloading is checked, so that sld_msr_exit() waits for it.
 */
static void kick_siblings(unsigned int cpu)
{
	unsigned int s;

	if (!sld_bld_police())
		return;
	for_each_cpu(s, topology_sibling_cpumask(cpu)) {
		if (s == cpu || !cpu_online(s))
			continue;
		atomic_inc(&kicks_pending);
		smp_mb__after_atomic();	/* pairs with kicks_stop()'s smp_mb() */
		if (READ_ONCE(kicks_stopped) ||
		    smp_call_function_single_async(s, per_cpu_ptr(&bld_kick, s)))
			atomic_dec(&kicks_pending);
	}
}

/* Unloading: no more kicks, and none queued or running (module text). */
static void kicks_stop(void)
{
	WRITE_ONCE(kicks_stopped, true);
	smp_mb();	/* a kicker sees it stopped, or we see its count */
	while (atomic_read(&kicks_pending))
		usleep_range(100, 1000);
	/* The IPI handler's last instructions run with irqs off. */
	synchronize_rcu();
}

/* Core lock held, on cpu: bring the core to what its CPUs hold. */
static void core_sync(unsigned int cpu)
{
	struct sld_cpu *me = per_cpu_ptr(&sld_cpu, cpu);
	bool off = core_wants_off(cpu);
	unsigned int s;

	if (off == me->core_off)
		return;
	count_write(me, off, msr_write_local(off));
	for_each_cpu(s, topology_sibling_cpumask(cpu))
		per_cpu_ptr(&sld_cpu, s)->core_off = off;
	me->core_off = off;
	kick_siblings(cpu);
}

/* ---- holds (any context; called on the CPU they are for) ----------------- */

static void hold_change(bool task, int delta)
{
	unsigned int cpu = smp_processor_id();
	struct sld_cpu *me = this_cpu_ptr(&sld_cpu);
	raw_spinlock_t *lock = core_lock(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(lock, flags);
	if (task)
		me->task = delta > 0;
	else
		me->bracket += delta;
	core_sync(cpu);
	bld_sync_local();
	raw_spin_unlock_irqrestore(lock, flags);
}

/* A protected task starts or stops running on this CPU. */
void sld_msr_task_in(void)
{
	hold_change(true, 1);
}

void sld_msr_task_out(void)
{
	hold_change(true, -1);
}

/* Does a protected task hold this CPU (irqs off)? */
bool sld_msr_task_held(void)
{
	return this_cpu_read(sld_cpu.task);
}

/* Vendor guest bracket on this CPU; nesting is counted by the caller. */
void sld_msr_bracket_enter(void)
{
	this_cpu_inc(sld_cpu.brackets);
	hold_change(false, 1);
}

void sld_msr_bracket_exit(void)
{
	hold_change(false, -1);
}

/* Core lock held, on this CPU: the kernel turned a held core on; off again. */
static void reassert_local(struct sld_cpu *me)
{
	me->reasserts++;
	if (msr_write_local(true))
		me->msr_writes++;
	else
		me->msr_skipped++;
}

/*
 * After the kernel wrote the MSR itself (the re-enable work where its
 * override cannot be had, kernel_wrote() below): if this core must stay
 * off, turn it off again.
 */
void sld_msr_reassert(void)
{
	unsigned int cpu = smp_processor_id();
	struct sld_cpu *me = this_cpu_ptr(&sld_cpu);
	raw_spinlock_t *lock = core_lock(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(lock, flags);
	if (core_wants_off(cpu))
		reassert_local(me);
	raw_spin_unlock_irqrestore(lock, flags);
}

/*
 * A protected task took a split-lock #AC on this CPU (preemption off) and
 * the #AC path is about to say "handled", which re-executes the locked
 * instruction: SLD must be off under it now, whatever the account says
 * (a sibling came online and the kernel's init turned the core on before
 * our online callback, or the kernel's mode is unknown to us and writes
 * were skipped). Clearing bit 29 is what the kernel's own warn path does;
 * it is done only where the CPU has SLD, and counted as a re-assertion,
 * and the core's hold puts it back on when it ends, also where the
 * kernel's mode is unknown (sld_seen_on). Where the CPU has none, no
 * split-lock #AC can follow.
 *
 * Only while this CPU still holds the core off: the handler runs with
 * interrupts on, and a release IPI (task/release.c) between the task's
 * protection and this point drops the hold and turns SLD on for the core;
 * clearing it then would leave the bit off where the account says on,
 * until some other change on that core. Decided under the core lock, so
 * the hold and the bit change together: SLD_AC_MSR_RELEASED, and the
 * kernel handles the #AC of the task that is no longer protected.
 */
enum sld_ac_msr sld_msr_ac_off(void)
{
	unsigned int cpu = smp_processor_id();
	struct sld_cpu *me = this_cpu_ptr(&sld_cpu);
	raw_spinlock_t *lock = core_lock(cpu);
	enum sld_ac_msr ret = SLD_AC_MSR_OFF;
	unsigned long flags;
	u64 v;

	raw_spin_lock_irqsave(lock, flags);
	if (!me->task && !me->bracket) {
		ret = SLD_AC_MSR_RELEASED;
	} else if (!sld_kernel.cpu_sld) {
		ret = SLD_AC_MSR_OFF;
	} else if (sld_rdmsr_safe(MSR_TEST_CTRL, &v)) {
		ret = SLD_AC_MSR_STUCK;
	} else if (v & MSR_TEST_CTRL_SPLIT_LOCK_DETECT) {
		/* Put back on when the core's hold ends, as in warn mode. */
		WRITE_ONCE(sld_seen_on, true);
		me->reasserts++;
		if (sld_wrmsr_safe(MSR_TEST_CTRL,
				   v & ~MSR_TEST_CTRL_SPLIT_LOCK_DETECT)) {
			me->msr_skipped++;
			ret = SLD_AC_MSR_STUCK;
		} else {
			me->msr_writes++;
			ret = SLD_AC_MSR_CLEARED;
		}
	}
	raw_spin_unlock_irqrestore(lock, flags);
	return ret;
}

/* Forget every task hold (detach, under stop_machine). */
void sld_msr_drop_task_holds(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(&sld_cpu, cpu)->task = false;
}

static void sync_local(void *unused)
{
	unsigned int cpu = smp_processor_id();
	raw_spinlock_t *lock = core_lock(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(lock, flags);
	core_sync(cpu);
	bld_sync_local();
	raw_spin_unlock_irqrestore(lock, flags);
}

/* Bring every online core to its holds (sleepable). */
void sld_msr_sync_all(void)
{
	cpus_read_lock();
	on_each_cpu(sync_local, NULL, 1);
	cpus_read_unlock();
}

/* ---- the global disable (on_hypervisor=disable) ---------------------------- */

void sld_msr_disable_get(void)
{
	mutex_lock(&disable_lock);
	WRITE_ONCE(disable_count, disable_count + 1);
	if (disable_count == 1)
		sld_msr_sync_all();
	mutex_unlock(&disable_lock);
}

void sld_msr_disable_put(void)
{
	mutex_lock(&disable_lock);
	if (disable_count && !--disable_count)
		sld_msr_sync_all();
	mutex_unlock(&disable_lock);
}

/*
 * The kernel's own writes that turn SLD on for a whole core: its re-enable
 * work (2 jiffies after a warn-mode split lock; with split_lock_mitigate=1
 * the work also releases buslock_sem, which lets the next penalised split
 * locker go) and its CPU-offline callback. Either would turn SLD on under
 * a protected task on a sibling, where vmmon reflects the next split lock
 * into its guest, which crashes. A put-back after the function returns is
 * too late: up() may wake a waiter that preempts the kworker (preempt=full,
 * PREEMPT_RT) before the return probe runs. So the decision is made at the
 * entry, under the core lock every hold change takes: while the core is
 * held off the write is withheld (counted: withheld), otherwise it is made
 * here as the kernel makes it (bit 29 set, the rest as it is: the kernel
 * changes no other bit after boot; counted in msr_writes), and the rest
 * of the function is done here too (up(), return 0); the function itself
 * does not run (an override hook, hooks.c). A withheld write is made when
 * the last hold on the core ends (core_sync()), as sld_compat's own.
 *
 * The functions only run where the CPU has SLD (the kernel queues the work
 * from its warn path and registers the callback only then); where it has
 * none (a fixture calling them on a stock CPU) nothing is written.
 */
static void kernel_reenable_local(void)
{
	unsigned int cpu = smp_processor_id();
	struct sld_cpu *me = this_cpu_ptr(&sld_cpu);
	raw_spinlock_t *lock = core_lock(cpu);
	unsigned long flags;
	u64 v;

	raw_spin_lock_irqsave(lock, flags);
	if (core_wants_off(cpu))
		me->withheld++;
	else if (sld_kernel.cpu_sld && !sld_rdmsr_safe(MSR_TEST_CTRL, &v) &&
		 !sld_wrmsr_safe(MSR_TEST_CTRL,
				 v | MSR_TEST_CTRL_SPLIT_LOCK_DETECT))
		me->msr_writes++;
	raw_spin_unlock_irqrestore(lock, flags);
}

/*
 * void __split_lock_reenable(struct work_struct *) and int
 * splitlock_cpu_offline(unsigned int cpu), on the CPU going down: the
 * write alone, then return (0 for the callback).
 */
static int reenable_pre(struct kprobe *p, struct pt_regs *regs)
{
	kernel_reenable_local();
	return sld_hook_return(regs, 0);
}

/* void __split_lock_reenable_unlock(struct work_struct *) */
static int reenable_unlock_pre(struct kprobe *p, struct pt_regs *regs)
{
	kernel_reenable_local();
	up(sld_kernel.buslock_sem);
	return sld_hook_return(regs, 0);
}

static struct sld_hook hook_reenable = {
	.name = "reenable", .symbol = "__split_lock_reenable",
	.pre = reenable_pre, .override = true,
};

static struct sld_hook hook_reenable_unlock = {
	.name = "reenable-unlock", .symbol = "__split_lock_reenable_unlock",
	.pre = reenable_unlock_pre, .override = true,
};

static struct sld_hook hook_offline = {
	.name = "cpu-offline", .symbol = "splitlock_cpu_offline",
	.pre = reenable_pre, .override = true,
};

/*
 * Without buslock_sem's address (a kernel without KALLSYMS_ALL) the
 * unlock variant cannot be done here: SLD is put back off after it
 * returns instead, which leaves the window above open.
 */
static int kernel_wrote(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	sld_msr_reassert();
	return 0;
}

static struct sld_hook hook_reenable_unlock_after = {
	.name = "reenable-unlock", .symbol = "__split_lock_reenable_unlock",
	.ret = true, .handler = kernel_wrote,
};

/* Before sld_hooks_init(). Kernels before 5.19 have none of them. */
void sld_msr_setup(void)
{
	if (sld_kernel.reenable)
		sld_hook_add(&hook_reenable);
	if (sld_kernel.reenable_unlock && sld_kernel.buslock_sem)
		sld_hook_add(&hook_reenable_unlock);
	else if (sld_kernel.reenable_unlock) {
		sld_hook_add(&hook_reenable_unlock_after);
		sld_degrade("reenable-unlock", "kernel has no buslock_sem symbol: SLD is put back off after the kernel's re-enable work, not kept off");
	}
	if (sld_kernel.cpu_offline)
		sld_hook_add(&hook_offline);
}

/* ---- CPU hotplug --------------------------------------------------------------- */

/*
 * A CPU coming online had its MSR set by the kernel's own init, which
 * wrote the whole core: if a sibling holds the core, put the hold back (a
 * re-assertion). That write comes from the new CPU's early bring-up,
 * where no probe can decide it ahead: until this callback a protected
 * task on the sibling may take an #AC, which sld_msr_ac_off() answers.
 * Going offline needs nothing: its tasks are moved away (their preempt
 * notifiers drop the holds) and the kernel's splitlock_cpu_offline is
 * decided at its entry (kernel_reenable_local()).
 */
static int msr_cpu_online(unsigned int cpu)
{
	struct sld_cpu *me = per_cpu_ptr(&sld_cpu, cpu);
	raw_spinlock_t *lock = core_lock(cpu);
	unsigned long flags;
	bool off;
	unsigned int s;

	raw_spin_lock_irqsave(lock, flags);
	off = core_wants_off(cpu);
	for_each_cpu(s, topology_sibling_cpumask(cpu))
		per_cpu_ptr(&sld_cpu, s)->core_off = off;
	me->core_off = off;
	if (off)
		reassert_local(me);
	bld_sync_local();
	raw_spin_unlock_irqrestore(lock, flags);
	return 0;
}

static void seen_on_local(void *unused)
{
	u64 v;

	if (!sld_rdmsr_safe(MSR_TEST_CTRL, &v) &&
	    (v & MSR_TEST_CTRL_SPLIT_LOCK_DETECT))
		WRITE_ONCE(sld_seen_on, true);
}

/* The kernel's mode is unknown: ask the MSR of every online CPU. */
static void learn_from_msr(void)
{
	if (!sld_kernel.cpu_sld || sld_kernel_mode() != SLD_MODE_UNKNOWN)
		return;
	cpus_read_lock();
	on_each_cpu(seen_on_local, NULL, 1);
	cpus_read_unlock();
	pr_info("kernel split-lock mode unknown; MSR_TEST_CTRL says SLD is %s\n",
		READ_ONCE(sld_seen_on) ? "on (warn or fatal)" : "off");
}

int sld_msr_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(core_locks); i++)
		raw_spin_lock_init(&core_locks[i]);
	for_each_possible_cpu(i)
		INIT_CSD(per_cpu_ptr(&bld_kick, i), bld_kicked, NULL);
	WRITE_ONCE(kicks_stopped, false);
	sld_bld_init();
	learn_from_msr();
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "sld_compat:online",
					msr_cpu_online, NULL);
	if (ret < 0) {
		sld_degrade("hotplug", "no CPU hotplug callback: CPUs brought online later keep the kernel's state");
		return 0;
	}
	hp_state = ret;
	return 0;
}

/* At unload every holder is gone; put SLD back if one leaked. */
void sld_msr_exit(void)
{
	mutex_lock(&disable_lock);
	WRITE_ONCE(disable_count, 0);
	mutex_unlock(&disable_lock);
	sld_msr_sync_all();
	if (hp_state >= 0)
		cpuhp_remove_state_nocalls(hp_state);
	hp_state = -1;
	kicks_stop();
}

/* ---- the account ------------------------------------------------------------------ */

/*
 * /proc/sld_compat_account, one line per online CPU: "cpuN core=P.C
 * hold=0|1 task=0|1 bracket=N sld=on|off toggles_off=N toggles_on=N
 * msr_writes=N msr_skipped=N reasserts=N withheld=N brackets=N
 * exposed=0|1 exposures=N exposed_ms=N" and DEBUGCTL's bus-lock bit
 * (debugctl.c: "bld=none" where sld_compat never writes it, else
 * "bld=on|off bld_writes=N bld_failed=N"). exposed: this CPU runs beside
 * a core held off with nothing policing it (exposure_sync()), exposures
 * how often that began, exposed_ms the user time it ran so. hold: sld_compat
 * holds this CPU's core off; withheld: the kernel's re-enable writes not
 * made because the core was held; sld: the state the MSR is in as far as
 * sld_compat knows (on only where the CPU has SLD, the kernel runs it, or
 * its mode is unknown and the MSR showed it on, and nobody holds it
 * off). A seq_file, not a sysfs page: hosts have hundreds
 * of CPUs, and a page holds about 30 of these lines.
 */
static void *acct_seek(loff_t *pos)
{
	unsigned int cpu = cpumask_next((int)*pos - 1, cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		return NULL;
	*pos = cpu;
	return per_cpu_ptr(&sld_cpu, cpu);
}

static void *acct_start(struct seq_file *m, loff_t *pos)
{
	cpus_read_lock();
	return acct_seek(pos);
}

static void *acct_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return acct_seek(pos);
}

static void acct_stop(struct seq_file *m, void *v)
{
	cpus_read_unlock();
}

static int acct_show(struct seq_file *m, void *v)
{
	unsigned int cpu = (unsigned int)m->index;
	raw_spinlock_t *lock = core_lock(cpu);
	struct sld_cpu c;
	unsigned long flags;
	char bld[64];
	u64 exposed;

	raw_spin_lock_irqsave(lock, flags);
	c = *(struct sld_cpu *)v;
	exposed = exposed_now(cpu, &c);
	raw_spin_unlock_irqrestore(lock, flags);
	sld_bld_show(cpu, bld, sizeof(bld));
	seq_printf(m, "cpu%u core=%d.%d hold=%d task=%d bracket=%u sld=%s toggles_off=%lu toggles_on=%lu msr_writes=%lu msr_skipped=%lu reasserts=%lu withheld=%lu brackets=%lu exposed=%d exposures=%lu exposed_ms=%llu%s\n",
		   cpu, topology_physical_package_id(cpu),
		   topology_core_id(cpu), c.core_off, c.task, c.bracket,
		   kernel_runs_sld() && !c.core_off ? "on" : "off",
		   c.toggles_off, c.toggles_on, c.msr_writes, c.msr_skipped,
		   c.reasserts, c.withheld, c.brackets, c.exposed, c.exposures,
		   div_u64(exposed, NSEC_PER_MSEC), bld);
	return 0;
}

static const struct seq_operations acct_seq_ops = {
	.start = acct_start,
	.next = acct_next,
	.stop = acct_stop,
	.show = acct_show,
};

static struct proc_dir_entry *acct_entry;

void sld_account_init(void)
{
	acct_entry = proc_create_seq("sld_compat_account", 0444, NULL,
				     &acct_seq_ops);
	if (!acct_entry)
		sld_degrade("account", "cannot create /proc/sld_compat_account");
}

void sld_account_exit(void)
{
	proc_remove(acct_entry);
	acct_entry = NULL;
}

/* The exposure of every CPU (exposure_sync()): how often, how long. */
void sld_msr_exposure(unsigned long *n, unsigned long long *ms)
{
	unsigned long flags;
	unsigned int cpu;
	u64 ns = 0;

	*n = 0;
	/* Every possible CPU: a counter must not drop when one goes offline. */
	for_each_possible_cpu(cpu) {
		const struct sld_cpu *c = per_cpu_ptr(&sld_cpu, cpu);
		raw_spinlock_t *lock = core_lock(cpu);

		raw_spin_lock_irqsave(lock, flags);
		*n += c->exposures;
		ns += exposed_now(cpu, c);
		raw_spin_unlock_irqrestore(lock, flags);
	}
	*ms = div_u64(ns, NSEC_PER_MSEC);
}

/* How many modules hold SLD off everywhere (on_hypervisor=disable). */
int sld_disable_count_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(disable_count));
}
