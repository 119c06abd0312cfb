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
 * Who is protected is decided above this file, by the owners (struct
 * sld_owner, task_sld.h): exempt.c for its rule kinds, hvwatch.c for each
 * watched hypervisor module. They push what they need (sld_task_need),
 * protect tasks on their own behalf (sld_task_protect) and release them
 * (sld_task_release); a record remembers its owner as data, for names
 * and counters, and this file calls no owner back.
 *
 * A record ends at do_exit (a kprobe), when exec starts a program that no
 * exemption matches (for exempted tasks; exempt.c's probe asks), or when
 * sld_compat is disabled or unloaded: then every record is detached under
 * stop_machine(), where no CPU is inside a context switch, and SLD goes
 * back to the kernel's state; dmesg names the tasks that lost protection.
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
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "sld_compat.h"
#include "core_msr.h"
#include "degraded.h"
#include "hooks.h"
#include "knobs.h"
#include "task_sld.h"

struct sld_task {
	struct preempt_notifier pn;
	struct sld_task *next_free;	/* on the free list */
	struct task_struct *task;
	kuid_t uid;		/* counted for this uid (see admit()) */
	pid_t pid;
	char comm[TASK_COMM_LEN];
	enum sld_why why;
	struct sld_owner *hv;	/* the hypervisor owner, or NULL */
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

/* key, ready, detach, needs (lock order: knobs.c) */
static DEFINE_MUTEX(task_mutex);
static bool key_held, setup_done;	/* task_mutex */
static unsigned int nneed;		/* task_mutex: owners in need */
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

static DEFINE_RAW_SPINLOCK(pool_lock);	/* everything below; innermost */
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
	/* Pairs with add_chunk()'s release: a counted chunk is fully built. */
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
	/* Publish the chunk only after its records and chunks[] are set. */
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
 * why and hv are set under the lock: sld_task_release() reads a used
 * record's under it, never a previous owner's.
 */
static struct sld_task *pool_get(enum sld_why why, struct sld_owner *hv,
				 enum refusal *refused)
{
	kuid_t uid = current_uid();
	struct sld_task *t = NULL;
	struct uid_count *slot;
	unsigned long flags;
	bool more;

	raw_spin_lock_irqsave(&pool_lock, flags);
	*refused = admit(!!hv, uid, &slot);
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
		if (!hv) {
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
static void become_hv(struct sld_task *t, struct sld_owner *hv)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pool_lock, flags);
	leave_exempt_share(t);
	WRITE_ONCE(t->hv, hv);
	WRITE_ONCE(t->why, SLD_WHY_HV);
	raw_spin_unlock_irqrestore(&pool_lock, flags);
	atomic_long_inc(&hv->tasks);
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

static void revive(struct sld_task *t, enum sld_why why,
		   struct sld_owner *hv)
{
	unsigned long flags;

	if (hv) {
		become_hv(t, hv);
	} else {
		/*
		 * Forget a hypervisor it was released from: that slot may
		 * be another module's by now, whose counters and pin this
		 * task must not touch, and with an owner left here a later
		 * ioctl to a watched hypervisor would not make it that
		 * hypervisor's task (sld_task_protect()).
		 */
		raw_spin_lock_irqsave(&pool_lock, flags);
		WRITE_ONCE(t->hv, NULL);
		WRITE_ONCE(t->why, why);
		raw_spin_unlock_irqrestore(&pool_lock, flags);
	}
	start_running(t);
	count_protection(why);
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
 * The kernel log names each task when it is first protected, and on
 * whose behalf: a task that never traps again (a protected vCPU) would
 * otherwise never appear there. Rate-limited: a VM start protects one
 * task per vCPU at once.
 */
static const char *const rule_knobs[] = {
	[SLD_WHY_COMM] = "exempt_comm rule", [SLD_WHY_PATH] = "exempt_path rule",
	[SLD_WHY_CGROUP] = "exempt_cgroup rule", [SLD_WHY_HV] = "hypervisor module",
};
static DEFINE_RATELIMIT_STATE(say_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

static void say_protected(const struct sld_owner *o, const char *rule)
{
	const char *comm = current->comm;

	if (!__ratelimit(&say_rs))
		return;
	pr_info("protecting %*pE[%d]: %s %s\n",
		(int)strnlen(comm, TASK_COMM_LEN), comm, task_pid_nr(current),
		rule_knobs[o->why], rule ? rule : o->name);
}

/*
 * Protect current on behalf of o from now on: SLD off on this core at
 * once, then per switch. 0 if protected (already or now). A task that is
 * protected already becomes a hypervisor's if o is one; otherwise it
 * keeps the owner it has.
 */
static int protect(struct sld_owner *o, const char *rule)
{
	enum sld_why why = o->why;
	struct sld_owner *hv = why == SLD_WHY_HV ? o : NULL;
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
		if (hv && !t->hv)
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
	if (hv) {
		atomic_long_inc(&hv->tasks);
		pin(t);
	}
	preempt_notifier_init(&t->pn, &task_ops);
	preempt_notifier_register(&t->pn);
	count_protection(why);
	start_running(t);
	say_protected(o, rule);
	return 0;
}

int sld_task_protect_as(struct sld_owner *o, const char *rule, bool ahead)
{
	int err = protect(o, rule);

	if (!err && ahead)
		atomic_long_inc(&n_proactive);
	return err;
}

int sld_task_protect(struct sld_owner *o)
{
	return protect(o, NULL);
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
 * A split lock by current, which is protected: count it, for its
 * hypervisor too, and warn once per task.
 */
void sld_task_ac(bool guest)
{
	struct sld_task *t = find_current();

	if (!t)
		return;
	if (guest)
		t->ac_guest++;
	else
		t->ac_user++;
	if (t->hv && READ_ONCE(t->why) == SLD_WHY_HV)
		atomic_long_inc(guest ? &t->hv->ac_guest : &t->hv->ac_user);
	if (!t->warned) {
		t->warned = true;
		pr_warn_ratelimited("split lock by %s task %s[%d]: handled in warn mode without penalty, SLD off while it runs\n",
				    why_names[t->why], t->comm, t->pid);
	}
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
	for (c = 0; c < capacity() / CHUNK; c++) {
		/* The lock per chunk: irqs off for CHUNK records at most. */
		raw_spin_lock_irqsave(&pool_lock, flags);
		for (i = 0; i < CHUNK; i++) {
			struct sld_task *t = &chunks[c][i];

			if (t->used && !t->detached &&
			    READ_ONCE(t->why) == why &&
			    (why != SLD_WHY_HV || READ_ONCE(t->hv) == hv)) {
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

/* ---- the task's life: exit (our probe), exec and rename (exempt.c's) ------------ */

/* void do_exit(long code): the record goes with its task. */
static int exit_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sld_task *t;

	if (hlist_empty(&current->preempt_notifiers))
		return 0;
	t = find_current();
	if (t) {
		/* xchg: sld_task_release() may hand the pin to unpin_fn(). */
		bool pinned = xchg(&t->pinned, false);

		release(t);
		atomic_long_inc(&n_exited);
		if (pinned)
			unpin_last_act();
	}
	return 0;
}

static void take_comm(struct sld_task *t)
{
	memcpy(t->comm, current->comm, TASK_COMM_LEN);
	t->comm[TASK_COMM_LEN - 1] = '\0';
}

/*
 * current exec'd a new program (exempt.c's probe, which decides): its
 * record, if any, takes the new name, or goes when neither a hypervisor
 * holds it nor an exemption matches the program (exempt false).
 */
void sld_task_exec(bool exempt)
{
	struct sld_task *t = find_current();

	if (!t)
		return;
	if (t->why != SLD_WHY_HV && !exempt) {
		release(t);
		atomic_long_inc(&n_exec_dropped);
		return;
	}
	take_comm(t);
}

/* current named itself (exempt.c's probe): the record follows. */
void sld_task_renamed(void)
{
	struct sld_task *t = find_current();

	if (t)
		take_comm(t);
}

static struct sld_hook hook_exit = {
	.name = "task-exit", .symbol = "do_exit", .pre = exit_pre,
};

/* ---- the key, readiness and detaching ---------------------------------------------- */

/* A hypervisor owner's module name, "-" for none. */
static void owner_name(const struct sld_owner *o, char *buf, size_t size)
{
	const char *name = o ? o->name : "";

	strscpy(buf, name[0] ? name : "-", size);
}

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
			owner_name(t->hv, hv, sizeof(hv));
			pr_warn("  detached %s[%d], a task of hypervisor %s: its guest may now receive split-lock #AC\n",
				t->task->comm, task_pid_nr(t->task), hv);
			nhv++;
		}
		/* xchg: sld_task_release() may take the pin meanwhile. */
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

/* Can any task be protected at all? Known after sld_hooks_init(). */
bool sld_task_possible(void)
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
 * task_mutex held. Hold the preempt-notifier key while some owner needs
 * it (and enabled=Y); detach everything when disabled.
 */
static void refresh_locked(void)
{
	bool enabled, need;

	if (!setup_done || !sld_task_possible())
		return;
	enabled = READ_ONCE(sld_knobs.enabled);
	need = enabled && nneed;
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
}

/*
 * Sleepable: `enabled` changed, or a record's key may go (key_work).
 * Everything is read under the mutex: a refresh that saw setup_done
 * before sld_task_exit() detached everything would otherwise take the
 * key again afterwards and let records be made that nothing detaches;
 * one that read the needs before a concurrent refresh would undo that
 * refresh's newer answer.
 */
void sld_task_refresh(void)
{
	mutex_lock(&task_mutex);
	refresh_locked();
	mutex_unlock(&task_mutex);
}

/*
 * Sleepable. Owner o needs the engine (need) or no longer does: it has
 * rules, or a watched module. Each owner's need is counted once.
 */
void sld_task_need(struct sld_owner *o, bool need)
{
	mutex_lock(&task_mutex);
	if (o->need != need) {
		o->need = need;
		if (need)
			nneed++;
		else
			nneed--;
	}
	refresh_locked();
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
	return 0;
}

/* After sld_hooks_init(). */
void sld_task_init(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS) && !hook_exit.registered)
		sld_degrade("per-task", "no do_exit probe: a record could outlive its task, so no task is protected");
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
	if (sld_task_possible())
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
		owner_name(t.hv, hv, sizeof(hv));
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

#define IN_USE_OWNERS	16	/* hvwatch.c's modules (HV_MAX) */

struct owner_count {
	struct sld_owner *o;
	unsigned int n;
};

/*
 * One more pinning task of o. by[] is kept in address order, which is
 * hvwatch.c's slot order. False when by[] is full.
 */
static bool count_owner(struct owner_count *by, unsigned int *nby,
			struct sld_owner *o)
{
	unsigned int i = 0;

	while (i < *nby && by[i].o < o)
		i++;
	if (i < *nby && by[i].o == o) {
		by[i].n++;
		return true;
	}
	if (*nby == IN_USE_OWNERS)
		return false;
	memmove(&by[i + 1], &by[i], (*nby - i) * sizeof(*by));
	by[i].o = o;
	by[i].n = 1;
	(*nby)++;
	return true;
}

/*
 * Why sld_compat is in use, as far as it holds references on itself:
 * "MODULE tasks=N" per hypervisor whose protected tasks pin it, or
 * "none". References others hold (a vendor's symbol_get(), modules linked
 * against it) are the rest of /sys/module/sld_compat/refcnt.
 */
int sld_task_in_use_show(char *buf, size_t size)
{
	struct owner_count by[IN_USE_OWNERS];
	unsigned int id, i, nby = 0, other = 0;
	char hv[MODULE_NAME_LEN];
	struct sld_owner *o;
	unsigned long flags;
	int n = 0;

	for (id = 0; id < capacity(); id++) {
		o = NULL;
		raw_spin_lock_irqsave(&pool_lock, flags);
		if (rec(id)->used && rec(id)->pinned)
			o = rec(id)->hv;
		raw_spin_unlock_irqrestore(&pool_lock, flags);
		if (o && !count_owner(by, &nby, o))
			other++;
	}
	for (i = 0; i < nby; i++) {
		owner_name(by[i].o, hv, sizeof(hv));
		n += scnprintf(buf + n, size - n, "%s tasks=%u\n", hv,
			       by[i].n);
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
