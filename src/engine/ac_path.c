// SPDX-License-Identifier: GPL-2.0
/*
 * The #AC path. Two kprobes sit on the kernel's split-lock handlers:
 * handle_user_split_lock (a task's own split lock, from the #AC trap) and
 * handle_guest_split_lock (KVM, for a guest #AC it cannot reflect). For a
 * protected task, or one that an exemption rule matches (exempt.c), the
 * pre-handler does warn-mode handling itself: the task becomes protected
 * (task/task.c: SLD off on its core from now on, while it runs), one
 * warning per task, counters; and the probed function returns true
 * without running, so none of the kernel's penalties apply (the 10 ms
 * sleep, the global semaphore, SIGBUS) whatever its mode, warn or fatal.
 * Every other task gets the kernel's own code, untouched.
 *
 * "Handled" re-executes the split lock, so it is said only with SLD off
 * under the task (core_msr.c: sld_msr_ac_off() clears it if it is on
 * after all, counted in ac_sld_cleared). If the task cannot be protected
 * (the engine is off or its pool is full, or a rule change released it
 * before SLD was put off under it) or SLD cannot be put off, the kernel
 * handles the #AC (ac_not_protected, ac_handed_back): anything else would
 * send the task straight back into the same #AC, forever.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <asm/processor-flags.h>

#include "engine/ac_path.h"
#include "engine/exempt.h"
#include "engine/msr/core_msr.h"
#include "engine/task/task.h"
#include "kernel/hooks.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"

static atomic_long_t ac_user_handled, ac_guest_handled;
static atomic_long_t ac_user_passed, ac_guest_passed;
static atomic_long_t ac_not_protected, ac_sld_cleared, ac_handed_back;

/* ---- the probes ----------------------------------------------------------- */

static int take_over(struct pt_regs *regs, bool guest)
{
	int err = sld_exempt_ensure();

	if (err == -ENOENT) {
		atomic_long_inc(guest ? &ac_guest_passed : &ac_user_passed);
		return 0;
	}
	if (err) {
		atomic_long_inc(&ac_not_protected);
		return 0;
	}
	switch (sld_msr_ac_off()) {
	case SLD_AC_MSR_RELEASED:
		atomic_long_inc(&ac_not_protected);
		return 0;
	case SLD_AC_MSR_STUCK:
		atomic_long_inc(&ac_handed_back);
		return 0;
	case SLD_AC_MSR_CLEARED:
		atomic_long_inc(&ac_sld_cleared);
		break;
	case SLD_AC_MSR_OFF:
		break;
	}
	atomic_long_inc(guest ? &ac_guest_handled : &ac_user_handled);
	sld_task_ac(guest);
	return sld_hook_return(regs, true);
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

/* override: take_over() changes regs->ip (hooks.c says what that needs). */
static struct sld_hook hook_user = {
	.name = "ac-user", .symbol = "handle_user_split_lock",
	.pre = ac_user_pre, .override = true,
};

static struct sld_hook hook_guest = {
	.name = "ac-guest", .symbol = "handle_guest_split_lock",
	.pre = ac_guest_pre, .override = true,
};

/* Before sld_hooks_init(). A missing handler is already degraded. */
void sld_ac_setup(void)
{
	if (sld_kernel.user_handler)
		sld_hook_add(&hook_user);
	if (sld_kernel.guest_handler)
		sld_hook_add(&hook_guest);
}

/* ---- status --------------------------------------------------------------- */

/* One "name value" line per counter, then the task engine's counters. */
int sld_ac_show(char *buf, size_t size)
{
	int n;

	n = scnprintf(buf, size,
		      "ac_user_handled %ld\nac_guest_handled %ld\n"
		      "ac_user_passed %ld\nac_guest_passed %ld\n"
		      "ac_not_protected %ld\nac_sld_cleared %ld\n"
		      "ac_handed_back %ld\n",
		      atomic_long_read(&ac_user_handled),
		      atomic_long_read(&ac_guest_handled),
		      atomic_long_read(&ac_user_passed),
		      atomic_long_read(&ac_guest_passed),
		      atomic_long_read(&ac_not_protected),
		      atomic_long_read(&ac_sld_cleared),
		      atomic_long_read(&ac_handed_back));
	return n + sld_task_counters_show(buf + n, size - n);
}
