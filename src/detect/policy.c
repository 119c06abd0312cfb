// SPDX-License-Identifier: GPL-2.0
/*
 * What happens when a hypervisor that does not handle split-lock #AC
 * loads: knob on_hypervisor.
 *   protect  record it (per-task protection acts on it), default
 *   log      record it and say so
 *   refuse   the load fails with -EPERM
 *   disable  split-lock detection off on every CPU while one is loaded
 *            (core_msr.c: only written where the CPU has SLD)
 *
 * The knob decides for modules already loaded too: every write of
 * on_hypervisor (like safe_modules, hypervisor_modules and enabled)
 * re-decides each live record (modscan.c), which moves it here between
 * policies. modscan.c owns the records and the verdict; this file owns
 * what a verdict leads to, and applies it (hvwatch.c, core_msr.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/string.h>

#include "detect/policy.h"
#include "engine/hvwatch.h"
#include "engine/msr/core_msr.h"
#include "knobs/knobs.h"
#include "knobs/switches.h"

/* The schema's values, indexed by enum sld_policy. */
static_assert(SLD_POLICY_PROTECT == 0 && SLD_POLICY_DISABLE == 1 &&
	      SLD_POLICY_REFUSE == 2 && SLD_POLICY_LOG == 3 &&
	      SLD_POLICY_NVALUES == 4);

static unsigned int on_hypervisor = SLD_POLICY_PROTECT;

enum sld_policy sld_policy(void)
{
	return READ_ONCE(on_hypervisor);
}

const char *sld_policy_name(enum sld_policy p)
{
	return p < ARRAY_SIZE(sld_policy_values) ? sld_policy_values[p] : "unknown";
}

static int policy_set(const char *val, const char **why)
{
	unsigned int p;
	int err = sld_parse_enum(val, sld_policy_values, ARRAY_SIZE(sld_policy_values),
				 &p, why);

	if (err)
		return err;
	WRITE_ONCE(on_hypervisor, p);
	sld_knobs_verdict_changed("on_hypervisor");
	return 0;
}

static int policy_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", sld_policy_values[on_hypervisor]);
}

/* ---- applying it to a module ------------------------------------------ */

/* Refuse a loading module? Not while sld_compat is disabled. */
bool sld_policy_refuses(bool hv)
{
	return hv && sld_policy() == SLD_POLICY_REFUSE &&
	       READ_ONCE(sld_knobs.enabled);
}

/*
 * What the verdict and the knobs ask for. A loaded module cannot be
 * refused: under refuse it keeps the policy it had (log, for one first
 * seen under refuse) and is flagged until it unloads. enabled=N gives
 * the disable hold back; a watch stays (its probes are disarmed).
 */
static void want(const struct sld_policy_hold *have, bool hv, bool live,
		 struct sld_policy_hold *w)
{
	enum sld_policy pol = sld_policy(), eff = pol;

	memset(w, 0, sizeof(*w));
	w->kept = -1;
	if (!hv)
		return;
	if (pol == SLD_POLICY_REFUSE)
		eff = have->kept >= 0 ? have->kept : SLD_POLICY_LOG;
	w->kept = eff;
	w->watched = eff == SLD_POLICY_PROTECT && live;
	w->disabled = eff == SLD_POLICY_DISABLE && READ_ONCE(sld_knobs.enabled);
	w->late = pol == SLD_POLICY_REFUSE;
}

/*
 * Move a module to what its verdict and the knobs ask for: start or stop
 * watching it (hvwatch.c: its probes; its tasks are released), take or
 * give back its disable hold. mod is NULL for a module that is gone.
 * The caller serialises calls for one module. Returns SLD_PC_* bits.
 */
unsigned int sld_policy_move(struct sld_policy_hold *h, struct module *mod,
			     bool hv)
{
	struct sld_policy_hold w;
	unsigned int ch = 0;

	want(h, hv, mod, &w);
	if (w.watched != h->watched) {
		if (w.watched)
			sld_hv_watch(mod);
		else
			sld_hv_unwatch(mod);
		ch |= w.watched ? SLD_PC_WATCH : SLD_PC_UNWATCH;
	}
	if (w.disabled != h->disabled) {
		if (w.disabled)
			sld_msr_disable_get();
		else
			sld_msr_disable_put();
		ch |= w.disabled ? SLD_PC_DISABLE : SLD_PC_UNDISABLE;
	}
	if (w.late != h->late)
		ch |= w.late ? SLD_PC_LATE : SLD_PC_UNLATE;
	*h = w;
	return ch;
}

/* The module unloads: give back whatever it holds. */
void sld_policy_release(struct sld_policy_hold *h, struct module *mod)
{
	if (h->watched)
		sld_hv_unwatch(mod);
	if (h->disabled)
		sld_msr_disable_put();
	memset(h, 0, sizeof(*h));
	h->kept = -1;
}

/* "watched, SLD disable hold released" for dmesg. */
int sld_policy_changes(unsigned int ch, char *buf, size_t size)
{
	static const char *const what[] = {
		"watched",
		"no longer watched",
		"SLD disable hold taken",
		"SLD disable hold released",
		"not refused (loaded already, or sld_compat disabled): it stays, flagged refuse-too-late, until it unloads",
		"no longer flagged refuse-too-late",
	};
	unsigned int i;
	int n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(what); i++)
		if (ch & BIT(i))
			n += scnprintf(buf + n, size - n, "%s%s", n ? ", " : "",
				       what[i]);
	return n;
}

static struct sld_knob knob_policy = {
	.schema = &sld_knob_schema[SLD_KN_ON_HYPERVISOR],
	.set = policy_set, .show = policy_show,
};
SLD_KNOB(on_hypervisor, knob_policy);
