/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sld_compat's API for hypervisor modules (EXPORT_SYMBOL_GPL). Copy this
 * header into your module or include it; it has no other dependency.
 * (It was first published as include/sld_compat.h, which now includes it;
 * the module's internal headers, under src/, are not for vendors.)
 *
 * Take the functions with symbol_get() so that your module loads, and
 * works, without sld_compat; while you hold a symbol, sld_compat cannot
 * be unloaded. symbol_get() needs the function declared, as below.
 *
 *	int (*declare)(struct module *) = symbol_get(sld_compat_declare_safe);
 *	if (declare) {
 *		declare(THIS_MODULE);
 *		symbol_put(sld_compat_declare_safe);
 *	}
 *
 * 1. Say what you are. A declaration holds until your module unloads and
 *    re-classifies it at once. It comes from your init, i.e. after
 *    sld_compat scanned your module: with on_hypervisor=refuse a module
 *    with VMX text is refused before it can declare itself; use
 *    MODULE_INFO(sld_safe, "Y") for that case.
 *
 * 2. Or bracket your guest runs, and nothing of yours is ever probed:
 *
 *	enter = symbol_get(sld_compat_guest_enter);	// at init
 *	exit = symbol_get(sld_compat_guest_exit);
 *	...
 *	preempt_disable();			// as around any VM entry
 *	ok = enter ? enter() == 0 : false;
 *	... VMLAUNCH/VMRESUME, VM exit ...
 *	if (ok)
 *		exit();
 *	preempt_enable();
 *	...
 *	symbol_put(sld_compat_guest_exit);	// at exit
 *	symbol_put(sld_compat_guest_enter);
 *
 *    SLD is off on this CPU's core from enter to exit and back to the
 *    kernel's state after; brackets nest. enter returns -EINVAL if called
 *    preemptible (nothing is switched) and -EAGAIN while sld_compat is
 *    disabled; call exit only after an enter that returned 0. Declare
 *    yourself safe as well (1.) so that your vCPU threads are not
 *    protected a second time through your ioctls.
 */
#ifndef SLD_COMPAT_API_H
#define SLD_COMPAT_API_H

#define SLD_COMPAT_API_VERSION 2	/* 1: declare_*, 2: guest_enter/exit */

struct module;

/* The owner handles split-lock #AC in its guests itself. */
int sld_compat_declare_safe(struct module *owner);
/* The owner runs guests and does not handle split-lock #AC. */
int sld_compat_declare_hypervisor(struct module *owner);
/* SLD off on this core until guest_exit; preemption must be off. */
int sld_compat_guest_enter(void);
void sld_compat_guest_exit(void);

#endif /* SLD_COMPAT_API_H */
