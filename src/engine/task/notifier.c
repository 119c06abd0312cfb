// SPDX-License-Identifier: GPL-2.0
/*
 * task/task.c's preempt notifier and the core hold it switches: SLD off on
 * the core while a protected task runs, the hold handed over between two
 * protected tasks without a write. Why a notifier: the top of task/task.c.
 * Also how a task name is shown (sld_comm_escape()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "compat/compat.h"
#include "engine/msr/core_msr.h"
#include "engine/task/internal.h"
#include "knobs/switches.h"
#include "schema/escape.h"

/* ---- the notifier ------------------------------------------------------------ */

/*
 * Calls of our notifiers, per CPU: the proof, in the VM suite, that a
 * context switch of an unprotected task never runs sld_compat code.
 * handovers: switches from one protected task to another that kept the
 * core's hold as it was, without touching the MSR.
 */
DEFINE_PER_CPU(unsigned long, tk_sched_calls);
DEFINE_PER_CPU(unsigned long, tk_sched_handovers);

/*
 * A protected task switched out for another protected task on this CPU
 * leaves its hold to it (task_sched_out): the record the hold was handed
 * to, until its sched_in takes it. Only this CPU's context switch sets
 * and clears it, with preemption off; detach_fn() clears it too.
 */
DEFINE_PER_CPU(struct sld_task *, tk_handed);

/* A task's record, if it has one (preemption off, task not running). */
static struct sld_task *find_record(struct task_struct *task)
{
	struct preempt_notifier *pn;

	hlist_for_each_entry(pn, &task->preempt_notifiers, link)
		if (pn->ops == &tk_task_ops)
			return container_of(pn, struct sld_task, pn);
	return NULL;
}

/*
 * running: this task holds its CPU's core off. A released record (why
 * none, see sld_task_release) takes no hold. Irqs off around the
 * hold, which drop_released() also changes (sched_in runs with irqs on).
 *
 * Handover: the previous task left its hold to this one (see
 * task_sched_out), so the CPU's hold is still on and nothing is written.
 * Between the previous task's sched_out and this sched_in interrupts are
 * on: if this record was released meanwhile (drop_released() found it not
 * running yet), the handed hold is given back here.
 */
static void task_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct sld_task *t = container_of(pn, struct sld_task, pn);
	bool protected, handover;
	unsigned long flags;

	this_cpu_inc(tk_sched_calls);
	t->cpu = cpu;
	t->switches++;
	local_irq_save(flags);
	/* A handed hold is still on this CPU's account, or it is no handover. */
	handover = this_cpu_read(tk_handed) && sld_msr_task_held();
	this_cpu_write(tk_handed, NULL);
	protected = READ_ONCE(t->why) != SLD_WHY_NONE;
	if (protected) {
		t->running = true;
		if (handover)
			this_cpu_inc(tk_sched_handovers);
		else
			sld_msr_task_in();
	} else if (handover) {
		sld_msr_task_out();
	}
	local_irq_restore(flags);
}

/*
 * current becomes protected on this CPU (preemption off): hold it now,
 * unless it was released meanwhile. release_where() may mark the record
 * released (why none) at any time after tk_pool_get() or revive() set its
 * why, and its drop_released() IPI may land before the notifier is
 * registered or before running is set, when it finds nothing to drop. So
 * why is read here, irqs off: either it is none already and no hold is
 * taken, or the release's IPI is still to come on this CPU and finds
 * running set.
 */
void tk_start_running(struct sld_task *t)
{
	unsigned long flags;

	local_irq_save(flags);
	t->cpu = smp_processor_id();
	if (READ_ONCE(t->why) != SLD_WHY_NONE) {
		t->running = true;
		sld_msr_task_in();
	}
	local_irq_restore(flags);
}

/* ---- a protected task's last switch --------------------------------------- */

/*
 * A protected task keeps its record, and its hold, through do_exit
 * (task.c's exit probe) to its last switch, where the hold goes as at
 * any switch: handed to a protected next task (a thread's parent that
 * joins it) without a write, or given back. There the record leaves the
 * dead task and drops its reference, so the task is freed when the
 * kernel frees it, not later (a record that kept it, for a reaper 20 ms
 * on, made each thread of a relieved pool cost 8% more: the slab could
 * not reuse the last thread's task_struct). The record's memory cannot
 * go back there: the scheduler walks the notifier list on from it. It
 * is parked on this CPU; an irq_work, which runs when this CPU has irqs
 * on again, after the switch, hands the batch to task.c's reaper (given
 * at init), which returns it to the pool. Only this CPU's irq_work
 * takes this CPU's parked records, so none is reused while the walk is
 * still on it.
 */
static DEFINE_PER_CPU(struct llist_head, parked);
static void (*reap_parked)(struct llist_node *first);

static void pass_parked(struct irq_work *w)
{
	struct llist_node *first = llist_del_all(this_cpu_ptr(&parked));

	if (first)
		reap_parked(first);
}

static DEFINE_PER_CPU(struct irq_work, park_work);

/*
 * Its task is dead and this is its last switch. __hlist_del(), not
 * hlist_del(): the walk reads our next after we return. Only the dead
 * task itself changes its list, and it never runs again; nothing walks
 * the list after this switch. Our reference cannot be the task's last:
 * the scheduler's own (rcu_users) is dropped only after the switch, and
 * the task's usage count waits for it and a grace period.
 */
static void retire(struct sld_task *t)
{
	__hlist_del(&t->pn.link);
	tk_pool_retire(t);
	put_task_struct(t->task);
	llist_add(&t->dead, this_cpu_ptr(&parked));
	irq_work_queue(this_cpu_ptr(&park_work));
}

/*
 * Before any record exists: reap returns the retired ones to the pool,
 * in hard irq. The irq_works are set here, not by an initializer: the
 * module loader does not relocate a module's per-CPU section, so a
 * function pointer there stays NULL (6.1 ran one: an Oops). LAZY: from
 * the next tick, without a self-IPI per ended thread. On PREEMPT_RT a
 * lazy one would run in irq_workd, a thread that would preempt the
 * protected parent on this CPU and cost its hold two writes: HARD there.
 */
void tk_retire_init(void (*reap)(struct llist_node *first))
{
	static const struct irq_work lazy = IRQ_WORK_INIT_LAZY(pass_parked);
	static const struct irq_work hard = IRQ_WORK_INIT_HARD(pass_parked);
	int cpu;

	reap_parked = reap;
	for_each_possible_cpu(cpu)
		*per_cpu_ptr(&park_work, cpu) =
			IS_ENABLED(CONFIG_PREEMPT_RT) ? hard : lazy;
}

/* Sleepable, once no record is linked to a live task: all reaped. */
void tk_retire_sync(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&park_work, cpu));
}

/*
 * Irqs off (the scheduler's rq lock), current is the task switched out.
 * next is not running: only next itself, the clone probe before next was
 * first woken, or detach_fn() (stop_machine, no CPU in a switch) changes
 * its notifier list, so its record cannot go before its sched_in.
 */
static void task_sched_out(struct preempt_notifier *pn,
			   struct task_struct *next)
{
	struct sld_task *t = container_of(pn, struct sld_task, pn);
	struct sld_task *nt;

	this_cpu_inc(tk_sched_calls);
	if (t->running) {
		t->running = false;
		nt = hlist_empty(&next->preempt_notifiers) ? NULL :
		     find_record(next);
		if (nt && READ_ONCE(nt->why) != SLD_WHY_NONE)
			this_cpu_write(tk_handed, nt);	/* the hold stays */
		else
			sld_msr_task_out();
	}
	if (sld_task_dead(current))
		retire(t);
}

struct preempt_ops tk_task_ops = {
	.sched_in = task_sched_in,
	.sched_out = task_sched_out,
};

/* Preemption off: only current changes its own notifier list. */
struct sld_task *tk_find_current(void)
{
	return find_record(current);
}

/*
 * A task name as sld_compat shows it, in its files and in dmesg: bytes
 * outside printable ASCII, and backslash, as \xNN, as sldctl prints
 * names (src/schema/escape.c, which both compile). A task names itself
 * (prctl), with any bytes: raw, a newline would add a line to the tasks
 * file and forge its class there, in sldctl status and in the Prometheus
 * metrics.
 */
void sld_comm_escape(char dst[COMM_ESC_LEN], const char *comm)
{
	sld_esc(dst, COMM_ESC_LEN, comm, TASK_COMM_LEN - 1, 0);
}
