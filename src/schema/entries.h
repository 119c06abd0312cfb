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
#include <stddef.h>
#endif

/*
 * NULL when s is a valid entry, else why it is not: a path (cgroup false)
 * or a cgroup v2 path below the cgroup2 root (cgroup true). Both are
 * absolute and normalised, printable ASCII without space or comma, at
 * most SLD_PATH_LEN bytes; neither may be "/". Each component of a
 * cgroup rule is a pattern (glob.c) that must not match every name.
 */
const char *sld_entry_check(const char *s, bool cgroup);

/*
 * A cgroup rule, component by component: pos at a '/' gives the
 * component after it (its first byte; *len bytes up to the next '/' or
 * the end); NULL at the end. Next: sld_cgroup_next(c + *len, len).
 */
const char *sld_cgroup_next(const char *pos, size_t *len);
/* How many components a rule (or a cgroup path) has: its level. */
unsigned int sld_cgroup_depth(const char *rule);
/*
 * The cgroup at path ("/a/b", as /proc/PID/cgroup shows it) is the one
 * rule names, or below it: the module's match (exempt.c), for sldctl.
 */
bool sld_cgroup_path_match(const char *rule, const char *path);

/*
 * The scopes of libvirt's QEMU guests (qemu:///system): libvirt registers
 * each VM with systemd-machined as "qemu-ID-NAME" (virSystemdMakeMachineName)
 * and machined starts it as the scope "machine-" + the name escaped as a
 * unit name ('-' written "\x2d") + ".scope", below machine.slice. Not
 * the slice: rootful podman (libpod-*.scope) and systemd-nspawn containers
 * run there too.
 */
#define SLD_CGROUP_LIBVIRT_QEMU "/machine.slice/machine-qemu\\x2d*.scope"

/*
 * NULL when s is a run_allow entry, else why not: a uid ("1000") or a gid
 * ("@60"), decimal without sign or leading zero, below 4294967295 (-1,
 * the kernel's "no id"). Names are sldctl's to resolve (apply).
 */
const char *sld_id_check(const char *s);

#endif /* SLD_ENTRIES_H */
