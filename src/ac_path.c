// SPDX-License-Identifier: GPL-2.0
/*
 * The #AC path for exempt tasks. Two kprobes sit on the kernel's split-lock
 * handlers: handle_user_split_lock (a task's own split lock) and
 * handle_guest_split_lock (KVM, for a guest without SLD). For a task whose
 * comm is listed in the `exempt_comm` knob the pre-handler does warn-mode
 * handling itself, without the kernel's penalties (the 10 ms sleep, the
 * global semaphore, SIGBUS), and makes the probed function return true
 * without running. For every other task it returns 0 and the kernel's own
 * code runs untouched.
 *
 * Matching is on the task's comm at #AC time, so it follows exec (which
 * sets comm from the new binary) and fork (the child inherits comm).
 *
 * Per-task SLD toggling is not done in this slice: the task is recorded as
 * wanting SLD off (in ac_tasks, and per CPU in core_msr's account, intent
 * only) and nothing switches the MSR. Returning "handled" on a CPU that really has SLD enabled would
 * return the task to the same locked instruction with SLD still on, an
 * endless #AC loop; so where sld_kernel.cpu_sld is true we do not take
 * over and count the event as a fallthrough instead. Under TCG cpu_sld is
 * never true and the takeover is what the VM suite exercises.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/objtool.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <asm/linkage.h>
#include <asm/processor-flags.h>

#include "sld_compat.h"
#include "knobs.h"

#define EXEMPT_MAX	32
#define NAME_MAX_LEN	(TASK_COMM_LEN - 1)
#define TASKS_MAX	32

/* ---- the exempt list ---------------------------------------------------- */

struct exempt_list {
	struct rcu_head rcu;
	unsigned int n;
	char name[EXEMPT_MAX][TASK_COMM_LEN];
};

static struct exempt_list __rcu *exempt;

/* Atomic context: called from the kprobe pre-handlers. */
static bool comm_exempt(const char *comm)
{
	const struct exempt_list *l;
	bool hit = false;
	unsigned int i;

	rcu_read_lock();
	l = rcu_dereference(exempt);
	for (i = 0; l && i < l->n && !hit; i++)
		hit = !strncmp(l->name[i], comm, TASK_COMM_LEN);
	rcu_read_unlock();
	return hit;
}

static int find_name(const struct exempt_list *l, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return i;
	return -1;
}

static int check_name(const char *s, const char **why)
{
	size_t len = strlen(s);
	size_t i;

	if (!len) {
		*why = "empty entry";
		return -EINVAL;
	}
	if (len > NAME_MAX_LEN) {
		*why = "name longer than 15 characters";
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (s[i] == ' ') {
			*why = "space in name";
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * "a,b,c" replaces the list; "+a,-b" edits it (every entry must then be an
 * edit); "-" alone clears it. All or nothing: on error nothing changes.
 * Called under the knobs mutex, which serialises every writer.
 */
static int exempt_comm_set(const char *val, const char **why)
{
	struct exempt_list *old, *l;
	bool edit = val[0] == '+' || val[0] == '-';
	char *buf, *p, *tok;
	int err = 0;

	old = rcu_dereference_protected(exempt, 1);
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	buf = kstrdup(val, GFP_KERNEL);
	if (!l || !buf) {
		err = -ENOMEM;
		goto out;
	}
	if (!strcmp(val, "-"))
		goto apply;
	if (edit && old) {
		memcpy(l->name, old->name, sizeof(l->name));
		l->n = old->n;
	}
	p = buf;
	while ((tok = strsep(&p, ","))) {
		bool add = true;
		int at;

		if (edit) {
			if (tok[0] != '+' && tok[0] != '-') {
				*why = "mix of names and +/- edits";
				err = -EINVAL;
				goto out;
			}
			add = *tok++ == '+';
		} else if (tok[0] == '+' || tok[0] == '-') {
			*why = "mix of names and +/- edits";
			err = -EINVAL;
			goto out;
		}
		err = check_name(tok, why);
		if (err)
			goto out;
		at = find_name(l, tok);
		if (!add) {
			if (at < 0) {
				*why = "removing a name that is not listed";
				err = -EINVAL;
				goto out;
			}
			memmove(l->name[at], l->name[at + 1],
				(l->n - at - 1) * sizeof(l->name[0]));
			l->n--;
			continue;
		}
		if (at >= 0) {
			*why = "duplicate name";
			err = -EINVAL;
			goto out;
		}
		if (l->n >= EXEMPT_MAX) {
			*why = "more than 32 names";
			err = -EINVAL;
			goto out;
		}
		strscpy(l->name[l->n++], tok, TASK_COMM_LEN);
	}
apply:
	rcu_assign_pointer(exempt, l);
	l = NULL;
	if (old)
		kfree_rcu(old, rcu);
out:
	kfree(buf);
	kfree(l);
	return err;
}

static int exempt_comm_show(char *buf, size_t size)
{
	const struct exempt_list *l = rcu_dereference_protected(exempt, 1);
	unsigned int i;
	int n = 0;

	if (!l || !l->n)
		return scnprintf(buf, size, "-\n");
	for (i = 0; i < l->n; i++)
		n += scnprintf(buf + n, size - n, "%s%s", i ? "," : "",
			       l->name[i]);
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}

static struct sld_knob knob_exempt_comm = {
	.name = "exempt_comm", .max_len = EXEMPT_MAX * (NAME_MAX_LEN + 2),
	.set = exempt_comm_set, .show = exempt_comm_show,
};
SLD_KNOB(exempt_comm, knob_exempt_comm,
	 "Comma list of task names whose split locks are handled in warn mode without penalty; +name/-name edit, - clears");

/* ---- counters and tasks seen -------------------------------------------- */

static atomic_long_t ac_user_handled, ac_guest_handled;
static atomic_long_t ac_user_passed, ac_guest_passed;
static atomic_long_t ac_fallthrough_cpu_sld, ac_tasks_dropped;

struct task_rec {
	pid_t pid;
	u64 start_time;		/* tells a reused pid from the old task */
	char comm[TASK_COMM_LEN];
	unsigned long user, guest;
};

/* raw: taken from the kprobe handlers, also on PREEMPT_RT. */
static DEFINE_RAW_SPINLOCK(tasks_lock);
static struct task_rec tasks[TASKS_MAX];
static unsigned int ntasks, next_slot;

/* Count the event for current; true if this task was not seen before. */
static bool task_note(bool guest)
{
	struct task_struct *t = current;
	struct task_rec *r = NULL;
	unsigned long flags;
	bool fresh = false;
	unsigned int i;

	raw_spin_lock_irqsave(&tasks_lock, flags);
	for (i = 0; i < ntasks; i++) {
		if (tasks[i].pid == t->pid &&
		    tasks[i].start_time == t->start_time) {
			r = &tasks[i];
			break;
		}
	}
	if (!r) {
		/* Full: reuse the slots in turn, oldest record first. */
		if (ntasks < TASKS_MAX) {
			r = &tasks[ntasks++];
		} else {
			r = &tasks[next_slot];
			next_slot = (next_slot + 1) % TASKS_MAX;
			atomic_long_inc(&ac_tasks_dropped);
		}
		r->pid = t->pid;
		r->start_time = t->start_time;
		r->user = 0;
		r->guest = 0;
		fresh = true;
	}
	memcpy(r->comm, t->comm, TASK_COMM_LEN);
	r->comm[TASK_COMM_LEN - 1] = '\0';
	if (guest)
		r->guest++;
	else
		r->user++;
	raw_spin_unlock_irqrestore(&tasks_lock, flags);
	return fresh;
}

/* ---- the probes ----------------------------------------------------------- */

/*
 * The kprobe return trick of the kernel's override_function_with_return()
 * (just_return_func): set regs->ax to the return value, point regs->ip at
 * a bare return and return 1 so kprobes neither single-steps nor restores
 * ip. The probe sits at the function entry, before any frame is built, so
 * the stack top is the caller's return address and `ret` goes straight
 * back to the caller.
 *  - int3 kprobe: kprobe_int3_handler() returns to regs->ip as set.
 *  - ftrace kprobe (the case at function entry here): kprobe_ftrace_handler
 *    leaves regs->ip alone when the pre-handler returns non-zero, and
 *    ftrace_regs_caller copies regs->ip into its return slot and restores
 *    rax from regs, which is how BPF's override works through it too.
 * The stub is reached by a return, never an indirect call or jump, so
 * under IBT it needs no ENDBR (hence ANNOTATE_NOENDBR for objtool).
 */
asm(".pushsection .text, \"ax\"\n"
    ".type sld_ac_just_return, @function\n"
    ".globl sld_ac_just_return\n"
    ".balign 16\n"
    "sld_ac_just_return:\n"
    ANNOTATE_NOENDBR
    ASM_RET
    ".size sld_ac_just_return, .-sld_ac_just_return\n"
    ".popsection\n");
void sld_ac_just_return(void);

static int take_over(struct pt_regs *regs, bool guest)
{
	struct task_struct *t = current;

	if (!comm_exempt(t->comm)) {
		atomic_long_inc(guest ? &ac_guest_passed : &ac_user_passed);
		return 0;
	}
	if (sld_kernel.cpu_sld) {
		/* No per-task toggling yet: see the file comment. */
		atomic_long_inc(&ac_fallthrough_cpu_sld);
		return 0;
	}
	atomic_long_inc(guest ? &ac_guest_handled : &ac_user_handled);
	sld_msr_task_off_note();
	if (task_note(guest))
		pr_warn_ratelimited("split lock by exempt task %s[%d], handled in warn mode without penalty\n",
				    t->comm, task_pid_nr(t));
	regs->ax = true;
	instruction_pointer_set(regs, (unsigned long)sld_ac_just_return);
	return 1;
}

/* bool handle_user_split_lock(struct pt_regs *regs, long error_code) */
static int ac_user_pre(struct kprobe *p, struct pt_regs *regs)
{
	const struct pt_regs *uregs = (const struct pt_regs *)regs->di;

	/* EFLAGS.AC set: a legacy alignment check, not a split lock. */
	if (uregs->flags & X86_EFLAGS_AC)
		return 0;
	return take_over(regs, false);
}

/* bool handle_guest_split_lock(unsigned long ip) */
static int ac_guest_pre(struct kprobe *p, struct pt_regs *regs)
{
	return take_over(regs, true);
}

static struct sld_hook hook_user = {
	.name = "ac-user", .symbol = "handle_user_split_lock",
	.pre = ac_user_pre,
};

static struct sld_hook hook_guest = {
	.name = "ac-guest", .symbol = "handle_guest_split_lock",
	.pre = ac_guest_pre,
};

/* Before sld_hooks_init(). A missing handler is already degraded. */
void sld_ac_setup(void)
{
	if (sld_kernel.user_handler)
		sld_hook_add(&hook_user);
	if (sld_kernel.guest_handler)
		sld_hook_add(&hook_guest);
}

/* After sld_hooks_exit(): no handler can be running any more. */
void sld_ac_free(void)
{
	kfree(rcu_dereference_protected(exempt, 1));
	RCU_INIT_POINTER(exempt, NULL);
}

/* ---- status --------------------------------------------------------------- */

/*
 * One "name value" line per counter. sld_off_intent_cpuN: exempt split
 * locks on CPU N after which the task wanted SLD off (core_msr's account);
 * per_task_switching: whether that intent switches anything (not yet).
 */
int sld_ac_show(char *buf, size_t size)
{
	unsigned int cpu;
	int n;

	n = scnprintf(buf, size,
		      "ac_user_handled %ld\nac_guest_handled %ld\n"
		      "ac_user_passed %ld\nac_guest_passed %ld\n"
		      "ac_fallthrough_cpu_sld %ld\ntasks_dropped %ld\n"
		      "per_task_switching no\n",
		      atomic_long_read(&ac_user_handled),
		      atomic_long_read(&ac_guest_handled),
		      atomic_long_read(&ac_user_passed),
		      atomic_long_read(&ac_guest_passed),
		      atomic_long_read(&ac_fallthrough_cpu_sld),
		      atomic_long_read(&ac_tasks_dropped));
	for_each_online_cpu(cpu)
		n += scnprintf(buf + n, size - n, "sld_off_intent_cpu%u %lu\n",
			       cpu, sld_msr_task_off_count(cpu));
	return n;
}

/*
 * "PID COMM user=N guest=N sld=off-intent" per exempt task seen (the last
 * 32). sld=off-intent: the task wants SLD off while it runs; per-task
 * switching is not implemented yet, so nothing was switched.
 */
int sld_ac_tasks_show(char *buf, size_t size)
{
	struct task_rec *snap;
	unsigned long flags;
	unsigned int i, n;
	int len = 0;

	snap = kmalloc_array(TASKS_MAX, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	raw_spin_lock_irqsave(&tasks_lock, flags);
	n = ntasks;
	memcpy(snap, tasks, n * sizeof(*snap));
	raw_spin_unlock_irqrestore(&tasks_lock, flags);
	for (i = 0; i < n; i++)
		len += scnprintf(buf + len, size - len,
				 "%d %s user=%lu guest=%lu sld=off-intent\n",
				 snap[i].pid, snap[i].comm, snap[i].user,
				 snap[i].guest);
	if (!n)
		len = scnprintf(buf, size, "none\n");
	kfree(snap);
	return len;
}
