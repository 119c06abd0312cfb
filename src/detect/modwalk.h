/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modwalk.c: the modules that were loaded before sld_compat, one at a
 * time, each held against unloading while the caller looks at it.
 */
#ifndef SLD_MODWALK_H
#define SLD_MODWALK_H

struct module;

/*
 * fn(mod) for each live module but sld_compat, sleepable, with preload_lock
 * held: the module cannot be freed meanwhile (sld_modwalk_wait), and no
 * reference is taken on it. fn may take records_lock (modrecords.c).
 */
void sld_modwalk(void (*fn)(struct module *mod));
/* A module is GOING: a call of fn on it finishes before this returns. */
void sld_modwalk_wait(void);

#endif /* SLD_MODWALK_H */
