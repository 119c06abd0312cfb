// SPDX-License-Identifier: GPL-2.0
/*
 * The #DB path: the bus-lock trap. Where the kernel sets DEBUGCTL bit 2
 * (Intel in split_lock_detect=ratelimit; AMD from 6.13 on, in every mode
 * but off), a bus lock at CPL 3 raises a #DB after the instruction, and
 * exc_debug_user() calls handle_bus_lock(): a warning, a sleep in
 * ratelimit mode (bus locks of every task above N a second wait), SIGBUS
 * in fatal. A kprobe on it gives protected and exempt tasks what the #AC
 * path gives them (ac_path.c): sld_compat's own rate-limited line,
 * counters, and none of the kernel's penalties. The trap already let the
 * instruction complete, so there is nothing to redo and no detection to
 * turn off for a task's own bus locks: the handler is simply not run.
 * Every other task gets the kernel's code, untouched, but one: on Intel
 * with both detections, the CPUs beside a core whose SLD a protected task
 * holds off take bus-lock #DBs (debugctl.c sets the bit there), where the
 * kernel in warn mode would only print a line; their tasks split-locked,
 * and get what the kernel's warn mode gives a split locker: its
 * split_lock_warn() (the line and the split_lock_mitigate penalty), or
 * where that is inlined handle_user_split_lock(), which calls it. The
 * probe sends the trap there instead of running handle_bus_lock (policed).
 * In fatal mode handle_bus_lock's SIGBUS is already what a split locker
 * gets (a locked access to uncached memory, which no #AC catches, gets
 * it there too). Only a #DB on a CPU whose bit sld_compat set for this is
 * policed; the kernel's own bit, or one set by hand, is left alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include "engine/db_path.h"
#include "engine/exempt.h"
#include "engine/msr/core_msr.h"
#include "engine/msr/debugctl.h"
#include "engine/task/task.h"
#include "kernel/hooks.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"

static atomic_long_t db_handled, db_passed, db_not_protected, db_policed;

/*
 * An unprotected task's bus-lock #DB on Intel in warn mode: the bit was
 * set by sld_compat, beside a held core (debugctl.c). Tail-call the
 * kernel's split-lock warning in place of handle_bus_lock (a return,
 * never an indirect call: hooks.c), with the user regs it was given.
 */
static bool police(struct pt_regs *regs)
{
	const struct pt_regs *uregs = (const struct pt_regs *)regs->di;

	if (!sld_bld_policed_here() || sld_kernel_mode() != SLD_MODE_WARN)
		return false;
	atomic_long_inc(&db_policed);
	if (sld_kernel.warn) {
		regs->di = uregs->ip;		/* split_lock_warn(ip) */
		return sld_hook_redirect(regs, sld_kernel.warn);
	}
	regs->si = 0;		/* handle_user_split_lock(regs, 0) */
	return sld_hook_redirect(regs, sld_kernel.user_handler);
}

/* void handle_bus_lock(struct pt_regs *regs) */
static int db_bus_lock_pre(struct kprobe *p, struct pt_regs *regs)
{
	int err = sld_exempt_ensure();

	if (err && police(regs))
		return 1;
	if (err == -ENOENT) {
		atomic_long_inc(&db_passed);
		return 0;
	}
	if (err) {
		atomic_long_inc(&db_not_protected);
		return 0;
	}
	atomic_long_inc(&db_handled);
	sld_task_bus_lock();
	return sld_hook_return(regs, 0);	/* a void function */
}

/* override: the pre-handler returns for the probed function (hooks.c). */
static struct sld_hook hook_bus_lock = {
	.name = "db-bus-lock", .symbol = "handle_bus_lock",
	.pre = db_bus_lock_pre, .override = true,
};

/* Before sld_hooks_init(). A missing handler is already degraded. */
void sld_db_setup(void)
{
	if (sld_kernel.bus_lock_handler)
		sld_hook_add(&hook_bus_lock);
}

int sld_db_show(char *buf, size_t size)
{
	unsigned long long ms;
	unsigned long n;

	sld_msr_exposure(&n, &ms);
	return scnprintf(buf, size,
			 "db_handled %ld\ndb_passed %ld\ndb_not_protected %ld\n"
			 "db_policed %ld\nsibling_exposures %lu\n"
			 "sibling_exposed_ms %llu\n",
			 atomic_long_read(&db_handled),
			 atomic_long_read(&db_passed),
			 atomic_long_read(&db_not_protected),
			 atomic_long_read(&db_policed), n, ms);
}
