// SPDX-License-Identifier: GPL-2.0
/*
 * Every kprobe sld_compat places goes through here, so that one switch
 * (`enabled`) arms or disarms them all, status lists them, and a probe that
 * cannot be placed degrades its feature instead of failing the load.
 *
 * Hooks are registered once at load and then enabled or disabled: a
 * disabled kprobe has its breakpoint removed from the text, which is what
 * "disarmed" must mean, and re-enabling cannot fail for lack of memory.
 *
 * An override hook (ac_path.c) returns from the probed function itself:
 * its pre-handler changes regs->ip. Such a probe gets an empty post
 * handler, as the kernel's fail_function.c does: the kprobe optimizer
 * leaves probes with a post handler alone (a jump-optimized probe ignores
 * a changed ip, and the kernel's handler would run after all), and a
 * kprobe on ftrace with one is armed through kprobe_ipmodify_ops, which
 * claims FTRACE_OPS_FL_IPMODIFY: ftrace then refuses a second IP-modifying
 * user of the function (a livepatch) instead of letting one of the two
 * be ignored. If one holds the function already, arming that hook fails
 * with -EBUSY: the hook is dropped and degraded, the others go on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/objtool.h>
#include <linux/rcupdate.h>
#include <asm/linkage.h>

#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"

/*
 * The kprobe return trick of the kernel's override_function_with_return()
 * (just_return_func), for every override hook (ac_path.c, db_path.c): set
 * regs->ax to the return value, point regs->ip at a bare return and return
 * 1 so kprobes neither single-steps nor restores ip. The probe sits at
 * the function entry, before any frame is built, so the stack top is the
 * caller's return address and `ret` goes straight back to the caller.
 *  - int3 kprobe: kprobe_int3_handler() returns to regs->ip as set; never
 *    a jump-optimized one, which would ignore it (see override above).
 *  - ftrace kprobe (the case at function entry here): kprobe_ftrace_handler
 *    leaves regs->ip alone when the pre-handler returns non-zero, and
 *    ftrace_regs_caller copies regs->ip into its return slot and restores
 *    rax from regs, which is how BPF's override works through it too.
 * The stub is reached by a return, never an indirect call or jump, so
 * under IBT it needs no ENDBR (hence ANNOTATE_NOENDBR for objtool).
 */
void sld_hook_just_return(void);	/* the stub: regs->ax is the return value */
asm(".pushsection .text, \"ax\"\n"
	".type sld_hook_just_return, @function\n"
	".globl sld_hook_just_return\n"
	".balign 16\n"
	"sld_hook_just_return:\n"
	ANNOTATE_NOENDBR "\n"	/* 7.x: it ends without a newline */
	ASM_RET
	".size sld_hook_just_return, .-sld_hook_just_return\n"
	".popsection\n");

#define MAX_HOOKS 16	/* 13 at most today */

/*
 * An override pre-handler's tail call: the probed function's caller gets
 * to target instead, with regs' arguments, as if the probed function had
 * jumped there. By the probe's return (iret, or ftrace's ret into
 * regs->ip), as the stub above is reached, so under IBT target needs no
 * ENDBR: a sealed function is fine. The probe sits at the entry, before
 * any frame.
 */
int sld_hook_redirect(struct pt_regs *regs, unsigned long target)
{
	instruction_pointer_set(regs, target);
	return 1;
}

/* An override pre-handler's return: the probed function returns ret. */
int sld_hook_return(struct pt_regs *regs, unsigned long ret)
{
	regs->ax = ret;
	return sld_hook_redirect(regs, (unsigned long)sld_hook_just_return);
}

static struct sld_hook *hooks[MAX_HOOKS];
static unsigned int nhooks;
static bool armed;
/*
 * Counts calls of sld_hooks_arm(): a probe handler that records its gen
 * can tell later whether the probes may have been off since (modscan.c).
 */
static unsigned long arm_gen;
static DEFINE_MUTEX(hooks_lock);	/* lock order: knobs.c */

/* Called by features during init, before sld_hooks_init(). */
void sld_hook_add(struct sld_hook *h)
{
	if (WARN_ON_ONCE(nhooks >= MAX_HOOKS))
		return;
	hooks[nhooks++] = h;
}

/*
 * Does nothing: runs only when the pre-handler let the function run.
 * Its presence is what counts (see the head comment).
 */
static void hook_no_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
}

static int hook_register(struct sld_hook *h)
{
	if (h->ret) {
		h->krp.kp.symbol_name = h->symbol;
		h->krp.entry_handler = h->entry;
		h->krp.handler = h->handler;
		h->krp.data_size = h->data_size;
		h->krp.maxactive = 4 * num_possible_cpus();
		h->krp.kp.flags = KPROBE_FLAG_DISABLED;
		return register_kretprobe(&h->krp);
	}
	h->kp.symbol_name = h->symbol;
	h->kp.pre_handler = h->pre;
	h->kp.post_handler = h->override ? hook_no_post : NULL;
	h->kp.flags = KPROBE_FLAG_DISABLED;
	return register_kprobe(&h->kp);
}

static void hook_unregister(struct sld_hook *h)
{
	if (!h->registered)
		return;
	if (h->ret)
		unregister_kretprobe(&h->krp);
	else
		unregister_kprobe(&h->kp);
	h->registered = false;
}

static int hook_enable(struct sld_hook *h, bool on)
{
	if (!h->registered)
		return 0;
	on = on && (!h->on_demand || h->wanted);
	if (h->ret)
		return on ? enable_kretprobe(&h->krp) : disable_kretprobe(&h->krp);
	return on ? enable_kprobe(&h->kp) : disable_kprobe(&h->kp);
}

int sld_hooks_init(void)
{
	unsigned int i;

	for (i = 0; i < nhooks; i++) {
		struct sld_hook *h = hooks[i];
		char why[72];

		h->err = hook_register(h);
		h->registered = !h->err;
		if (!h->err)
			pr_info("hook %s on %s placed\n", h->name, h->symbol);
		if (h->err) {
			snprintf(why, sizeof(why), "kprobe on %s failed (%d)",
				 h->symbol, h->err);
			sld_degrade(h->name, why);
		}
	}
	if (!nhooks)
		pr_info("no hooks to place\n");
	return sld_hooks_arm(READ_ONCE(sld_knobs.enabled));
}

/*
 * After the probes are gone, a task may still be on its way into
 * sld_hook_just_return: an ftrace kprobe's handler enables preemption
 * before ftrace returns to the ip it set, and an override's pre-handler
 * often has just woken a task (the re-enable work's up()), so the task
 * is preempted right there, or an interrupt lands on the stub's ret.
 * unregister_kprobe() waits for RCU readers only, and a preempted task is
 * none. Tasks RCU waits until every task has switched voluntarily (or is
 * in user space or idle), i.e. none is inside module text it entered
 * without a call: what the kernel waits for before it frees an ftrace
 * trampoline. Sleepable; before the module text goes.
 */
static void wait_for_stub_users(void)
{
	synchronize_rcu_tasks();	/* synchronize_rcu() without TASKS_RCU */
}

void sld_hooks_exit(void)
{
	unsigned int i;

	mutex_lock(&hooks_lock);
	for (i = 0; i < nhooks; i++)
		hook_unregister(hooks[i]);
	nhooks = 0;
	armed = false;
	mutex_unlock(&hooks_lock);
	wait_for_stub_users();
}

/*
 * hooks_lock held. Another IP-modifying ftrace user holds the function
 * of an override hook: drop the hook (its feature is off, as if the
 * kprobe could not be placed) rather than fail every other one.
 */
static int hook_enable_or_drop(struct sld_hook *h, bool on)
{
	int err = hook_enable(h, on);
	char why[72];

	if (err != -EBUSY || !h->override)
		return err;
	unregister_kprobe(&h->kp);
	h->registered = false;
	h->err = err;
	snprintf(why, sizeof(why), "%s has another IP-modifying ftrace user",
		 h->symbol);
	sld_degrade(h->name, why);
	return 0;
}

int sld_hooks_arm(bool on)
{
	unsigned int i;
	int err = 0;

	mutex_lock(&hooks_lock);
	WRITE_ONCE(arm_gen, arm_gen + 1);
	for (i = 0; i < nhooks && !err; i++)
		err = hook_enable_or_drop(hooks[i], on);
	if (err) {
		/* All or nothing: put back the ones already switched. */
		while (i-- > 0)
			hook_enable(hooks[i], !on);
		pr_err("cannot %s hooks (%d)\n", on ? "arm" : "disarm", err);
	} else {
		if (armed != on && nhooks)
			pr_info("hooks %s\n", on ? "armed" : "disarmed");
		armed = on;
	}
	mutex_unlock(&hooks_lock);
	return err;
}

static bool kernel_disarmed(void)
{
	return sld_kernel.kprobes_all_disarmed &&
	       READ_ONCE(*sld_kernel.kprobes_all_disarmed);
}

unsigned long sld_hooks_gen(void)
{
	return READ_ONCE(arm_gen);
}

bool sld_hooks_kernel_off(void)
{
	return kernel_disarmed();
}

/*
 * An on-demand hook is armed only while its owner wants it (and hooks are
 * armed at all): the ioctl-learn probe costs every ioctl of the system.
 */
void sld_hook_want(struct sld_hook *h, bool want)
{
	mutex_lock(&hooks_lock);
	if (h->wanted != want) {
		h->wanted = want;
		if (armed && hook_enable(h, true))
			pr_err("cannot switch hook %s\n", h->name);
	}
	mutex_unlock(&hooks_lock);
}

bool sld_hook_armed(const char *name)
{
	unsigned int i;
	bool ret = false;

	mutex_lock(&hooks_lock);
	for (i = 0; i < nhooks; i++)
		if (!strcmp(hooks[i]->name, name))
			ret = armed && hooks[i]->registered &&
			      (!hooks[i]->on_demand || hooks[i]->wanted) &&
			      !kernel_disarmed();
	mutex_unlock(&hooks_lock);
	return ret;
}

/*
 * How a placed override hook returns for the function: "ftrace-ipmodify"
 * (a kprobe on ftrace holding IPMODIFY) or "int3-noopt" (a breakpoint
 * the optimizer leaves alone). NULL for every other hook.
 */
static const char *override_kind(const struct sld_hook *h)
{
	if (!h->override || !h->registered)
		return NULL;
	return h->kp.flags & KPROBE_FLAG_FTRACE ? "ftrace-ipmodify" :
						    "int3-noopt";
}

/* One line per hook: "name symbol [override=KIND] state". */
int sld_hooks_show(char *buf, size_t size)
{
	unsigned int i;
	int n = 0;

	mutex_lock(&hooks_lock);
	for (i = 0; i < nhooks; i++) {
		struct sld_hook *h = hooks[i];
		const char *state = !h->registered ? "failed" :
				    !armed ? "disarmed" :
				    kernel_disarmed() ? "off-by-kernel" :
				    h->on_demand && !h->wanted ? "idle" : "armed";
		const char *kind = override_kind(h);

		n += scnprintf(buf + n, size - n, "%s %s ", h->name, h->symbol);
		if (kind)
			n += scnprintf(buf + n, size - n, "override=%s ", kind);
		n += scnprintf(buf + n, size - n, "%s\n", state);
	}
	mutex_unlock(&hooks_lock);
	if (!n)
		n = scnprintf(buf, size, "none\n");
	return n;
}
