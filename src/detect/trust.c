// SPDX-License-Identifier: GPL-2.0
/*
 * trust_sld_safe: how far a module's own MODULE_INFO(sld_safe, "Y") is
 * believed.
 *   Y       always (0.1.0's rule, the default)
 *   signed  only from a module whose signature the kernel verified
 *           (mod->sig_ok: a key of the kernel's keyrings, e.g. an
 *           enrolled DKMS machine-owner key, signed it)
 *   N       never
 * The tag can only take protection away from a module's own tasks (its
 * verdict becomes sld_safe, nobody is protected on its behalf), so it
 * gives no user anything; the risk is the other way round: any
 * out-of-tree module can claim it, wrongly, and its guests then receive
 * split-lock #AC. An ignored tag leaves the module to the rest of the
 * rule (known hypervisor, VMX text, ...). A change re-decides every
 * loaded module (sld_knobs_verdict_changed()), as the other verdict knobs
 * do.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>

#include "compat/compat.h"
#include "detect/trust.h"
#include "knobs/knobs.h"
#include "knobs/switches.h"

/* The schema's values, indexed by enum sld_trust. */
static_assert(SLD_TRUST_Y == 0 && SLD_TRUST_SIGNED == 1 && SLD_TRUST_N == 2 &&
	      SLD_TRUST_NVALUES == 3);

static unsigned int trust_sld_safe = SLD_TRUST_Y;

enum sld_claim sld_trust_decide(const struct module *mod, bool claimed)
{
	bool sig = mod && sld_module_sig_ok(mod);

	if (!claimed)
		return SLD_CLAIM_NONE;
	switch (READ_ONCE(trust_sld_safe)) {
	case SLD_TRUST_Y:
		return sig ? SLD_CLAIM_SIGNED : SLD_CLAIM_UNSIGNED;
	case SLD_TRUST_SIGNED:
		return sig ? SLD_CLAIM_SIGNED : SLD_CLAIM_IGNORED_UNSIGNED;
	}
	return SLD_CLAIM_IGNORED;
}

bool sld_claim_honoured(enum sld_claim c)
{
	return c == SLD_CLAIM_SIGNED || c == SLD_CLAIM_UNSIGNED;
}

/* The /proc/sld_compat_modules flag: "sld_safe-signed", ... or NULL. */
const char *sld_claim_flag(enum sld_claim c)
{
	switch (c) {
	case SLD_CLAIM_NONE:
		break;
	case SLD_CLAIM_SIGNED:
		return "sld_safe-signed";
	case SLD_CLAIM_UNSIGNED:
		return "sld_safe-unsigned";
	case SLD_CLAIM_IGNORED_UNSIGNED:
		return "sld_safe-ignored-unsigned";
	case SLD_CLAIM_IGNORED:
		return "sld_safe-ignored";
	}
	return NULL;
}

/*
 * "REASON" with what the tag counted for, for dmesg: "modinfo-sld-safe,
 * signed", "vmx-text; sld_safe ignored: trust_sld_safe=N". Nothing is
 * added where an admin or vendor entry decided before the tag was asked.
 */
int sld_claim_reason(enum sld_claim c, enum sld_reason r, char *buf,
		     size_t size)
{
	const char *why = sld_reason_name(r);

	if (r == SLD_R_ADMIN_SAFE || r == SLD_R_ADMIN_HYPERVISOR ||
	    r == SLD_R_VENDOR_SAFE || r == SLD_R_VENDOR_HYPERVISOR)
		c = SLD_CLAIM_NONE;
	switch (c) {
	case SLD_CLAIM_NONE:
		break;
	case SLD_CLAIM_SIGNED:
		return scnprintf(buf, size, "%s, signed", why);
	case SLD_CLAIM_UNSIGNED:
		return scnprintf(buf, size, "%s, unsigned, trust_sld_safe=Y",
				 why);
	case SLD_CLAIM_IGNORED_UNSIGNED:
		return scnprintf(buf, size,
				 "%s; sld_safe ignored: unsigned, trust_sld_safe=signed",
				 why);
	case SLD_CLAIM_IGNORED:
		return scnprintf(buf, size,
				 "%s; sld_safe ignored: trust_sld_safe=N", why);
	}
	return scnprintf(buf, size, "%s", why);
}

static int trust_set(const char *val, const char **why)
{
	unsigned int t;
	int err = sld_parse_enum(val, sld_trust_values, ARRAY_SIZE(sld_trust_values),
				 &t, why);

	if (err) {
		*why = "expected Y, signed or N";
		return err;
	}
	WRITE_ONCE(trust_sld_safe, t);
	sld_knobs_verdict_changed("trust_sld_safe");
	return 0;
}

static int trust_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", sld_trust_values[trust_sld_safe]);
}

static struct sld_knob knob_trust = {
	.schema = &sld_knob_schema[SLD_KN_TRUST_SLD_SAFE],
	.set = trust_set, .show = trust_show,
};
SLD_KNOB(trust_sld_safe, knob_trust);
