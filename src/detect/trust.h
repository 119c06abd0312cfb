/* SPDX-License-Identifier: GPL-2.0 */
/* trust.c: the trust_sld_safe knob, what a module's sld_safe tag counts for. */
#ifndef SLD_TRUST_H
#define SLD_TRUST_H

#include <linux/module.h>

#include "modlib/verdict.h"

enum sld_trust { SLD_TRUST_Y, SLD_TRUST_SIGNED, SLD_TRUST_N };

/* A module's MODULE_INFO(sld_safe, "Y"), and what it counted for. */
enum sld_claim {
	SLD_CLAIM_NONE,			/* no tag */
	SLD_CLAIM_SIGNED,		/* honoured, signature verified */
	SLD_CLAIM_UNSIGNED,		/* honoured (trust_sld_safe=Y), unsigned */
	SLD_CLAIM_IGNORED_UNSIGNED,	/* trust_sld_safe=signed, unsigned */
	SLD_CLAIM_IGNORED,		/* trust_sld_safe=N */
};

/* Under the knobs' rule now; mod NULL counts as unsigned. */
enum sld_claim sld_trust_decide(const struct module *mod, bool claimed);
bool sld_claim_honoured(enum sld_claim c);
const char *sld_claim_flag(enum sld_claim c);
int sld_claim_reason(enum sld_claim c, enum sld_reason r, char *buf,
		     size_t size);

#endif /* SLD_TRUST_H */
