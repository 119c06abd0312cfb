/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.c: the on_hypervisor knob, and what it does to a module whose
 * verdict is `hypervisor` (watch it, hold SLD off, refuse it).
 */
#ifndef SLD_POLICY_H
#define SLD_POLICY_H

#include <linux/bits.h>
#include <linux/types.h>

struct module;

enum sld_policy {
	SLD_POLICY_PROTECT, SLD_POLICY_DISABLE, SLD_POLICY_REFUSE,
	SLD_POLICY_LOG,
};

enum sld_policy sld_policy(void);
const char *sld_policy_name(enum sld_policy p);

/* What one module holds under the policy (in modscan.c's record). */
struct sld_policy_hold {
	int kept;		/* policy in force for it, -1: none */
	bool watched;		/* hvwatch.c watches it */
	bool disabled;		/* holds an SLD disable reference */
	bool late;		/* loaded under refuse: flagged refuse-too-late */
};

enum {				/* what sld_policy_move() changed */
	SLD_PC_WATCH = BIT(0), SLD_PC_UNWATCH = BIT(1),
	SLD_PC_DISABLE = BIT(2), SLD_PC_UNDISABLE = BIT(3),
	SLD_PC_LATE = BIT(4), SLD_PC_UNLATE = BIT(5),
};

/* hv: the module's verdict is `hypervisor`. */
bool sld_policy_refuses(bool hv);		/* for a loading module */
unsigned int sld_policy_move(struct sld_policy_hold *h, struct module *mod,
			     bool hv);
void sld_policy_release(struct sld_policy_hold *h, struct module *mod);
int sld_policy_changes(unsigned int ch, char *buf, size_t size);

#endif /* SLD_POLICY_H */
