/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The API sld_compat offers other modules (EXPORT_SYMBOL_GPL). Call it
 * through symbol_get() so that your module loads without sld_compat:
 *
 *	int (*declare)(struct module *) = symbol_get(sld_compat_declare_safe);
 *	if (declare) {
 *		declare(THIS_MODULE);
 *		symbol_put(sld_compat_declare_safe);
 *	}
 *
 * A declaration holds until the owner unloads. It re-classifies the owner
 * at once, but it comes from the owner's init, i.e. after sld_compat
 * scanned the module: with on_hypervisor=refuse a module with VMX text is
 * refused before it can declare itself (use MODULE_INFO(sld_safe, "Y")).
 */
#ifndef SLD_COMPAT_API_H
#define SLD_COMPAT_API_H

struct module;

/* The owner handles split-lock #AC in its guests itself. */
int sld_compat_declare_safe(struct module *owner);
/* The owner runs guests and does not handle split-lock #AC. */
int sld_compat_declare_hypervisor(struct module *owner);

#endif /* SLD_COMPAT_API_H */
