// SPDX-License-Identifier: GPL-2.0
/*
 * What happens when a hypervisor that does not handle split-lock #AC
 * loads: knob on_hypervisor.
 *   protect  record it (per-task protection acts on it), default
 *   log      record it and say so
 *   refuse   the load fails with -EPERM
 *   disable  split-lock detection off on every CPU while one is loaded
 *            (core_msr.c: only written where the CPU has SLD)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>

#include "sld_compat.h"
#include "knobs.h"

static const char *const policy_names[] = {
	[SLD_POLICY_PROTECT] = "protect",
	[SLD_POLICY_DISABLE] = "disable",
	[SLD_POLICY_REFUSE] = "refuse",
	[SLD_POLICY_LOG] = "log",
};

static unsigned int on_hypervisor = SLD_POLICY_PROTECT;

enum sld_policy sld_policy(void)
{
	return READ_ONCE(on_hypervisor);
}

const char *sld_policy_name(enum sld_policy p)
{
	return p < ARRAY_SIZE(policy_names) ? policy_names[p] : "unknown";
}

static int policy_set(const char *val, const char **why)
{
	unsigned int p;
	int err = sld_parse_enum(val, policy_names, ARRAY_SIZE(policy_names),
				 &p, why);

	if (!err)
		WRITE_ONCE(on_hypervisor, p);
	return err;
}

static int policy_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", policy_names[on_hypervisor]);
}

static struct sld_knob knob_policy = {
	.name = "on_hypervisor", .max_len = 8,
	.set = policy_set, .show = policy_show,
};
SLD_KNOB(on_hypervisor, knob_policy,
	 "When an unprepared hypervisor loads: protect (default), disable, refuse or log");
