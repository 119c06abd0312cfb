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
 * - fork needs none: a child starts with no notifiers (sched_fork), and
 *   is protected on its own (an exemption's probe at clone or start).
 * The alternatives were worse: a kprobe on the context switch costs every
 * switch of every task; TIF-flag tricks (the 2020 seeds' TIF_SLD) need the
 * kernel's cooperation, which it removed in 5.19.
 *
 * A notifier can only be added by the task itself, which suits us: every
 * way into protection runs in the task (its #AC, its ioctl, its exec, a
 * vendor's guest entry), but one: a new task an exemption matches gets
 * its record from its parent at clone, before it was ever woken, when
 * nothing else can touch its notifier list (sld_task_protect_new()).
 * All of them are kprobe handlers, where even
 * GFP_ATOMIC is not allowed on PREEMPT_RT, so records come from a pool
 * that grows ahead of demand (see task/pool.c, which also says who
 * may take a record: exempt tasks, which any user can obtain under each
 * of its uids, are counted apart from hypervisor tasks and can never
 * take what those need, neither the pool's reserve nor the per-uid
 * counts). A record holds a reference on its task up to the task's last
 * switch (where notifier.c unlinks it), so that a record whose task died
 * unseen (kprobes switched off system-wide) still points at a live
 * task_struct when it is detached.
 *
 * Who is protected is decided above this file, by the owners (struct
 * sld_owner, task/task.h): exempt.c for its rule kinds, hvwatch.c for each
 * watched hypervisor module. They push what they need (sld_task_need),
 * protect tasks on their own behalf (sld_task_protect) and release them
 * (sld_task_release); a record remembers its owner as data, for names
 * and counters, and this file calls no owner back.
 *
 * A record ends at do_exit (a kprobe; one that holds its core, at the
 * task's last switch after it: notifier.c), when exec starts a program
 * that no exemption matches (for exempted tasks; exempt.c's probe asks)
 * or runs it as a uid at its cap (sld_task_exec()),
 * or when sld_compat is disabled or unloaded: then every record is
 * detached under stop_machine(), where no CPU is inside a context switch,
 * and SLD goes back to the kernel's state; dmesg names the tasks that
 * lost protection.
 *
 * Pins: a record protected for a hypervisor keeps sld_compat loaded;
 * task/pins.c says how, and why its puts are safe.
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
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "engine/msr/core_msr.h"
#include "engine/task/internal.h"
#include "engine/task/task.h"
#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "knobs/switches.h"
#include "schema/escape.h"

/* key, ready, detach, needs: tk_task_mutex (task/pool.c) */
bool tk_key_held;				/* tk_task_mutex */
static unsigned int nneed;		/* tk_task_mutex: owners in need */
static bool key_wanted;			/* the last refresh's need */
bool tk_ready;				/* protect() may add records */
atomic_long_t tk_n_protected, tk_n_exited, tk_n_exec_dropped, tk_n_proactive;
atomic_long_t tk_n_by_why[SLD_WHY_HV + 1];	/* protections per rule */
atomic_long_t tk_n_detached, tk_n_refused_off, tk_n_refused_full;
atomic_long_t tk_n_refused_cap, tk_n_refused_growing, tk_n_refused_nomem;
atomic_long_t tk_n_refused_admin;

const char *const tk_why_names[] = {
	[SLD_WHY_NONE] = "released", [SLD_WHY_COMM] = "exempt-comm",
	[SLD_WHY_PATH] = "exempt-path", [SLD_WHY_CGROUP] = "exempt-cgroup",
	[SLD_WHY_RUN] = "run", [SLD_WHY_HV] = "hypervisor",
};

/* ---- protect / release (current task, preemption off) --------------------------- */

bool sld_task_protected(void)
{
	struct sld_task *t;

	if (hlist_empty(&current->preempt_notifiers))
		return false;
	t = tk_find_current();
	return t && READ_ONCE(t->why) != SLD_WHY_NONE;
}

/* tk_pool_lock held: an exempt record's count moves to tk_uids_hv, if it may. */
static bool move_to_hv_table(struct sld_task *t)
{
	return t->counted != &tk_uids_exempt ||
	       tk_uid_move(t, &tk_uids_hv, t->uid);
}

/*
 * tk_pool_lock: a record protected for a hypervisor from now on; false if
 * its uid is at its cap of hypervisor records (nothing changed).
 */
static bool become_hv(struct sld_task *t, struct sld_owner *hv)
{
	unsigned long flags;
	bool moved;

	raw_spin_lock_irqsave(&tk_pool_lock, flags);
	moved = move_to_hv_table(t);
	if (moved) {
		tk_leave_exempt_share(t);
		WRITE_ONCE(t->hv, hv);
		WRITE_ONCE(t->why, SLD_WHY_HV);
	}
	raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	if (!moved)
		return false;
	atomic_long_inc(&hv->tasks);
	tk_pin(t);
	return true;
}

static void count_protection(enum sld_why why)
{
	atomic_long_inc(&tk_n_protected);
	atomic_long_inc(&tk_n_by_why[why]);
}

/* The kind of rule a task was protected (or refused) under, for dmesg. */
static const char *const rule_knobs[] = {
	[SLD_WHY_COMM] = "exempt_comm rule", [SLD_WHY_PATH] = "exempt_path rule",
	[SLD_WHY_CGROUP] = "exempt_cgroup rule", [SLD_WHY_RUN] = "sldctl run",
	[SLD_WHY_HV] = "hypervisor module",
};

/*
 * Bytes of a run's rule dmesg shows, escaped: it is the name of a user's
 * scope (any bytes but '/'). The other rules are root's knob entries,
 * printable ASCII by their grammar (schema/entries.c), shown as written,
 * so that the log names a rule as the admin wrote it: the libvirt rule's
 * '\x2d' stays itself.
 */
#define RULE_SHOWN	96

struct rule_text {
	char s[SLD_ESC_SIZE(RULE_SHOWN) + 3];
};

/* o's rule (NULL: a hypervisor, its module's name) as dmesg shows it. */
static const char *rule_text(struct rule_text *out, const struct sld_owner *o,
			     const char *rule)
{
	const char *s = rule ? rule : o->name;
	size_t took = strlen(s);

	if (o->why != SLD_WHY_RUN)
		return s;
	took = sld_esc(out->s, sizeof(out->s) - 3, s, RULE_SHOWN, 0);
	if (s[took])
		strcat(out->s, "...");
	return out->s;
}

/*
 * The kernel log names each task when it is first protected, and on
 * whose behalf: a task that never traps again (a protected vCPU) would
 * otherwise never appear there. Rate-limited: a VM start protects one
 * task per vCPU at once.
 */
static DEFINE_RATELIMIT_STATE(say_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

static void say_protected(struct task_struct *task, const struct sld_owner *o,
			  const char *rule)
{
	char comm[COMM_ESC_LEN];
	struct rule_text r;

	if (!__ratelimit(&say_rs))
		return;
	sld_comm_escape(comm, task->comm);
	pr_info("protecting %s[%d]: %s %s\n", comm, task_pid_nr(task),
		rule_knobs[o->why], rule_text(&r, o, rule));
}

/*
 * A refusal is logged with its reason and rule once per reason and class
 * (the admin's rules, the others) until a task of that class is
 * protected again, within the rate limit (one left unsaid for it is said
 * at the next): a refused task asks again at each split lock and rename.
 * Under a rule only root can satisfy it is an error (sldctl doctor says
 * what to change).
 */
static const char *const refusal_why[] = {
	[REFUSE_FULL] = "the pool's bound reached (max_tasks or its exempt share; under a rule only root can satisfy, 262144 records)",
	[REFUSE_CAP] = "its uid's tasks_per_uid reached",
	[REFUSE_GROWING] = "no free record yet: the pool is growing",
	[REFUSE_NOMEM] = "no free record: the pool could not grow (out of memory)",
};
static unsigned long refusal_said[2];	/* a bit per reason, per class */
static DEFINE_RATELIMIT_STATE(refuse_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

/* noinline: its buffers stay out of protect()'s frame (probe handlers). */
static noinline void say_refused(enum refusal why, struct task_struct *task,
				 const struct sld_owner *o, const char *rule,
				 bool admin)
{
	char comm[COMM_ESC_LEN];
	struct rule_text r;

	/* Said already, or said too often now: this one is left unsaid. */
	if (test_bit(why, &refusal_said[admin]) || !__ratelimit(&refuse_rs) ||
	    test_and_set_bit(why, &refusal_said[admin]))
		return;
	sld_comm_escape(comm, task->comm);
	if (admin)
		pr_err("not protecting %s[%d] (uid %u): %s, under %s %s, which only root can satisfy\n",
		       comm, task_pid_nr(task),
		       from_kuid(&init_user_ns, current_uid()), refusal_why[why],
		       rule_knobs[o->why], rule_text(&r, o, rule));
	else
		pr_warn("not protecting %s[%d] (uid %u): %s, under %s %s\n",
			comm, task_pid_nr(task),
			from_kuid(&init_user_ns, current_uid()), refusal_why[why],
			rule_knobs[o->why], rule_text(&r, o, rule));
}

/* A task of the class was protected: its next refusal is logged again. */
static void refusals_over(bool admin)
{
	if (READ_ONCE(refusal_said[admin]))
		WRITE_ONCE(refusal_said[admin], 0);
}

static int refuse(enum refusal why, struct task_struct *task,
		  const struct sld_owner *o, const char *rule, bool admin)
{
	static atomic_long_t *const counter[] = {
		[REFUSE_FULL] = &tk_n_refused_full,
		[REFUSE_CAP] = &tk_n_refused_cap,
		[REFUSE_GROWING] = &tk_n_refused_growing,
		[REFUSE_NOMEM] = &tk_n_refused_nomem,
	};

	say_refused(why, task, o, rule, admin);
	atomic_long_inc(counter[why]);
	if (admin)
		atomic_long_inc(&tk_n_refused_admin);
	return -ENOSPC;
}

/*
 * A released record protects its task again (current, preemption off).
 * It keeps its place in the pool: a hypervisor record stays in the
 * reserve's count (and in tk_uids_hv) even when it comes back as an exempt
 * one, an admin record stays one (pool.c). 0, or -ENOSPC: for a
 * hypervisor, over its uid's cap.
 */
static int revive(struct sld_task *t, struct sld_owner *o)
{
	enum sld_why why = o->why;
	struct sld_owner *hv = why == SLD_WHY_HV ? o : NULL;
	unsigned long flags;

	WRITE_ONCE(t->since, ktime_get_boottime_seconds());
	if (hv) {
		if (!become_hv(t, hv))
			return refuse(REFUSE_CAP, current, o, NULL, false);
	} else {
		/*
		 * Forget a hypervisor it was released from: that slot may
		 * be another module's by now, whose counters and pin this
		 * task must not touch, and with an owner left here a later
		 * ioctl to a watched hypervisor would not make it that
		 * hypervisor's task (sld_task_protect()).
		 */
		raw_spin_lock_irqsave(&tk_pool_lock, flags);
		WRITE_ONCE(t->hv, NULL);
		WRITE_ONCE(t->why, why);
		raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	}
	tk_start_running(t);
	count_protection(why);
	return 0;
}

/* The record shows task's name as it is now. */
static void take_comm(struct sld_task *t, const struct task_struct *task)
{
	memcpy(t->comm, task->comm, TASK_COMM_LEN);
	t->comm[TASK_COMM_LEN - 1] = '\0';
}

/* No record can be made now (disabled, unloading, nothing to protect). */
static bool engine_off(void)
{
	if (READ_ONCE(tk_ready))
		return false;
	atomic_long_inc(&tk_n_refused_off);
	return true;
}

/*
 * A new record for task, on behalf of o: current (preemption off), or a
 * new task that has not run yet (sld_task_protect_new()), whose notifier
 * list nothing else touches until it is woken. The record counts for
 * current's uid, which a new task has from its parent. Current takes its
 * core's hold now; a new task at its first switch in, which is a
 * handover, no write, when its protected parent switches to it.
 */
static int attach(struct task_struct *task, struct sld_owner *o,
		  const char *rule, bool admin)
{
	struct sld_owner *hv = o->why == SLD_WHY_HV ? o : NULL;
	enum refusal refused;
	struct sld_task *t;

	t = tk_pool_get(task, o->why, hv, admin, &refused);
	if (!t)
		return refuse(refused, task, o, rule, admin);
	refusals_over(admin);
	t->since = ktime_get_boottime_seconds();
	take_comm(t, task);
	if (hv) {
		atomic_long_inc(&hv->tasks);
		tk_pin(t);
	}
	preempt_notifier_init(&t->pn, &tk_task_ops);
	if (task == current)
		preempt_notifier_register(&t->pn);
	else
		hlist_add_head(&t->pn.link, &task->preempt_notifiers);
	count_protection(o->why);
	if (task == current)
		tk_start_running(t);
	say_protected(task, o, rule);
	return 0;
}

/*
 * Protect current on behalf of o from now on: SLD off on this core at
 * once, then per switch. 0 if protected (already or now). A task that is
 * protected already becomes a hypervisor's if o is one; otherwise it
 * keeps the owner it has.
 */
static int protect(struct sld_owner *o, const char *rule, bool admin)
{
	struct sld_owner *hv = o->why == SLD_WHY_HV ? o : NULL;
	struct sld_task *t;

	if (engine_off())
		return -EAGAIN;
	t = tk_find_current();
	if (t && READ_ONCE(t->why) == SLD_WHY_NONE)
		return revive(t, o);
	if (t) {
		/*
		 * Over its uid's cap it stays protected as it was. A release
		 * may have come since the check above: a record it made a
		 * hypervisor's takes its hold now (tk_start_running() reads why
		 * with irqs off, so a release IPI is either before, and the
		 * hold is taken, or after, and drops it).
		 */
		if (hv && !t->hv && become_hv(t, hv))
			tk_start_running(t);
		return 0;
	}
	return attach(current, o, rule, admin);
}

int sld_task_protect_as(struct sld_owner *o, const char *rule, bool ahead,
			bool admin)
{
	int err = protect(o, rule, admin);

	if (!err && ahead)
		atomic_long_inc(&tk_n_proactive);
	return err;
}

int sld_task_protect(struct sld_owner *o)
{
	return protect(o, NULL, false);
}

/*
 * A new user task p, complete (its cgroup, name and mm are set) but not
 * yet woken, protected ahead of any split lock for an exemption its
 * parent's probe matched: from its first instruction, and with no MSR
 * write where its protected parent switches to it. Preemption off.
 */
int sld_task_protect_new(struct task_struct *p, struct sld_owner *o,
			 const char *rule, bool admin)
{
	int err;

	if (o->why == SLD_WHY_HV)
		return -EINVAL;	/* a hypervisor's tasks enter it themselves */
	if (engine_off())
		return -EAGAIN;
	err = attach(p, o, rule, admin);
	if (!err)
		atomic_long_inc(&tk_n_proactive);
	return err;
}

static void key_work_fn(struct work_struct *work)
{
	sld_task_refresh();
}
static DECLARE_WORK(key_work, key_work_fn);

/* Any context, after a record went: the key outlived its rule for it. */
static void key_unless_wanted(void)
{
	if (!tk_records() && !READ_ONCE(key_wanted))
		schedule_work(&key_work);
}

/* current only; the task reference is dropped later, never here. */
static void release(struct sld_task *t)
{
	preempt_notifier_unregister(&t->pn);
	if (t->running)
		sld_msr_task_out();
	/* current holds its own reference; ours cannot be the last. */
	put_task_struct(tk_pool_put(t));
	key_unless_wanted();
}

/*
 * A split lock by current, which is protected: count it, for its
 * hypervisor too, and warn once per task.
 */
void sld_task_ac(bool guest)
{
	struct sld_task *t = tk_find_current();

	if (!t)
		return;
	if (guest)
		t->ac_guest++;
	else
		t->ac_user++;
	if (t->hv && READ_ONCE(t->why) == SLD_WHY_HV)
		atomic_long_inc(guest ? &t->hv->ac_guest : &t->hv->ac_user);
	if (!t->warned) {
		char comm[COMM_ESC_LEN];

		t->warned = true;
		sld_comm_escape(comm, t->comm);
		pr_warn_ratelimited("split lock by %s task %s[%d]: handled in warn mode without penalty, SLD off while it runs\n",
				    tk_why_names[t->why], comm, t->pid);
	}
}

/*
 * The #DB comes after the instruction: nothing to switch, one line per
 * task, apart from its #AC line, as the two say different things.
 */
void sld_task_bus_lock(void)
{
	struct sld_task *t = tk_find_current();
	char comm[COMM_ESC_LEN];

	if (!t)
		return;
	if (t->bl_warned)
		return;
	t->bl_warned = true;
	sld_comm_escape(comm, t->comm);
	pr_warn_ratelimited("bus lock by %s task %s[%d]: #DB handled without the kernel's penalty (no ratelimit sleep, no SIGBUS)\n",
			    tk_why_names[t->why], comm, t->pid);
}

/* ---- the task's life: exit (our probe), exec and rename (exempt.c's) ------------ */

/*
 * void do_exit(long code): the record goes with its task. One that holds
 * its core stays to the task's last switch (notifier.c), so that a
 * protected thread ending under a protected parent hands the hold back
 * without a write, as QEMU's worker pool makes and ends threads all the
 * time; reap() below returns it to the pool.
 */
static int exit_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sld_task *t;

	if (hlist_empty(&current->preempt_notifiers))
		return 0;
	t = tk_find_current();
	if (t) {
		/* xchg: sld_task_release() may hand the pin to unpin_fn(). */
		bool pinned = xchg(&t->pinned, false);

		/* A released one holds nothing: it goes now. */
		if (!t->running || !tk_pool_exiting(t))
			release(t);
		atomic_long_inc(&tk_n_exited);
		if (pinned)
			tk_unpin_last_act();
	}
	return 0;
}

/*
 * Hard irq, after their tasks' last switch: the records of tasks that
 * died protected, already off their tasks and unreferenced (notifier.c
 * retired them), back to the pool. The last one lets the key go, as
 * release() does; a pin the exit probe did not drop (kprobes were off
 * system-wide) goes in unpin_fn().
 */
static void reap(struct llist_node *first)
{
	struct sld_task *t, *next;
	unsigned int npins = 0;

	llist_for_each_entry_safe(t, next, first, dead) {
		npins += xchg(&t->pinned, false);
		tk_pool_put(t);
	}
	tk_unpin_later(npins);
	key_unless_wanted();
}

/*
 * current exec'd a new program (exempt.c's probe, which decides): its
 * record, if any, takes the new name and counts for the uid current runs
 * as now (pool.c), or goes when neither a hypervisor holds it nor an
 * exemption matches the program (o NULL, else o's rule; admin: a rule
 * only root can satisfy), or when only a rule a user can satisfy holds
 * it and the uid is at its cap: refused as a new task would be, and
 * true, so that the caller does not ask again now. Over the cap a
 * hypervisor's record stays as it was (its guest is not left to the
 * kernel's #AC), and so does one the admin's rule holds.
 */
bool sld_task_exec(const struct sld_owner *o, const char *rule, bool admin)
{
	struct sld_task *t = tk_find_current();
	bool hv;

	if (!t)
		return false;
	hv = READ_ONCE(t->why) == SLD_WHY_HV;
	if (!hv && !o) {
		release(t);
		atomic_long_inc(&tk_n_exec_dropped);
		return false;
	}
	if (!tk_pool_recount(t, current_uid()) && !hv && !admin) {
		refuse(REFUSE_CAP, current, o, rule, false);
		release(t);
		atomic_long_inc(&tk_n_exec_dropped);
		return true;
	}
	take_comm(t, current);
	return false;
}

/* current named itself (exempt.c's probe): the record follows. */
void sld_task_renamed(void)
{
	struct sld_task *t = tk_find_current();

	if (t)
		take_comm(t, current);
}

static struct sld_hook hook_exit = {
	.name = "task-exit", .symbol = "do_exit", .pre = exit_pre,
};

/* ---- the key, readiness and detaching ---------------------------------------------- */

/* A hypervisor owner's module name, "-" for none. */
void tk_owner_name(const struct sld_owner *o, char *buf, size_t size)
{
	const char *name = o ? o->name : "";

	strscpy(buf, name[0] ? name : "-", size);
}

/*
 * Under stop_machine: no CPU is in a context switch or in our handlers.
 * Records leave live tasks only here (a dead task's at its last switch,
 * retired); say_detached() frees them after, where it may sleep and
 * print.
 */
static int detach_fn(void *unused)
{
	unsigned int id, cpu;

	for (id = 0; id < tk_capacity(); id++) {
		struct sld_task *t = tk_rec(id);

		/* A retired record is the reaper's (tk_retire_sync() after). */
		if (!t->used || t->detached || t->retired)
			continue;
		hlist_del(&t->pn.link);
		t->detached = true;
	}
	for_each_possible_cpu(cpu)
		per_cpu(tk_handed, cpu) = NULL;
	sld_msr_drop_task_holds();
	return 0;
}

/* Names the detached tasks, frees their records; returns their pins. */
static unsigned int say_detached(const char *why)
{
	unsigned int id, n = 0, nhv = 0, npins = 0;
	char hv[MODULE_NAME_LEN], comm[COMM_ESC_LEN];

	pr_info("%s: %u protected task(s) detached, SLD back to the kernel's state for them\n",
		why, tk_live());
	for (id = 0; id < tk_capacity(); id++) {
		struct sld_task *t = tk_rec(id);

		if (!t->used || !t->detached)
			continue;
		/* Its task was in do_exit: counted as exited, lost nothing. */
		if (t->exiting) {
			put_task_struct(tk_pool_put(t));
			continue;
		}
		sld_comm_escape(comm, t->task->comm);
		if (t->why != SLD_WHY_HV) {
			pr_info("  detached %s[%d]\n", comm,
				task_pid_nr(t->task));
		} else {
			tk_owner_name(t->hv, hv, sizeof(hv));
			pr_warn("  detached %s[%d], a task of hypervisor %s: its guest may now receive split-lock #AC\n",
				comm, task_pid_nr(t->task), hv);
			nhv++;
		}
		/* xchg: sld_task_release() may take the pin meanwhile. */
		npins += xchg(&t->pinned, false);
		put_task_struct(tk_pool_put(t));
		n++;
	}
	if (nhv)
		pr_warn("%s: %u hypervisor task(s) lost protection: their guests may now receive split-lock #AC\n",
			why, nhv);
	atomic_long_add(n, &tk_n_detached);
	return npins;
}

/* Can any task be protected at all? Known after sld_hooks_init(). */
bool sld_task_possible(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS) && hook_exit.registered;
}

/* tk_task_mutex held. Stop new records, wait out the ones being made. */
static void stop_protecting(void)
{
	WRITE_ONCE(tk_ready, false);
	synchronize_rcu();	/* handlers run with preemption off */
}

static void detach_all(const char *why)
{
	stop_protecting();
	if (tk_records()) {
		stop_machine(detach_fn, NULL, NULL);
		tk_unpin_detached(say_detached(why));
	}
	sld_msr_sync_all();
	if (tk_key_held) {
		tk_key_held = false;
		preempt_notifier_dec();
	}
}

/*
 * tk_task_mutex held. Hold the preempt-notifier key while some owner needs
 * it (and enabled=Y); detach everything when disabled.
 */
static void refresh_locked(void)
{
	bool enabled, need;

	if (!tk_setup_done || !sld_task_possible())
		return;
	enabled = READ_ONCE(sld_knobs.enabled);
	need = enabled && nneed;
	WRITE_ONCE(key_wanted, need);
	if (!enabled) {
		detach_all("disabled");
	} else if (need && !tk_key_held) {
		preempt_notifier_inc();
		tk_key_held = true;
	} else if (!need && tk_key_held && !tk_records()) {
		/*
		 * Records keep the key, a dying task's to its last switch: no
		 * grace period on every refresh.
		 */
		stop_protecting();
		if (!tk_records()) {
			tk_key_held = false;
			preempt_notifier_dec();
		}
	}
	WRITE_ONCE(tk_ready, tk_key_held && enabled);
}

/*
 * Sleepable: `enabled` changed, or a record's key may go (key_work).
 * Everything is read under the mutex: a refresh that saw tk_setup_done
 * before sld_task_exit() detached everything would otherwise take the
 * key again afterwards and let records be made that nothing detaches;
 * one that read the needs before a concurrent refresh would undo that
 * refresh's newer answer.
 */
void sld_task_refresh(void)
{
	mutex_lock(&tk_task_mutex);
	refresh_locked();
	mutex_unlock(&tk_task_mutex);
}

/*
 * Sleepable. Owner o needs the engine (need) or no longer does: it has
 * rules, or a watched module. Each owner's need is counted once.
 */
void sld_task_need(struct sld_owner *o, bool need)
{
	mutex_lock(&tk_task_mutex);
	if (o->need != need) {
		o->need = need;
		if (need)
			nneed++;
		else
			nneed--;
	}
	refresh_locked();
	mutex_unlock(&tk_task_mutex);
}

/* ---- init / exit ----------------------------------------------------------------- */

/* Before sld_hooks_init(). */
int sld_task_setup(void)
{
	int err;

	tk_retire_init(reap);
	if (!IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS)) {
		sld_degrade("per-task", "kernel built without CONFIG_PREEMPT_NOTIFIERS: no task can be protected");
		return 0;
	}
	/* The first chunk now: protection works from the first task on. */
	err = tk_grow();
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
	mutex_lock(&tk_task_mutex);
	WRITE_ONCE(tk_setup_done, true);
	mutex_unlock(&tk_task_mutex);
	sld_task_refresh();
}

/*
 * Before sld_hooks_exit(): detach while the hooks still run. On a normal
 * unload no record holds a pin (the refcount was zero); records still
 * pinned mean a forced one.
 */
void sld_task_exit(void)
{
	/* The last pin's put may still be returning: see task/pins.c. */
	synchronize_rcu();
	flush_work(&tk_unpin_work);
	mutex_lock(&tk_task_mutex);
	WRITE_ONCE(tk_setup_done, false);
	if (sld_task_possible())
		detach_all(atomic_read(&tk_n_pinned) ? "unloading (forced)" : "unloading");
	mutex_unlock(&tk_task_mutex);
	/* Nothing retires now (no record on a live task): reap the rest. */
	tk_retire_sync();
	flush_work(&tk_unpin_work);
	/* No record is left to queue them again; both take tk_task_mutex. */
	cancel_work_sync(&key_work);
	cancel_work_sync(&tk_grow_work);
}

void sld_task_free(void)
{
	unsigned int c;

	cancel_work_sync(&tk_grow_work);
	for (c = 0; c < tk_nchunks; c++) {
		kvfree(tk_chunks[c]);
		tk_chunks[c] = NULL;
	}
	tk_nchunks = 0;
	tk_free_list = NULL;
	tk_nfree = 0;
}
