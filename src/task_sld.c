// SPDX-License-Identifier: GPL-2.0
/*
 * Protected tasks: SLD off on the core while the task runs, back to what
 * the kernel wants while it does not, from the moment it is protected
 * until it exits.
 *
 * Mechanism: a preempt notifier registered on the task, as KVM does for
 * vcpu_load/vcpu_put. The scheduler calls it only for tasks that carry
 * one, on the CPU and at the moment of the switch (sched_out before the
 * next task runs, sched_in before this one returns to its code), so
 * - a task that is not protected costs nothing per switch beyond the
 *   kernel's own static-branch check, and only while sld_compat holds the
 *   preempt-notifier key, i.e. only once there is something to protect
 *   (a watched hypervisor or an exemption rule);
 * - migration needs no care: sched_out on the old CPU, sched_in on the new;
 * - fork needs none: a child starts with no notifiers (sched_fork).
 * The alternatives were worse: a kprobe on the context switch costs every
 * switch of every task; TIF-flag tricks (the 2020 seeds' TIF_SLD) need the
 * kernel's cooperation, which it removed in 5.19.
 *
 * A notifier can only be added by the task itself, which suits us: every
 * way into protection runs in the task (its #AC, its ioctl, its exec, a
 * vendor's guest entry). Records come from a preallocated pool: those
 * paths are kprobe handlers, where even GFP_ATOMIC is not allowed on
 * PREEMPT_RT. A record holds a reference on its task, so that a record
 * whose task died unseen (kprobes switched off system-wide) still points
 * at a live task_struct when it is detached.
 *
 * A record ends at do_exit (a kprobe), when exec starts a program that no
 * exemption matches (for exempted tasks), or when sld_compat is disabled
 * or unloaded: then every record is detached under stop_machine(), where
 * no CPU is inside a context switch, and SLD goes back to the kernel's
 * state; dmesg names the tasks that lost protection.
 *
 * Pins: detaching a hypervisor task is safe for the host, not for its
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
 *  - unpin_work, for records detached in sleepable context (enabled=N):
 *    sld_task_exit() flushes it, which waits until unpin_fn() has returned
 *    into the workqueue core.
 * A put anywhere else (a knob store, a notifier, after the work returns)
 * would rely on who called us; these two do not. A try_module_get() that
 * fails (unload already under way) leaves the record unpinned: the exit
 * path detaches it like any other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "sld_compat.h"

#define POOL_SIZE	1024

struct sld_task {
	struct preempt_notifier pn;
	struct task_struct *task;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	enum sld_why why;
	int hv;			/* hvwatch slot, or -1 */
	bool running;
	int cpu;
	unsigned long switches, ac_user, ac_guest;
	bool warned;
	bool pinned;		/* holds a reference on sld_compat */
};

static struct sld_task *pool;
static unsigned int *free_ids, nfree;
static DEFINE_RAW_SPINLOCK(pool_lock);	/* pool membership, used[] */
static bool *used;
static DEFINE_MUTEX(task_mutex);	/* key, ready, detach */
static bool key_held, setup_done;	/* task_mutex */
static bool key_wanted;			/* the last refresh's need */
static bool ready;			/* protect() may add records */
static atomic_long_t n_protected, n_exited, n_exec_dropped, n_pool_full;
static atomic_long_t n_detached, n_refused;
static atomic_t n_pinned;		/* records with pinned set */

static const char *const why_names[] = {
	[SLD_WHY_NONE] = "released", [SLD_WHY_COMM] = "exempt-comm",
	[SLD_WHY_PATH] = "exempt-path", [SLD_WHY_CGROUP] = "exempt-cgroup",
	[SLD_WHY_HV] = "hypervisor",
};

/* ---- the notifier ------------------------------------------------------------ */

/*
 * Calls of our notifiers, per CPU: the proof, in the VM suite, that a
 * context switch of an unprotected task never runs sld_compat code.
 */
static DEFINE_PER_CPU(unsigned long, sched_calls);

/*
 * running: this task holds its CPU's core off. A released record (why
 * none, see sld_task_release_hv) takes no hold. Irqs off around the
 * hold, which drop_released() also changes (sched_in runs with irqs on).
 */
static void task_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct sld_task *t = container_of(pn, struct sld_task, pn);
	unsigned long flags;

	this_cpu_inc(sched_calls);
	t->cpu = cpu;
	t->switches++;
	local_irq_save(flags);
	if (READ_ONCE(t->why) != SLD_WHY_NONE) {
		t->running = true;
		sld_msr_task_in();
	}
	local_irq_restore(flags);
}

static void task_sched_out(struct preempt_notifier *pn,
			   struct task_struct *next)
{
	struct sld_task *t = container_of(pn, struct sld_task, pn);

	this_cpu_inc(sched_calls);
	if (t->running) {
		t->running = false;
		sld_msr_task_out();
	}
}

static struct preempt_ops task_ops = {
	.sched_in = task_sched_in,
	.sched_out = task_sched_out,
};

/* Preemption off: only current changes its own notifier list. */
static struct sld_task *find_current(void)
{
	struct preempt_notifier *pn;

	hlist_for_each_entry(pn, &current->preempt_notifiers, link)
		if (pn->ops == &task_ops)
			return container_of(pn, struct sld_task, pn);
	return NULL;
}

/* ---- the pool ------------------------------------------------------------------ */

/*
 * why and hv are set under the lock: sld_task_release_hv() reads a used
 * record's under it, never a previous owner's.
 */
static struct sld_task *pool_get(enum sld_why why, int hv)
{
	struct sld_task *t = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&pool_lock, flags);
	if (nfree) {
		unsigned int id = free_ids[--nfree];

		used[id] = true;
		t = &pool[id];
		memset(t, 0, sizeof(*t));
		t->why = why;
		t->hv = hv;
	}
	raw_spin_unlock_irqrestore(&pool_lock, flags);
	return t;
}

/* Returns the task reference the record held, for the caller to drop. */
static struct task_struct *pool_put(struct sld_task *t)
{
	struct task_struct *task = t->task;
	unsigned int id = t - pool;
	unsigned long flags;

	raw_spin_lock_irqsave(&pool_lock, flags);
	used[id] = false;
	free_ids[nfree++] = id;
	raw_spin_unlock_irqrestore(&pool_lock, flags);
	return task;
}

static unsigned int live(void)
{
	return POOL_SIZE - READ_ONCE(nfree);
}

/* ---- pins: a hypervisor task keeps sld_compat loaded (see the top) ----------------- */

static void pin(struct sld_task *t)
{
	if (!t->pinned && try_module_get(THIS_MODULE)) {
		t->pinned = true;
		atomic_inc(&n_pinned);
	}
}

/*
 * Only from the do_exit handler (preemption off) or unpin_fn(): see the
 * top of the file. Nothing of ours may be touched after it.
 */
static void unpin_last_act(void)
{
	atomic_dec(&n_pinned);
	module_put(THIS_MODULE);
}

static atomic_t unpins;		/* detached pins unpin_fn() drops */

static void unpin_fn(struct work_struct *work)
{
	int n = atomic_xchg(&unpins, 0);

	while (n-- > 0)
		unpin_last_act();
}
static DECLARE_WORK(unpin_work, unpin_fn);

/* Sleepable: the pins of n detached records, dropped before returning. */
static void unpin_detached(unsigned int n)
{
	if (!n)
		return;
	atomic_add(n, &unpins);
	schedule_work(&unpin_work);
	flush_work(&unpin_work);
}

/* ---- protect / release (current task, preemption off) --------------------------- */

bool sld_task_protected(void)
{
	struct sld_task *t;

	if (hlist_empty(&current->preempt_notifiers))
		return false;
	t = find_current();
	return t && READ_ONCE(t->why) != SLD_WHY_NONE;
}

/* A released record protects its task again (current, preemption off). */
static void revive(struct sld_task *t, enum sld_why why, int hv)
{
	unsigned long flags;

	WRITE_ONCE(t->hv, hv);
	if (hv >= 0) {
		sld_hv_count_task(hv);
		pin(t);
	}
	local_irq_save(flags);
	WRITE_ONCE(t->why, hv >= 0 ? SLD_WHY_HV : why);
	t->running = true;
	t->cpu = smp_processor_id();
	sld_msr_task_in();
	local_irq_restore(flags);
	atomic_long_inc(&n_protected);
}

/*
 * Protect current from now on: SLD off on this core at once, then per
 * switch. 0 if protected (already or now).
 */
int sld_task_protect(enum sld_why why, int hv)
{
	struct sld_task *t;

	if (!READ_ONCE(ready)) {
		atomic_long_inc(&n_refused);
		return -EAGAIN;
	}
	t = find_current();
	if (t && READ_ONCE(t->why) == SLD_WHY_NONE) {
		revive(t, why, hv);
		return 0;
	}
	if (t) {
		if (hv >= 0 && t->hv < 0) {
			WRITE_ONCE(t->hv, hv);
			WRITE_ONCE(t->why, SLD_WHY_HV);
			sld_hv_count_task(hv);
			pin(t);
		}
		return 0;
	}
	t = pool_get(why, hv);
	if (!t) {
		atomic_long_inc(&n_pool_full);
		return -ENOSPC;
	}
	get_task_struct(current);
	t->task = current;
	t->pid = task_pid_nr(current);
	memcpy(t->comm, current->comm, TASK_COMM_LEN);
	t->comm[TASK_COMM_LEN - 1] = '\0';
	if (hv >= 0) {
		sld_hv_count_task(hv);
		pin(t);
	}
	preempt_notifier_init(&t->pn, &task_ops);
	preempt_notifier_register(&t->pn);
	atomic_long_inc(&n_protected);
	task_sched_in(&t->pn, smp_processor_id());
	t->switches = 0;
	return 0;
}

static void key_work_fn(struct work_struct *work)
{
	sld_task_refresh();
}
static DECLARE_WORK(key_work, key_work_fn);

/* current only; the task reference is dropped later, never here. */
static void release(struct sld_task *t)
{
	preempt_notifier_unregister(&t->pn);
	if (t->running)
		sld_msr_task_out();
	/* current holds its own reference; ours cannot be the last. */
	put_task_struct(pool_put(t));
	/* The key outlived its rule for this record only: drop it now. */
	if (!live() && !READ_ONCE(key_wanted))
		schedule_work(&key_work);
}

/*
 * A split lock by current, which is protected: count it, and warn once
 * per task. Returns the hypervisor slot the task belongs to, or -1.
 */
int sld_task_ac(bool guest)
{
	struct sld_task *t = find_current();

	if (!t)
		return -1;
	if (guest)
		t->ac_guest++;
	else
		t->ac_user++;
	if (!t->warned) {
		t->warned = true;
		pr_warn_ratelimited("split lock by %s task %s[%d]: handled in warn mode without penalty, SLD off while it runs\n",
				    why_names[t->why], t->comm, t->pid);
	}
	return t->hv;
}

/* ---- releasing the tasks of an unwatched hypervisor ------------------------------ */

/* IPI: current, if released while on this CPU, gives its hold back now. */
static void drop_released(void *unused)
{
	struct sld_task *t;

	if (hlist_empty(&current->preempt_notifiers))
		return;
	t = find_current();
	if (t && t->running && READ_ONCE(t->why) == SLD_WHY_NONE) {
		t->running = false;
		sld_msr_task_out();
	}
}

/*
 * The hypervisor module of hvwatch slot is no longer watched (it
 * unloaded, or a knob changed its verdict or policy): the tasks protected
 * on its behalf lose their protection. Only a task can unregister its own
 * notifier, so each keeps its record, marked released (why none): it
 * holds nothing from now on (a task on a CPU right now gives its hold
 * back through an IPI, any other at its next switch in takes none), the
 * #AC path treats it as unprotected, and the record goes at exit or exec,
 * or protects again at the task's next hypervisor ioctl or exempt split
 * lock. Returns how many were released. Sleepable.
 */
unsigned int sld_task_release_hv(int slot)
{
	unsigned int id, n = 0, npins = 0;
	unsigned long flags;

	if (!pool)
		return 0;
	/* Probe handlers that still saw the slot watched are done. */
	synchronize_rcu();
	raw_spin_lock_irqsave(&pool_lock, flags);
	for (id = 0; id < POOL_SIZE; id++) {
		struct sld_task *t = &pool[id];

		if (used[id] && READ_ONCE(t->hv) == slot &&
		    READ_ONCE(t->why) == SLD_WHY_HV) {
			WRITE_ONCE(t->why, SLD_WHY_NONE);
			npins += xchg(&t->pinned, false);
			n++;
		}
	}
	raw_spin_unlock_irqrestore(&pool_lock, flags);
	if (n)
		on_each_cpu(drop_released, NULL, 1);
	/* A released task no longer keeps sld_compat loaded. */
	unpin_detached(npins);
	return n;
}

/* ---- hooks: exit and exec ------------------------------------------------------- */

/* void do_exit(long code): the record goes with its task. */
static int exit_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sld_task *t;

	if (hlist_empty(&current->preempt_notifiers))
		return 0;
	t = find_current();
	if (t) {
		/* xchg: sld_task_release_hv() may hand the pin to unpin_fn(). */
		bool pinned = xchg(&t->pinned, false);

		release(t);
		atomic_long_inc(&n_exited);
		if (pinned)
			unpin_last_act();
	}
	return 0;
}

/*
 * setup_new_exec() returned: comm and exe are the new program's. An
 * exemption is re-decided for it (see exempt.c); a hypervisor task keeps
 * its protection.
 */
static int exec_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	enum sld_why why = sld_exempt_match();
	struct sld_task *t = find_current();

	if (t && t->why != SLD_WHY_HV && why == SLD_WHY_NONE) {
		release(t);
		atomic_long_inc(&n_exec_dropped);
		return 0;
	}
	if (t) {
		memcpy(t->comm, current->comm, TASK_COMM_LEN);
		t->comm[TASK_COMM_LEN - 1] = '\0';
		if (READ_ONCE(t->why) == SLD_WHY_NONE && sld_exempt_proactive())
			sld_task_protect(why, -1);	/* released, exempt now */
		return 0;
	}
	if (why != SLD_WHY_NONE && sld_exempt_proactive())
		sld_task_protect(why, -1);
	return 0;
}

static struct sld_hook hook_exit = {
	.name = "task-exit", .symbol = "do_exit", .pre = exit_pre,
};

static struct sld_hook hook_exec = {
	.name = "exec", .symbol = "setup_new_exec", .ret = true,
	.handler = exec_ret,
};

/* ---- the key, readiness and detaching ---------------------------------------------- */

static struct detached {
	struct task_struct *task;
	int hv;
	bool pinned;
} detached[POOL_SIZE];
static unsigned int ndetached;

/* Under stop_machine: no CPU is in a context switch or in our handlers. */
static int detach_fn(void *unused)
{
	unsigned int id;

	ndetached = 0;
	for (id = 0; id < POOL_SIZE; id++) {
		struct detached *d = &detached[ndetached];

		if (!used[id])
			continue;
		hlist_del(&pool[id].pn.link);
		d->hv = pool[id].why == SLD_WHY_HV ? pool[id].hv : -1;
		d->pinned = pool[id].pinned;
		d->task = pool_put(&pool[id]);
		ndetached++;
	}
	sld_msr_drop_task_holds();
	return 0;
}

/* Names the detached tasks; returns how many of them held a pin. */
static unsigned int say_detached(const char *why)
{
	unsigned int i, nhv = 0, npins = 0;
	char hv[MODULE_NAME_LEN];

	pr_info("%s: %u protected task(s) detached, SLD back to the kernel's state for them\n",
		why, ndetached);
	for (i = 0; i < ndetached; i++) {
		struct detached *d = &detached[i];

		if (d->hv < 0) {
			pr_info("  detached %s[%d]\n", d->task->comm,
				task_pid_nr(d->task));
		} else {
			sld_hv_name(d->hv, hv, sizeof(hv));
			pr_warn("  detached %s[%d], a task of hypervisor %s: its guest may now receive split-lock #AC\n",
				d->task->comm, task_pid_nr(d->task), hv);
			nhv++;
		}
		npins += d->pinned;
		put_task_struct(d->task);
	}
	if (nhv)
		pr_warn("%s: %u hypervisor task(s) lost protection: their guests may now receive split-lock #AC\n",
			why, nhv);
	atomic_long_add(ndetached, &n_detached);
	ndetached = 0;
	return npins;
}

static bool engine_possible(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS) && hook_exit.registered;
}

/* task_mutex held. Stop new records, wait out the ones being made. */
static void stop_protecting(void)
{
	WRITE_ONCE(ready, false);
	synchronize_rcu();	/* handlers run with preemption off */
}

static void detach_all(const char *why)
{
	stop_protecting();
	if (live()) {
		stop_machine(detach_fn, NULL, NULL);
		unpin_detached(say_detached(why));
	}
	sld_msr_sync_all();
	if (key_held) {
		key_held = false;
		preempt_notifier_dec();
	}
}

/*
 * Sleepable. Hold the preempt-notifier key while there is something that
 * may protect a task (and enabled=Y); detach everything when disabled.
 */
void sld_task_refresh(void)
{
	bool enabled, need;

	if (!engine_possible())
		return;
	/*
	 * Everything read under the mutex: a refresh that saw setup_done
	 * before sld_task_exit() detached everything would otherwise take
	 * the key again afterwards and let records be made that nothing
	 * detaches; one that read the rules before a concurrent refresh
	 * would undo that refresh's newer answer.
	 */
	mutex_lock(&task_mutex);
	if (!setup_done)
		goto out;
	enabled = READ_ONCE(sld_knobs.enabled);
	need = enabled && (sld_exempt_any() || sld_hv_any());
	WRITE_ONCE(key_wanted, need);
	if (!enabled) {
		detach_all("disabled");
	} else if (need && !key_held) {
		preempt_notifier_inc();
		key_held = true;
	} else if (!need && key_held && !live()) {
		/* Live records keep the key: no grace period on every refresh. */
		stop_protecting();
		if (!live()) {
			key_held = false;
			preempt_notifier_dec();
		}
	}
	WRITE_ONCE(ready, key_held && enabled);
out:
	mutex_unlock(&task_mutex);
}

/* ---- init / exit / status ------------------------------------------------------------ */

/* Before sld_hooks_init(). */
int sld_task_setup(void)
{
	unsigned int i;

	if (!IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS)) {
		sld_degrade("per-task", "kernel built without CONFIG_PREEMPT_NOTIFIERS: no task can be protected");
		return 0;
	}
	pool = kvcalloc(POOL_SIZE, sizeof(*pool), GFP_KERNEL);
	free_ids = kvcalloc(POOL_SIZE, sizeof(*free_ids), GFP_KERNEL);
	used = kvcalloc(POOL_SIZE, sizeof(*used), GFP_KERNEL);
	if (!pool || !free_ids || !used) {
		sld_task_free();
		return -ENOMEM;
	}
	for (i = 0; i < POOL_SIZE; i++)
		free_ids[i] = POOL_SIZE - 1 - i;
	nfree = POOL_SIZE;
	sld_hook_add(&hook_exit);
	sld_hook_add(&hook_exec);
	return 0;
}

/* After sld_hooks_init(). */
void sld_task_init(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS) && !hook_exit.registered)
		sld_degrade("per-task", "no do_exit probe: a record could outlive its task, so no task is protected");
	if (engine_possible() && !hook_exec.registered)
		sld_degrade("exec", "no setup_new_exec probe: exemptions act from the first split lock only");
	mutex_lock(&task_mutex);
	setup_done = true;
	mutex_unlock(&task_mutex);
	sld_task_refresh();
}

/*
 * Before sld_hooks_exit(): detach while the hooks still run. On a normal
 * unload no record holds a pin (the refcount was zero); records still
 * pinned mean a forced one.
 */
void sld_task_exit(void)
{
	/* The last pin's put may still be returning: see the top of the file. */
	synchronize_rcu();
	flush_work(&unpin_work);
	mutex_lock(&task_mutex);
	setup_done = false;
	if (engine_possible())
		detach_all(atomic_read(&n_pinned) ? "unloading (forced)" : "unloading");
	mutex_unlock(&task_mutex);
	/* No record is left to queue it again; the work takes task_mutex. */
	cancel_work_sync(&key_work);
}

void sld_task_free(void)
{
	kvfree(pool);
	kvfree(free_ids);
	kvfree(used);
	pool = NULL;
	free_ids = NULL;
	used = NULL;
}

/*
 * "PID COMM why=W hv=NAME cpu=N running=0|1 switches=N ac_user=N
 * ac_guest=N" per protected task, or "none"; then the counters.
 */
int sld_tasks_show(char *buf, size_t size)
{
	unsigned int id, shown = 0;
	unsigned long flags;
	int n = 0;

	for (id = 0; pool && id < POOL_SIZE && n < size - 200; id++) {
		struct sld_task t;
		char hv[MODULE_NAME_LEN];
		bool in_use;

		raw_spin_lock_irqsave(&pool_lock, flags);
		in_use = used[id];
		if (in_use)
			t = pool[id];
		raw_spin_unlock_irqrestore(&pool_lock, flags);
		if (!in_use)
			continue;
		sld_hv_name(t.hv, hv, sizeof(hv));
		n += scnprintf(buf + n, size - n,
			       "%d %s why=%s hv=%s cpu=%d running=%d switches=%lu ac_user=%lu ac_guest=%lu\n",
			       t.pid, t.comm, why_names[t.why], hv, t.cpu,
			       t.running, t.switches, t.ac_user, t.ac_guest);
		shown++;
	}
	if (shown < live())
		n += scnprintf(buf + n, size - n, "... %u more\n",
			       live() - shown);
	if (!shown && !live())
		n += scnprintf(buf + n, size - n, "none\n");
	return n;
}

/*
 * Why sld_compat is in use, as far as it holds references on itself:
 * "MODULE tasks=N" per hypervisor whose protected tasks pin it, or
 * "none". References others hold (a vendor's symbol_get(), modules linked
 * against it) are the rest of /sys/module/sld_compat/refcnt.
 */
int sld_task_in_use_show(char *buf, size_t size)
{
	unsigned int by_slot[16] = { 0 };	/* hvwatch's slots, HV_MAX */
	unsigned int id, other = 0;
	char hv[MODULE_NAME_LEN];
	unsigned long flags;
	int slot, n = 0;

	for (id = 0; pool && id < POOL_SIZE; id++) {
		slot = -1;
		raw_spin_lock_irqsave(&pool_lock, flags);
		if (used[id] && pool[id].pinned)
			slot = pool[id].hv;
		raw_spin_unlock_irqrestore(&pool_lock, flags);
		if (slot >= (int)ARRAY_SIZE(by_slot))
			other++;
		else if (slot >= 0)
			by_slot[slot]++;
	}
	for (slot = 0; slot < (int)ARRAY_SIZE(by_slot); slot++) {
		if (!by_slot[slot])
			continue;
		sld_hv_name(slot, hv, sizeof(hv));
		n += scnprintf(buf + n, size - n, "%s tasks=%u\n", hv,
			       by_slot[slot]);
	}
	if (other)
		n += scnprintf(buf + n, size - n, "- tasks=%u\n", other);
	if (!n)
		n = scnprintf(buf, size, "none\n");
	return n;
}

int sld_task_counters_show(char *buf, size_t size)
{
	unsigned long calls = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		calls += per_cpu(sched_calls, cpu);
	return scnprintf(buf, size,
			 "tasks_live %u\ntasks_pinning %d\ntasks_protected %ld\ntasks_exited %ld\ntasks_exec_dropped %ld\ntasks_detached %ld\ntasks_pool_full %ld\ntasks_refused %ld\nkey_held %d\nready %d\nsched_calls %lu\n",
			 pool ? live() : 0, atomic_read(&n_pinned),
			 atomic_long_read(&n_protected),
			 atomic_long_read(&n_exited),
			 atomic_long_read(&n_exec_dropped),
			 atomic_long_read(&n_detached),
			 atomic_long_read(&n_pool_full),
			 atomic_long_read(&n_refused),
			 READ_ONCE(key_held), READ_ONCE(ready), calls);
}
