// SPDX-License-Identifier: GPL-2.0
/*
 * task/task.c's pins: a hypervisor task keeps sld_compat loaded.
 *
 * Detaching a hypervisor task is safe for the host, not for its
 * guest, which gets the #AC that sld_compat kept from it. So a record
 * protected on behalf of a hypervisor module holds a reference on
 * sld_compat (try_module_get() when it becomes one, in the task's own
 * handler), as an open VM file holds kvm_intel: rmmod is refused while
 * one lives, and lsmod counts them. Exempt-only tasks hold none: unloading
 * costs them only the kernel's penalty. The admin can still detach them
 * on purpose: enabled=N drops the pins with the records, and a forced
 * unload (rmmod -f) finds them still pinned; both say in dmesg which
 * hypervisor tasks lost protection.
 *
 * Dropping our own reference from our own code is the hazard: once the
 * last put is done, rmmod may run sld_compat_exit() and free our text
 * while the putting CPU still executes the instructions after
 * module_put(). Every put therefore runs in one of two places that the
 * exit path waits for before it returns (the text is freed only after):
 *  - the do_exit handler: kprobe handlers run with preemption disabled,
 *    i.e. inside an RCU read-side section, and sld_task_exit() starts
 *    with synchronize_rcu(), so the handler has returned into the kprobe
 *    core (kernel text) before exit goes on;
 *  - tk_unpin_work, for records detached in sleepable context (enabled=N)
 *    and for those task.c's reap() returns still pinned (a task that died
 *    while its exit probe did not run: kprobes off system-wide):
 *    sld_task_exit() flushes it, which waits until unpin_fn() has
 *    returned into the workqueue core.
 * A put anywhere else (a knob store, a notifier, after the work returns)
 * would rely on who called us; these two do not. A try_module_get() that
 * fails (unload already under way) leaves the record unpinned: the exit
 * path detaches it like any other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include "engine/task/internal.h"
#include "knobs/switches.h"

atomic_t tk_n_pinned;		/* records with pinned set */

/* ---- pins: a hypervisor task keeps sld_compat loaded (see the top) ----------------- */

void tk_pin(struct sld_task *t)
{
	if (!t->pinned && try_module_get(THIS_MODULE)) {
		t->pinned = true;
		atomic_inc(&tk_n_pinned);
	}
}

/*
 * Only from the do_exit handler (preemption off) or unpin_fn(): see the
 * top of the file. Nothing of ours may be touched after it.
 */
void tk_unpin_last_act(void)
{
	atomic_dec(&tk_n_pinned);
	module_put(THIS_MODULE);
}

static atomic_t unpins;		/* detached pins unpin_fn() drops */

static void unpin_fn(struct work_struct *work)
{
	int n = atomic_xchg(&unpins, 0);

	while (n-- > 0)
		tk_unpin_last_act();
}
DECLARE_WORK(tk_unpin_work, unpin_fn);

/* Any context: the pins of n records, dropped soon by unpin_fn(). */
void tk_unpin_later(unsigned int n)
{
	if (!n)
		return;
	atomic_add(n, &unpins);
	schedule_work(&tk_unpin_work);
}

/* Sleepable: the pins of n detached records, dropped before returning. */
void tk_unpin_detached(unsigned int n)
{
	if (!n)
		return;
	tk_unpin_later(n);
	flush_work(&tk_unpin_work);
}
