/* SPDX-License-Identifier: GPL-2.0 */
/*
 * registry.c: who says what a module is besides its text and the known
 * hypervisors: the admin (knobs safe_modules, hypervisor_modules) and
 * vendors (vendor.c). Names compare with '-' and '_' equal.
 */
#ifndef SLD_REGISTRY_H
#define SLD_REGISTRY_H

#include <linux/types.h>

int sld_registry_admin(const char *name);	/* 0 or SLD_R_ADMIN_* */
int sld_registry_vendor(const char *name);	/* 0 or SLD_R_VENDOR_* */
int sld_registry_vendor_set(const char *name, int reason);
void sld_registry_vendor_drop(const char *name);

#endif /* SLD_REGISTRY_H */
