/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modcapture.c: what module_finalize() shows of a loading module (its
 * executable sections, .modinfo), kept until the module notifier
 * (modscan.c) can read it in sleepable context.
 */
#ifndef SLD_MODCAPTURE_H
#define SLD_MODCAPTURE_H

#include <linux/types.h>

struct module;

#define SLD_MAX_SECS		16
#define SLD_SEC_NAME_LEN	24

struct sld_sec_info {
	char name[SLD_SEC_NAME_LEN];
	unsigned long addr, size;
};

/* What the notifier reads through a slot, in sleepable context. */
struct sld_elf_facts {
	unsigned int nsec;
	bool sec_truncated, has_modinfo, modinfo_safe;
	struct sld_sec_info sec[SLD_MAX_SECS];
};

int sld_capture_setup(void);		/* before sld_hooks_init() */
void sld_capture_init(void);		/* after sld_hooks_init() */
void sld_capture_free(void);		/* after sld_hooks_exit() */
/*
 * At COMING, sleepable: this load's sections and .modinfo into *e, and
 * the module_finalize handler's own time into *atomic_ns. False (scan the
 * text regions instead) without a slot, or if it is not this load's;
 * *atomic_ns is set whenever the slot is this load's.
 */
bool sld_capture_take(struct module *mod, struct sld_elf_facts *e,
		      u64 *atomic_ns);
void sld_capture_drop(struct module *mod);	/* forget mod's slot */

#endif /* SLD_MODCAPTURE_H */
