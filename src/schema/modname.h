/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module names as the kernel compares them: KBUILD_MODNAME turns '-' into
 * '_', so "kvm-intel", the file kvm-intel.ko and the loaded kvm_intel are
 * one module. Plain C (no kernel headers): sld_compat.ko and sldctl both
 * match names with these, so a name the admin writes either way hits.
 */
#ifndef SLD_MODNAME_H
#define SLD_MODNAME_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

/* a and b name the same module. */
bool sld_modname_eq(const char *a, const char *b);
/* The first len bytes of src as the kernel spells the name ('-' -> '_'). */
void sld_modname_norm(char *dst, const char *src, size_t len);
/* c may appear in a module name: [A-Za-z0-9_-]. */
bool sld_modname_char(char c);

#endif /* SLD_MODNAME_H */
