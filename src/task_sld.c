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
 * vendor's guest entry). Those paths are kprobe handlers, where even
 * GFP_ATOMIC is not allowed on PREEMPT_RT, so records come from a pool
 * that grows ahead of demand (see "the pool" below). A record holds a
 * reference on its task, so that a record whose task died unseen (kprobes
 * switched off system-wide) still points at a live task_struct when it is
 * detached.
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

#include <linux/cred.h>
#include <linux/hash.h>
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

#include "compat/compat.h"
#include "sld_compat.h"
#include "knobs.h"

struct sld_task {
	struct preempt_notifier pn;
	struct sld_task *next_free;	/* on the free list */
	struct task_struct *task;
	kuid_t uid;		/* counted for this uid (see admit()) */
	pid_t pid;
	char comm[TASK_COMM_LEN];
	enum sld_why why;
	int hv;			/* hvwatch slot, or -1 */
	bool running;
	int cpu;
	unsigned long switches, ac_user, ac_guest;
	bool warned;
	bool pinned;		/* holds a reference on sld_compat */
	bool used;		/* under pool_lock */
	bool exempt_share;	/* counted against the exempt share */
	bool uid_counted;	/* counted in uids[] (a non-root task) */
	bool detached;		/* detach_fn() took it off its task */
};

static DEFINE_MUTEX(task_mutex);	/* key, ready, detach */
static bool key_held, setup_done;	/* task_mutex */
static bool key_wanted;			/* the last refresh's need */
static bool ready;			/* protect() may add records */
static atomic_long_t n_protected, n_exited, n_exec_dropped, n_proactive;
static atomic_long_t n_by_why[SLD_WHY_HV + 1];	/* protections per rule */
static atomic_long_t n_detached, n_refused_off, n_refused_full;
static atomic_long_t n_refused_cap, n_refused_growing, n_grow_failed;
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
 * handovers: switches from one protected task to another that kept the
 * core's hold as it was, without touching the MSR.
 */
static DEFINE_PER_CPU(unsigned long, sched_calls);
static DEFINE_PER_CPU(unsigned long, sched_handovers);

/*
 * A protected task switched out for another protected task on this CPU
 * leaves its hold to it (task_sched_out): the record the hold was handed
 * to, until its sched_in takes it. Only this CPU's context switch sets
 * and clears it, with preemption off; detach_fn() clears it too.
 */
static DEFINE_PER_CPU(struct sld_task *, handed);

static struct preempt_ops task_ops;

/* A task's record, if it has one (preemption off, task not running). */
static struct sld_task *find_record(struct task_struct *task)
{
	struct preempt_notifier *pn;

	hlist_for_each_entry(pn, &task->preempt_notifiers, link)
		if (pn->ops == &task_ops)
			return container_of(pn, struct sld_task, pn);
	return NULL;
}

/*
 * running: this task holds its CPU's core off. A released record (why
 * none, see sld_task_release_hv) takes no hold. Irqs off around the
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

	this_cpu_inc(sched_calls);
	t->cpu = cpu;
	t->switches++;
	local_irq_save(flags);
	/* A handed hold is still on this CPU's account, or it is no handover. */
	handover = this_cpu_read(handed) && sld_msr_task_held();
	this_cpu_write(handed, NULL);
	protected = READ_ONCE(t->why) != SLD_WHY_NONE;
	if (protected) {
		t->running = true;
		if (handover)
			this_cpu_inc(sched_handovers);
		else
			sld_msr_task_in();
	} else if (handover) {
		sld_msr_task_out();
	}
	local_irq_restore(flags);
}

/* current becomes protected on this CPU (preemption off): hold it now. */
static void start_running(struct sld_task *t)
{
	unsigned long flags;

	local_irq_save(flags);
	t->cpu = smp_processor_id();
	t->running = true;
	sld_msr_task_in();
	local_irq_restore(flags);
}

/*
 * Irqs off (the scheduler's rq lock). next is not running: only next
 * itself or detach_fn() (stop_machine, no CPU in a switch) changes its
 * notifier list, so its record cannot go before its sched_in.
 */
static void task_sched_out(struct preempt_notifier *pn,
			   struct task_struct *next)
{
	struct sld_task *t = container_of(pn, struct sld_task, pn);
	struct sld_task *nt;

	this_cpu_inc(sched_calls);
	if (!t->running)
		return;
	t->running = false;
	nt = hlist_empty(&next->preempt_notifiers) ? NULL : find_record(next);
	if (nt && READ_ONCE(nt->why) != SLD_WHY_NONE)
		this_cpu_write(handed, nt);	/* the hold stays: no write */
	else
		sld_msr_task_out();
}

static struct preempt_ops task_ops = {
	.sched_in = task_sched_in,
	.sched_out = task_sched_out,
};

/* Preemption off: only current changes its own notifier list. */
static struct sld_task *find_current(void)
{
	return find_record(current);
}

/* ---- the pool ------------------------------------------------------------------ */

/*
 * Records live in chunks of CHUNK, allocated in sleepable context by
 * grow_work, never in the handlers that take records: pool_get() queues
 * the work when fewer than LOW_WATER records are free, so the pool grows
 * ahead of demand, chunk by chunk, up to max_tasks (rounded up to a
 * chunk). Chunks are never freed before unload: a record's address is
 * stable while anything may look at it, and walkers need no RCU. A
 * burst of more than LOW_WATER new tasks faster than the work runs is
 * refused (tasks_refused_growing), like a task over max_tasks.
 *
 * Who may take a record (admit()): an unprivileged user can obtain an
 * exemption by itself (exempt_comm, see README's trust model), so
 * - exempt records may fill at most max_tasks minus a reserve of a
 *   quarter: hypervisor tasks never fail because exempt tasks filled the
 *   pool;
 * - the records of one non-root uid, exempt or hypervisor, are capped
 *   (tasks_per_uid): a user can also obtain hypervisor records alone,
 *   through a device node anyone may open (/dev/vboxdrvu is 0666), and
 *   must not starve the others' tasks or guests. The count per uid lives
 *   in a fixed table (no allocation in handlers); if more than UID_SLOTS
 *   uids hold records at once, a new uid is refused as over its cap.
 *   Root's tasks are not capped. The default is half of max_tasks'
 *   default.
 * Hypervisor records are otherwise bounded only by max_tasks.
 */
#define CHUNK_SHIFT	7
#define CHUNK		(1U << CHUNK_SHIFT)		/* 128 records */
#define LOW_WATER	(CHUNK / 2)
#define TASKS_LIMIT	((unsigned int)SLD_TASKS_LIMIT)	/* knobs_table.h */
#define MAX_CHUNKS	(TASKS_LIMIT / CHUNK)
#define UID_BITS	10
#define UID_SLOTS	(1U << UID_BITS)

static DEFINE_RAW_SPINLOCK(pool_lock);	/* everything below */
static struct sld_task *chunks[MAX_CHUNKS];
static unsigned int nchunks;		/* published chunks */
static struct sld_task *free_list;
static unsigned int nfree, nlive, nexempt;
static struct uid_count {
	kuid_t uid;
	unsigned int n;		/* 0: free slot */
} uids[UID_SLOTS];

static unsigned int max_tasks_knob;	/* 0: default_max_tasks() */
static unsigned int per_uid_knob;	/* 0: half of max_tasks */

static unsigned int default_max_tasks(void)
{
	return clamp(64 * num_possible_cpus(), 1024U, TASKS_LIMIT);
}

static unsigned int max_tasks(void)
{
	return READ_ONCE(max_tasks_knob) ?: default_max_tasks();
}

/* Not half of max_tasks itself: a knob's value changes only when written. */
static unsigned int per_uid(void)
{
	return READ_ONCE(per_uid_knob) ?: default_max_tasks() / 2;
}

static unsigned int capacity(void)
{
	return smp_load_acquire(&nchunks) * CHUNK;
}

/* Record id (0 .. capacity() - 1) to record. */
static struct sld_task *rec(unsigned int id)
{
	return &chunks[id >> CHUNK_SHIFT][id & (CHUNK - 1)];
}

/* pool_lock held: the uid's slot (linear probing), or a free one. */
static struct uid_count *uid_slot(kuid_t uid)
{
	unsigned int i = hash_32(__kuid_val(uid), UID_BITS), n;

	for (n = 0; n < UID_SLOTS; n++, i = (i + 1) & (UID_SLOTS - 1))
		if (!uids[i].n || uid_eq(uids[i].uid, uid))
			return &uids[i];
	return NULL;
}

/* pool_lock held: one exempt record less for uid (backward-shift delete). */
static void uid_put(kuid_t uid)
{
	struct uid_count *u = uid_slot(uid);
	unsigned int i, j, k;

	if (!u || !u->n || --u->n)
		return;
	i = u - uids;
	for (j = (i + 1) & (UID_SLOTS - 1); uids[j].n;
	     j = (j + 1) & (UID_SLOTS - 1)) {
		k = hash_32(__kuid_val(uids[j].uid), UID_BITS);
		/* An entry whose home lies cyclically in (i, j] stays. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		uids[i] = uids[j];
		uids[j].n = 0;
		i = j;
	}
}

/* pool_lock held: leave the exempt share (the record became a hypervisor's). */
static void leave_exempt_share(struct sld_task *t)
{
	if (!t->exempt_share)
		return;
	t->exempt_share = false;
	nexempt--;
}

enum refusal { ADMIT, REFUSE_FULL, REFUSE_CAP, REFUSE_GROWING };

/* pool_lock held: may current take a record? See the comment above. */
static enum refusal admit(bool hv, kuid_t uid, struct uid_count **slot)
{
	unsigned int max = max_tasks();

	*slot = NULL;
	if (nlive >= max)
		return REFUSE_FULL;
	if (!hv && nexempt >= max - max / 4)
		return REFUSE_FULL;
	if (!uid_eq(uid, GLOBAL_ROOT_UID)) {
		*slot = uid_slot(uid);
		if (!*slot || (*slot)->n >= per_uid())
			return REFUSE_CAP;
	}
	return free_list ? ADMIT : REFUSE_GROWING;
}

static void grow_fn(struct work_struct *work);
static DECLARE_WORK(grow_work, grow_fn);

static bool want_chunk(void)
{
	return nfree < LOW_WATER && nchunks < MAX_CHUNKS &&
	       nchunks * CHUNK < max_tasks();
}

/* pool_lock held: a new chunk's records join the free list. */
static void add_chunk(struct sld_task *c)
{
	unsigned int i;

	for (i = CHUNK; i-- > 0;) {
		c[i].next_free = free_list;
		free_list = &c[i];
	}
	nfree += CHUNK;
	chunks[nchunks] = c;
	smp_store_release(&nchunks, nchunks + 1);
}

/* Sleepable: allocate chunks until LOW_WATER records are free again. */
static int grow(void)
{
	unsigned long flags;
	struct sld_task *c;
	bool want;

	for (;;) {
		raw_spin_lock_irqsave(&pool_lock, flags);
		want = want_chunk();
		raw_spin_unlock_irqrestore(&pool_lock, flags);
		if (!want)
			return 0;
		c = kvcalloc(CHUNK, sizeof(*c), GFP_KERNEL);
		if (!c) {
			atomic_long_inc(&n_grow_failed);
			return -ENOMEM;
		}
		raw_spin_lock_irqsave(&pool_lock, flags);
		if (want_chunk()) {
			add_chunk(c);
			c = NULL;
		}
		raw_spin_unlock_irqrestore(&pool_lock, flags);
		kvfree(c);
	}
}

/* task_mutex: sld_task_free() waits for it with cancel_work_sync(). */
static void grow_fn(struct work_struct *work)
{
	mutex_lock(&task_mutex);
	grow();
	mutex_unlock(&task_mutex);
}

/*
 * why and hv are set under the lock: sld_task_release_hv() reads a used
 * record's under it, never a previous owner's.
 */
static struct sld_task *pool_get(enum sld_why why, int hv,
				 enum refusal *refused)
{
	kuid_t uid = current_uid();
	struct sld_task *t = NULL;
	struct uid_count *slot;
	unsigned long flags;
	bool more;

	raw_spin_lock_irqsave(&pool_lock, flags);
	*refused = admit(hv >= 0, uid, &slot);
	if (*refused == ADMIT) {
		t = free_list;
		free_list = t->next_free;
		nfree--;
		nlive++;
		memset(t, 0, sizeof(*t));
		t->used = true;
		t->why = why;
		t->hv = hv;
		t->uid = uid;
		if (hv < 0) {
			t->exempt_share = true;
			nexempt++;
		}
		if (slot && !slot->n++)
			slot->uid = uid;
		t->uid_counted = slot;
	}
	more = want_chunk();
	raw_spin_unlock_irqrestore(&pool_lock, flags);
	if (more)
		schedule_work(&grow_work);
	return t;
}

/* Returns the task reference the record held, for the caller to drop. */
static struct task_struct *pool_put(struct sld_task *t)
{
	struct task_struct *task = t->task;
	unsigned long flags;

	raw_spin_lock_irqsave(&pool_lock, flags);
	leave_exempt_share(t);
	if (t->uid_counted)
		uid_put(t->uid);
	t->used = false;
	t->next_free = free_list;
	free_list = t;
	nfree++;
	nlive--;
	raw_spin_unlock_irqrestore(&pool_lock, flags);
	return task;
}

static unsigned int live(void)
{
	return READ_ONCE(nlive);
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

/* pool_lock: a record protected for a hypervisor from now on. */
static void become_hv(struct sld_task *t, int hv)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pool_lock, flags);
	leave_exempt_share(t);
	WRITE_ONCE(t->hv, hv);
	WRITE_ONCE(t->why, SLD_WHY_HV);
	raw_spin_unlock_irqrestore(&pool_lock, flags);
	sld_hv_count_task(hv);
	pin(t);
}

/*
 * A released record protects its task again (current, preemption off).
 * It keeps its place in the pool: a hypervisor record stays in the
 * reserve's count even when it comes back as an exempt one.
 */
static void count_protection(enum sld_why why)
{
	atomic_long_inc(&n_protected);
	atomic_long_inc(&n_by_why[why]);
}

static void revive(struct sld_task *t, enum sld_why why, int hv)
{
	if (hv >= 0)
		become_hv(t, hv);
	else
		WRITE_ONCE(t->why, why);
	start_running(t);
	count_protection(hv >= 0 ? SLD_WHY_HV : why);
}

static int refuse(enum refusal r)
{
	switch (r) {
	case REFUSE_CAP:
		atomic_long_inc(&n_refused_cap);
		break;
	case REFUSE_GROWING:
		atomic_long_inc(&n_refused_growing);
		break;
	default:
		atomic_long_inc(&n_refused_full);
		break;
	}
	return -ENOSPC;
}

/*
 * Protect current from now on: SLD off on this core at once, then per
 * switch. 0 if protected (already or now).
 */
int sld_task_protect(enum sld_why why, int hv)
{
	enum refusal refused;
	struct sld_task *t;

	if (!READ_ONCE(ready)) {
		atomic_long_inc(&n_refused_off);
		return -EAGAIN;
	}
	t = find_current();
	if (t && READ_ONCE(t->why) == SLD_WHY_NONE) {
		revive(t, why, hv);
		return 0;
	}
	if (t) {
		if (hv >= 0 && t->hv < 0)
			become_hv(t, hv);
		return 0;
	}
	t = pool_get(why, hv, &refused);
	if (!t)
		return refuse(refused);
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
	count_protection(hv >= 0 ? SLD_WHY_HV : why);
	start_running(t);
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

/* ---- releasing: an unwatched hypervisor, a changed exemption rule --------------- */

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
static unsigned int release_where(enum sld_why why, int slot)
{
	unsigned int c, i, n = 0, npins = 0;
	unsigned long flags;

	/* Probe handlers that still saw the slot watched are done. */
	synchronize_rcu();
	for (c = 0; c < capacity() / CHUNK; c++) {
		/* The lock per chunk: irqs off for CHUNK records at most. */
		raw_spin_lock_irqsave(&pool_lock, flags);
		for (i = 0; i < CHUNK; i++) {
			struct sld_task *t = &chunks[c][i];

			if (t->used && !t->detached &&
			    READ_ONCE(t->why) == why &&
			    (why != SLD_WHY_HV || READ_ONCE(t->hv) == slot)) {
				WRITE_ONCE(t->why, SLD_WHY_NONE);
				npins += xchg(&t->pinned, false);
				n++;
			}
		}
		raw_spin_unlock_irqrestore(&pool_lock, flags);
	}
	if (n)
		on_each_cpu(drop_released, NULL, 1);
	/* A released task no longer keeps sld_compat loaded. */
	unpin_detached(npins);
	return n;
}

unsigned int sld_task_release_hv(int slot)
{
	return release_where(SLD_WHY_HV, slot);
}

/*
 * An exemption rule of this kind changed: the tasks it protected are
 * released the same way and decide again under the rules now in force,
 * at their next split lock (or exec), in their own context, where their
 * comm, executable and cgroup can be read safely. One that still matches
 * pays one #AC; one that no longer does is an ordinary task again.
 */
unsigned int sld_task_release_exempt(enum sld_why why)
{
	return release_where(why, -1);
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

/*
 * With exempt_proactive=Y a task an exemption matches is protected before
 * its first split lock: at exec (above), when it starts (a vCPU thread is
 * created long after its process's exec) and when it names itself (QEMU's
 * "CPU 3/KVM" and VirtualBox's "EMT-3" threads name themselves once they
 * run). Kernel threads and a process's kernel-side workers are never
 * exempt ahead of a trap.
 */
static void proactive_decide(void)
{
	enum sld_why why;
	struct sld_task *t;

	if (!sld_exempt_proactive() || (current->flags & SLD_PF_NOT_USER))
		return;
	why = sld_exempt_match();
	if (why == SLD_WHY_NONE)
		return;
	t = find_current();
	if (t && READ_ONCE(t->why) != SLD_WHY_NONE)
		return;
	if (!sld_task_protect(why, -1))
		atomic_long_inc(&n_proactive);
}

/* schedule_tail() returned: the first instructions of a new task. */
static int start_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	proactive_decide();
	return 0;
}

/*
 * __set_task_comm(tsk, buf, exec): only a task naming itself, outside
 * exec (exec_ret decides that one), in its own context.
 */
static int rename_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	/* exec is a bool: only its low byte is defined in the register. */
	bool self = (struct task_struct *)regs->di == current &&
		    !(u8)regs->dx && !(current->flags & SLD_PF_NOT_USER);

	return self ? 0 : 1;	/* 1: no return handler for this call */
}

static int rename_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sld_task *t;

	proactive_decide();
	t = find_current();
	if (t) {
		memcpy(t->comm, current->comm, TASK_COMM_LEN);
		t->comm[TASK_COMM_LEN - 1] = '\0';
	}
	return 0;
}

static struct sld_hook hook_start = {
	.name = "task-start", .symbol = "schedule_tail", .ret = true,
	.handler = start_ret, .on_demand = true,
};

static struct sld_hook hook_rename = {
	.name = "task-rename", .symbol = "__set_task_comm", .ret = true,
	.entry = rename_entry, .handler = rename_ret, .on_demand = true,
};

static struct sld_hook hook_exit = {
	.name = "task-exit", .symbol = "do_exit", .pre = exit_pre,
};

static struct sld_hook hook_exec = {
	.name = "exec", .symbol = "setup_new_exec", .ret = true,
	.handler = exec_ret,
};

/* ---- the key, readiness and detaching ---------------------------------------------- */

/*
 * Under stop_machine: no CPU is in a context switch or in our handlers.
 * Records only leave their tasks here; say_detached() frees them after,
 * where it may sleep and print.
 */
static int detach_fn(void *unused)
{
	unsigned int id, cpu;

	for (id = 0; id < capacity(); id++) {
		struct sld_task *t = rec(id);

		if (!t->used || t->detached)
			continue;
		hlist_del(&t->pn.link);
		t->detached = true;
	}
	for_each_possible_cpu(cpu)
		per_cpu(handed, cpu) = NULL;
	sld_msr_drop_task_holds();
	return 0;
}

/* Names the detached tasks, frees their records; returns their pins. */
static unsigned int say_detached(const char *why)
{
	unsigned int id, n = 0, nhv = 0, npins = 0;
	char hv[MODULE_NAME_LEN];

	pr_info("%s: %u protected task(s) detached, SLD back to the kernel's state for them\n",
		why, live());
	for (id = 0; id < capacity(); id++) {
		struct sld_task *t = rec(id);

		if (!t->used || !t->detached)
			continue;
		if (t->why != SLD_WHY_HV) {
			pr_info("  detached %s[%d]\n", t->task->comm,
				task_pid_nr(t->task));
		} else {
			sld_hv_name(t->hv, hv, sizeof(hv));
			pr_warn("  detached %s[%d], a task of hypervisor %s: its guest may now receive split-lock #AC\n",
				t->task->comm, task_pid_nr(t->task), hv);
			nhv++;
		}
		/* xchg: sld_task_release_hv() may take the pin meanwhile. */
		npins += xchg(&t->pinned, false);
		put_task_struct(pool_put(t));
		n++;
	}
	if (nhv)
		pr_warn("%s: %u hypervisor task(s) lost protection: their guests may now receive split-lock #AC\n",
			why, nhv);
	atomic_long_add(n, &n_detached);
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
	bool enabled, need, proactive;

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
	/* Probes on every fork and rename: armed only while they can act. */
	proactive = enabled && sld_exempt_any() && sld_exempt_proactive();
	sld_hook_want(&hook_start, proactive);
	sld_hook_want(&hook_rename, proactive);
out:
	mutex_unlock(&task_mutex);
}

/* ---- init / exit / status ------------------------------------------------------------ */

/* Before sld_hooks_init(). */
int sld_task_setup(void)
{
	int err;

	if (!IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS)) {
		sld_degrade("per-task", "kernel built without CONFIG_PREEMPT_NOTIFIERS: no task can be protected");
		return 0;
	}
	/* The first chunk now: protection works from the first task on. */
	err = grow();
	if (err)
		return err;
	sld_hook_add(&hook_exit);
	sld_hook_add(&hook_exec);
	sld_hook_add(&hook_start);
	sld_hook_add(&hook_rename);
	return 0;
}

/* After sld_hooks_init(). */
void sld_task_init(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS) && !hook_exit.registered)
		sld_degrade("per-task", "no do_exit probe: a record could outlive its task, so no task is protected");
	if (engine_possible() && !hook_exec.registered)
		sld_degrade("exec", "no setup_new_exec probe: exemptions act from the first split lock only");
	if (engine_possible() && !hook_start.registered)
		sld_degrade("task-start", "no schedule_tail probe: new threads of exempt processes are protected from their first split lock");
	if (engine_possible() && !hook_rename.registered)
		sld_degrade("task-rename", "no __set_task_comm probe: a thread exempt by its new name is protected from its first split lock");
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
	/* No record is left to queue them again; both take task_mutex. */
	cancel_work_sync(&key_work);
	cancel_work_sync(&grow_work);
}

void sld_task_free(void)
{
	unsigned int c;

	cancel_work_sync(&grow_work);
	for (c = 0; c < nchunks; c++) {
		kvfree(chunks[c]);
		chunks[c] = NULL;
	}
	nchunks = 0;
	free_list = NULL;
	nfree = 0;
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

	for (id = 0; id < capacity() && n < size - 200; id++) {
		struct sld_task t;
		char hv[MODULE_NAME_LEN];
		bool in_use;

		raw_spin_lock_irqsave(&pool_lock, flags);
		in_use = rec(id)->used;
		if (in_use)
			t = *rec(id);
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

	for (id = 0; id < capacity(); id++) {
		slot = -1;
		raw_spin_lock_irqsave(&pool_lock, flags);
		if (rec(id)->used && rec(id)->pinned)
			slot = rec(id)->hv;
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

/*
 * The engine's counters. tasks_refused counts every refusal, then why:
 * _off (engine off: disabled, unloading, nothing to protect), _full
 * (max_tasks reached, or the exempt share of it), _cap (the uid's
 * tasks_per_uid), _growing (no free record: the pool had not grown yet,
 * or could not). tasks_capacity records are allocated, tasks_record_bytes
 * each.
 */
int sld_task_counters_show(char *buf, size_t size)
{
	unsigned long calls = 0, handovers = 0;
	long off = atomic_long_read(&n_refused_off);
	long full = atomic_long_read(&n_refused_full);
	long cap = atomic_long_read(&n_refused_cap);
	long growing = atomic_long_read(&n_refused_growing);
	int cpu;

	for_each_possible_cpu(cpu) {
		calls += per_cpu(sched_calls, cpu);
		handovers += per_cpu(sched_handovers, cpu);
	}
	return scnprintf(buf, size,
			 "tasks_live %u\ntasks_exempt %u\ntasks_pinning %d\ntasks_protected %ld\ntasks_exited %ld\ntasks_exec_dropped %ld\ntasks_detached %ld\n"
			 "tasks_proactive %ld\n"
			 "tasks_protected_comm %ld\ntasks_protected_path %ld\ntasks_protected_cgroup %ld\ntasks_protected_hypervisor %ld\n"
			 "tasks_refused %ld\ntasks_refused_off %ld\ntasks_refused_full %ld\ntasks_refused_cap %ld\ntasks_refused_growing %ld\n"
			 "tasks_max %u\ntasks_per_uid %u\ntasks_capacity %u\ntasks_record_bytes %zu\ntasks_grow_failed %ld\n"
			 "key_held %d\nready %d\nsched_calls %lu\nsched_handovers %lu\n",
			 live(), READ_ONCE(nexempt), atomic_read(&n_pinned),
			 atomic_long_read(&n_protected),
			 atomic_long_read(&n_exited),
			 atomic_long_read(&n_exec_dropped),
			 atomic_long_read(&n_detached),
			 atomic_long_read(&n_proactive),
			 atomic_long_read(&n_by_why[SLD_WHY_COMM]),
			 atomic_long_read(&n_by_why[SLD_WHY_PATH]),
			 atomic_long_read(&n_by_why[SLD_WHY_CGROUP]),
			 atomic_long_read(&n_by_why[SLD_WHY_HV]),
			 off + full + cap + growing, off, full, cap, growing,
			 max_tasks(), per_uid(), capacity(),
			 sizeof(struct sld_task),
			 atomic_long_read(&n_grow_failed),
			 READ_ONCE(key_held), READ_ONCE(ready), calls, handovers);
}

/* ---- knobs: max_tasks, tasks_per_uid ------------------------------------------------ */

/*
 * max_tasks bounds the records (protected tasks) alive at once. Lowering
 * it below the live count is accepted and only caps: no record is taken
 * away, new ones are refused until fewer are alive, and memory already
 * allocated stays until unload. Raising it lets the pool grow on demand.
 */
static int max_tasks_set(const char *val, const char **why)
{
	int v;
	const struct sld_knob_schema *s = &sld_knob_schema[SLD_KN_MAX_TASKS];
	int err = sld_parse_int(val, s->min, s->max, &v, why);

	if (err)
		return err;
	WRITE_ONCE(max_tasks_knob, v);
	/* Raised: room for new records now, not at the next refusal. */
	if (READ_ONCE(setup_done))
		schedule_work(&grow_work);
	return 0;
}

static int max_tasks_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", max_tasks());
}

static struct sld_knob knob_max_tasks = {
	.schema = &sld_knob_schema[SLD_KN_MAX_TASKS],
	.set = max_tasks_set, .show = max_tasks_show,
};
SLD_KNOB(max_tasks, knob_max_tasks);

static int per_uid_set(const char *val, const char **why)
{
	int v;
	const struct sld_knob_schema *s = &sld_knob_schema[SLD_KN_TASKS_PER_UID];
	int err = sld_parse_int(val, s->min, s->max, &v, why);

	if (!err)
		WRITE_ONCE(per_uid_knob, v);
	return err;
}

static int per_uid_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", per_uid());
}

static struct sld_knob knob_per_uid = {
	.schema = &sld_knob_schema[SLD_KN_TASKS_PER_UID],
	.set = per_uid_set, .show = per_uid_show,
};
SLD_KNOB(tasks_per_uid, knob_per_uid);
