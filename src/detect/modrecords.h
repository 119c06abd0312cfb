/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modrecords.c: the record of each module scanned (modscan.c), loaded or
 * recently unloaded, and its view /proc/sld_compat_modules.
 */
#ifndef SLD_MODRECORDS_H
#define SLD_MODRECORDS_H

#include <linux/list.h>
#include <linux/module.h>

#include "detect/modcapture.h"
#include "detect/policy.h"
#include "detect/trust.h"
#include "knobs/switches.h"
#include "modlib/verdict.h"

enum modrec_flags {
	RF_SECTIONS = BIT(0),	/* per-section scan (else text regions) */
	RF_INIT = BIT(1),	/* init text scanned */
	RF_PRELOADED = BIT(2),	/* loaded before sld_compat */
	RF_MODINFO = BIT(3),	/* .modinfo was read */
	RF_GONE = BIT(6),	/* unloaded */
};

struct modrec {
	struct list_head node;
	struct module *mod;	/* NULL once gone */
	char name[MODULE_NAME_LEN];
	enum sld_verdict verdict;
	enum sld_reason reason;
	unsigned int flags;
	struct sld_policy_hold pol;	/* what the policy gave it */
	bool modinfo_safe;
	enum sld_claim claim;	/* what its sld_safe tag counted for */
	unsigned int handler_calls;	/* call/jmp sites to the guest handler */
	unsigned int init_finds;	/* findings in init text: not counted */
	unsigned int nsec;	/* sections (or text regions) scanned */
	/*
	 * Per kind of finding, where it was first found: the section's name
	 * and its place in the scan order (for sld_first_finding, which
	 * takes a u8: the 255th section on all count as the 255th).
	 */
	char first_name[X86_F_COUNT][SLD_SEC_NAME_LEN];
	u8 first_sec[X86_F_COUNT];
	struct x86scan_stats st;	/* count[] and first[] used */
	u64 scan_ns;		/* time spent decoding, what insmod paid */
	u64 atomic_ns;		/* module_finalize handler, preemption off */
};

struct modrec *sld_modrec_new(struct module *mod);
/*
 * records_lock: a module is scanned without it, then decided and inserted
 * under it, so that a knob change re-decides every record or the
 * deciding load sees the knob's new value.
 */
void sld_modrec_lock(void);
void sld_modrec_unlock(void);
/* With records_lock held: */
void sld_modrec_insert(struct modrec *rec);	/* drops a record of that name */
bool sld_modrec_recorded(const struct module *mod);
struct modrec *sld_modrec_next_live(struct modrec *r);	/* NULL: first */
int sld_modrec_first(const struct modrec *rec, char *buf, size_t size,
		     const char *at);	/* "vmxon<at>.text+0x10" or "-" */
/* Take records_lock: */
void sld_modrec_gone(struct module *mod);	/* unloaded: policy released */
void sld_modrec_drop_all(void);			/* every record, policy released */
void sld_modrec_proc_init(void);
void sld_modrec_proc_exit(void);

#endif /* SLD_MODRECORDS_H */
