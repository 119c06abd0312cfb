/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a knob write did to the modules already loaded: sld_compat
 * re-decides every loaded module when on_hypervisor, safe_modules,
 * hypervisor_modules or enabled changes. sldctl reads
 * /proc/sld_compat_modules before and after its write and tells the admin
 * what moved: verdict, watched, SLD disable hold, refuse-too-late.
 * Parsing and comparing are pure functions (unit-tested).
 */
#ifndef SLDCTL_MODCHANGE_H
#define SLDCTL_MODCHANGE_H

#include <stdbool.h>
#include <stddef.h>

#define MODCHANGE_NAME	64
#define MODCHANGE_WORD	32

struct modstate {
	char name[MODCHANGE_NAME];
	char verdict[MODCHANGE_WORD];
	char reason[MODCHANGE_WORD];
	bool watched, disabled, late;
};

struct modstates {
	struct modstate *m;
	int n;
};

/* Does a write of this knob re-decide the loaded modules? */
bool modchange_knob(const char *knob);

/* The loaded modules' lines of /proc/sld_compat_modules; 0 or -1 (ENOMEM). */
int modstates_parse(const char *text, struct modstates *out);
void modstates_free(struct modstates *s);

/*
 * "NAME: V (R) -> V2 (R2): watched, ..." for a module in both snapshots
 * that changed, into buf; returns 0 when it did not change.
 */
int modchange_describe(const struct modstate *was, const struct modstate *now,
		       char *buf, size_t n);

/* Read the file now: 0, or -1 if it cannot be read (empty list). */
int modstates_read(struct modstates *out);

/*
 * Call emit for each module loaded in both snapshots that changed;
 * returns how many did.
 */
int modchange_each(const struct modstates *before, const struct modstates *after,
		   void (*emit)(void *ctx, const struct modstate *now,
				const char *line),
		   void *ctx);

#endif /* SLDCTL_MODCHANGE_H */
