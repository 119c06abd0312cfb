/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A module's .modinfo (modinfo.c). src/modlib/ is what a module is, from
 * facts the kernel or sldctl gathered: its .modinfo and the verdict rule
 * (verdict.h). Plain C with no kernel headers, built into sld_compat.ko
 * and into sldctl as x86scan is.
 */
#ifndef SLD_MODINFO_H
#define SLD_MODINFO_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

/*
 * Find "key=value" in a .modinfo blob (NUL-separated strings). Returns a
 * pointer to value inside blob (NUL-terminated within blob) or NULL. Never
 * reads past blob + len, also when the blob lacks a final NUL.
 */
const char *sld_modinfo_get(const char *blob, size_t len, const char *key);
/* MODULE_INFO(sld_safe, "Y"): value "Y", "y" or "1". */
bool sld_modinfo_sld_safe(const char *blob, size_t len);

#endif /* SLD_MODINFO_H */
