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
 * Every other task gets the kernel's code, untouched.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include "sld_compat.h"
#include "db_path.h"
#include "exempt.h"
#include "hooks.h"
#include "symbols.h"
#include "task_sld.h"

static atomic_long_t db_handled, db_passed, db_not_protected;

/* void handle_bus_lock(struct pt_regs *regs) */
static int db_bus_lock_pre(struct kprobe *p, struct pt_regs *regs)
{
	int err = sld_exempt_ensure();

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
	return scnprintf(buf, size,
			 "db_handled %ld\ndb_passed %ld\ndb_not_protected %ld\n",
			 atomic_long_read(&db_handled),
			 atomic_long_read(&db_passed),
			 atomic_long_read(&db_not_protected));
}
