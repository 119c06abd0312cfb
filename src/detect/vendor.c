// SPDX-License-Identifier: GPL-2.0
/*
 * The vendor API (include/sld_compat_api.h): a module says what it is. The
 * entry is keyed by the owner's name and dropped when the owner unloads
 * (modscan.c, MODULE_STATE_GOING).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>

#include "detect/modscan.h"
#include "detect/registry.h"
#include "detect/vendor.h"
#include "engine/msr/core_msr.h"
#include "include/sld_compat_api.h"
#include "knobs/switches.h"
#include "modlib/verdict.h"

static int declare(struct module *owner, int reason)
{
	int err;

	if (!owner)
		return -EINVAL;
	err = sld_registry_vendor_set(owner->name, reason);
	if (err)
		return err;
	pr_info("%s declares itself %s\n", owner->name,
		reason == SLD_R_VENDOR_SAFE ? "split-lock safe" : "a hypervisor");
	sld_modscan_reclassify(owner->name);
	return 0;
}

int sld_compat_declare_safe(struct module *owner)
{
	return declare(owner, SLD_R_VENDOR_SAFE);
}
EXPORT_SYMBOL_GPL(sld_compat_declare_safe);

int sld_compat_declare_hypervisor(struct module *owner)
{
	return declare(owner, SLD_R_VENDOR_HYPERVISOR);
}
EXPORT_SYMBOL_GPL(sld_compat_declare_hypervisor);

/*
 * Guest brackets: the vendor calls enter right before its VM entry and
 * exit right after the VM exit, on the same CPU with preemption (or
 * interrupts) off in between, as every VMX world switch runs anyway. SLD
 * is off on this core exactly inside the window; no kprobe is involved.
 * Nesting is counted; only the outermost pair switches.
 *
 * A bracket takes no reference on sld_compat of its own: the vendor holds
 * these functions through symbol_get(), which holds one (the header's
 * contract), so sld_compat cannot be unloaded from under an open bracket,
 * and a per-entry get/put would add an atomic on one shared cache line to
 * every world switch. Protected hypervisor tasks pin it in task/task.c.
 */
static DEFINE_PER_CPU(unsigned int, bracket_depth);
static atomic_long_t bracket_refused, bracket_unbalanced;

int sld_compat_guest_enter(void)
{
	if (preemptible()) {
		atomic_long_inc(&bracket_refused);
		return -EINVAL;
	}
	if (!READ_ONCE(sld_knobs.enabled)) {
		atomic_long_inc(&bracket_refused);
		return -EAGAIN;
	}
	if (this_cpu_inc_return(bracket_depth) == 1)
		sld_msr_bracket_enter();
	return 0;
}
EXPORT_SYMBOL_GPL(sld_compat_guest_enter);

/* Pairs with a guest_enter that returned 0. */
void sld_compat_guest_exit(void)
{
	if (preemptible() || !this_cpu_read(bracket_depth)) {
		atomic_long_inc(&bracket_unbalanced);
		return;
	}
	if (this_cpu_dec_return(bracket_depth) == 0)
		sld_msr_bracket_exit();
}
EXPORT_SYMBOL_GPL(sld_compat_guest_exit);

int sld_vendor_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "bracket_refused %ld\nbracket_unbalanced %ld\n",
			 atomic_long_read(&bracket_refused),
			 atomic_long_read(&bracket_unbalanced));
}
