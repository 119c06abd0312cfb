// SPDX-License-Identifier: GPL-2.0
/*
 * task/task.c's releasing: an owner lets its tasks go (an unwatched
 * hypervisor, a changed exemption rule); each keeps its record, marked
 * released, until its task exits, execs or is protected again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "engine/msr/core_msr.h"
#include "engine/task/internal.h"
#include "engine/task/task.h"
#include "knobs/switches.h"

/* ---- releasing: an unwatched hypervisor, a changed exemption rule --------------- */

/* IPI: current, if released while on this CPU, gives its hold back now. */
static void drop_released(void *unused)
{
	struct sld_task *t;

	if (hlist_empty(&current->preempt_notifiers))
		return;
	t = tk_find_current();
	if (t && t->running && READ_ONCE(t->why) == SLD_WHY_NONE) {
		t->running = false;
		sld_msr_task_out();
	}
}

/*
 * An owner lets its tasks go. A hypervisor module is no longer watched
 * (it unloaded, or a knob changed its verdict or policy): the tasks
 * protected on its behalf lose their protection. Only a task can
 * unregister its own notifier, so each keeps its record, marked released
 * (why none): it holds nothing from now on (a task on a CPU right now
 * gives its hold back through an IPI, any other at its next switch in
 * takes none), the #AC path treats it as unprotected, and the record goes
 * at exit or exec, or protects again at the task's next hypervisor ioctl
 * or exempt split lock. Returns how many were released. Sleepable.
 */
static unsigned int release_where(enum sld_why why, struct sld_owner *hv)
{
	unsigned int c, i, n = 0, npins = 0;
	unsigned long flags;

	/* Probe handlers that still saw the slot watched are done. */
	synchronize_rcu();
	for (c = 0; c < tk_capacity() / CHUNK; c++) {
		/* The lock per chunk: irqs off for CHUNK records at most. */
		raw_spin_lock_irqsave(&tk_pool_lock, flags);
		for (i = 0; i < CHUNK; i++) {
			struct sld_task *t = &tk_chunks[c][i];

			if (t->used && !t->detached &&
			    READ_ONCE(t->why) == why &&
			    (why != SLD_WHY_HV || READ_ONCE(t->hv) == hv)) {
				WRITE_ONCE(t->why, SLD_WHY_NONE);
				npins += xchg(&t->pinned, false);
				n++;
			}
		}
		raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	}
	if (n)
		on_each_cpu(drop_released, NULL, 1);
	/* A released task no longer keeps sld_compat loaded. */
	tk_unpin_detached(npins);
	return n;
}

/*
 * An exemption rule of o's kind changed: every task protected under that
 * kind is released the same way and decides again under the rules now
 * in force, at its next split lock (or exec), in its own context, where
 * its comm, executable and cgroup can be read safely. One that still
 * matches pays one #AC; one that no longer does is an ordinary task
 * again.
 */
unsigned int sld_task_release(struct sld_owner *o)
{
	return release_where(o->why, o);
}
