// SPDX-License-Identifier: GPL-2.0
/*
 * The vendor API (include/sld_compat.h): a module says what it is. The
 * entry is keyed by the owner's name and dropped when the owner unloads
 * (modscan.c, MODULE_STATE_GOING).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>

#include "sld_compat.h"
#include "include/sld_compat.h"
#include "x86scan.h"

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
