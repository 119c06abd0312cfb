/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modcapture.c: what module_finalize() shows of a loading module (its
 * executable sections, .modinfo), kept until the module notifier
 * (modscan.c) can read it in sleepable context.
 */
#ifndef SLD_MODCAPTURE_H
#define SLD_MODCAPTURE_H

#include <linux/module.h>
#include <linux/types.h>

#define SLD_SEC_NAME_LEN	24

struct sld_sec_info {
	char name[SLD_SEC_NAME_LEN];
	unsigned long addr, size;
};

/*
 * What the notifier reads through a slot, in sleepable context: the
 * loader's ELF copy itself (alive until the COMING notifier returns, so
 * use it only there), every executable section checked to lie inside
 * the module.
 */
struct sld_elf_facts {
	const Elf_Ehdr *hdr;
	const Elf_Shdr *sh;
	const char *names;	/* section name string table */
	size_t nsize;
	bool has_modinfo, modinfo_safe;
};

int sld_capture_setup(void);		/* before sld_hooks_init() */
void sld_capture_init(void);		/* after sld_hooks_init() */
void sld_capture_free(void);		/* after sld_hooks_exit() */
/*
 * At COMING, sleepable: this load's ELF copy and .modinfo into *e, and
 * the module_finalize handler's own time into *atomic_ns. False (scan the
 * text regions instead) without a slot, or if it is not this load's;
 * *atomic_ns is set whenever the slot is this load's.
 */
bool sld_capture_take(struct module *mod, struct sld_elf_facts *e,
		      u64 *atomic_ns);
/*
 * The executable section at or after index *pos (start at 1) into *si,
 * *pos moved past it; false after the last. Every one, however many.
 */
bool sld_capture_next(const struct sld_elf_facts *e, unsigned int *pos,
		      struct sld_sec_info *si);
void sld_capture_drop(struct module *mod);	/* forget mod's slot */

#endif /* SLD_MODCAPTURE_H */
