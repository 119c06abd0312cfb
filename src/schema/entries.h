/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one exempt_path or exempt_cgroup entry may be, checked by the same
 * code in sld_compat.ko (a write to the knob) and in sldctl (before it
 * writes or persists), so both refuse the same entries with the same
 * words. Plain C, no kernel headers. Only the text is checked here:
 * whether the file or cgroup exists is not (the module resolves a path
 * when written; a cgroup may appear later, exempt.c).
 */
#ifndef SLD_ENTRIES_H
#define SLD_ENTRIES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#endif

/*
 * NULL when s is a valid entry, else why it is not: a path (cgroup false)
 * or a cgroup v2 path below the cgroup2 root (cgroup true). Both are
 * absolute and normalised, printable ASCII without space or comma, at
 * most SLD_PATH_LEN bytes; neither may be "/".
 */
const char *sld_entry_check(const char *s, bool cgroup);

/*
 * NULL when s is a run_allow entry, else why not: a uid ("1000") or a gid
 * ("@60"), decimal without sign or leading zero, below 4294967295 (-1,
 * the kernel's "no id"). Names are sldctl's to resolve (apply).
 */
const char *sld_id_check(const char *s);

#endif /* SLD_ENTRIES_H */
