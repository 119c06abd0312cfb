// SPDX-License-Identifier: GPL-2.0
/*
 * The knob table shared by sld_compat.ko and sldctl (see knobs_table.h).
 * max_len of a list leaves room for a sign and a comma per entry.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "schema/knobs_table.h"

const char *const sld_policy_values[SLD_POLICY_NVALUES] = {
	"protect", "disable", "refuse", "log",
};

const char *const sld_trust_values[SLD_TRUST_NVALUES] = {
	"Y", "signed", "N",
};

#define BOOL_KNOB(_name)						\
	{ .name = #_name, .type = SLD_KT_BOOL, .max_len = 1,		\
	  .help = SLD_KNOB_HELP_##_name }

#define LIST_KNOB(_name, _entry, _max, _len)				\
	{ .name = #_name, .type = SLD_KT_LIST,				\
	  .max_len = (_max) * ((_len) + 2), .entry = (_entry),		\
	  .max_entries = (_max), .max_entry_len = (_len),		\
	  .help = SLD_KNOB_HELP_##_name }

const struct sld_knob_schema sld_knob_schema[SLD_KN_COUNT] = {
	[SLD_KN_ON_HYPERVISOR] = {
		.name = "on_hypervisor", .type = SLD_KT_ENUM, .max_len = 8,
		.values = sld_policy_values, .nvalues = SLD_POLICY_NVALUES,
		.help = SLD_KNOB_HELP_on_hypervisor },
	[SLD_KN_ENABLED] = BOOL_KNOB(enabled),
	/* Two bytes: "-1" reaches the range check and is told "out of range". */
	[SLD_KN_VERBOSE] = {
		.name = "verbose", .type = SLD_KT_INT, .max_len = 2,
		.min = 0, .max = SLD_VERBOSE_MAX,
		.help = SLD_KNOB_HELP_verbose },
	[SLD_KN_EXEMPT_PROACTIVE] = BOOL_KNOB(exempt_proactive),
	[SLD_KN_TRUST_SLD_SAFE] = {
		.name = "trust_sld_safe", .type = SLD_KT_ENUM, .max_len = 6,
		.values = sld_trust_values, .nvalues = SLD_TRUST_NVALUES,
		.help = SLD_KNOB_HELP_trust_sld_safe },
	[SLD_KN_MAX_TASKS] = {
		.name = "max_tasks", .type = SLD_KT_INT, .max_len = 6,
		.min = SLD_TASKS_MIN, .max = SLD_TASKS_LIMIT,
		.help = SLD_KNOB_HELP_max_tasks },
	[SLD_KN_TASKS_PER_UID] = {
		.name = "tasks_per_uid", .type = SLD_KT_INT, .max_len = 6,
		.min = 1, .max = SLD_TASKS_LIMIT,
		.help = SLD_KNOB_HELP_tasks_per_uid },
	/* 64 names of 55 characters, commas and signs: about 3.6 KiB. */
	[SLD_KN_SAFE_MODULES] = LIST_KNOB(safe_modules, SLD_KE_MODULE,
					  SLD_MODULE_LIST_MAX, SLD_MODNAME_LEN),
	[SLD_KN_HYPERVISOR_MODULES] = LIST_KNOB(hypervisor_modules, SLD_KE_MODULE,
						SLD_MODULE_LIST_MAX, SLD_MODNAME_LEN),
	[SLD_KN_EXEMPT_COMM] = LIST_KNOB(exempt_comm, SLD_KE_COMM,
					 SLD_COMM_LIST_MAX, SLD_COMM_PATTERN_LEN),
	[SLD_KN_EXEMPT_PATH] = LIST_KNOB(exempt_path, SLD_KE_PATH,
					 SLD_PATH_LIST_MAX, SLD_PATH_LEN),
	[SLD_KN_EXEMPT_CGROUP] = LIST_KNOB(exempt_cgroup, SLD_KE_CGROUP,
					   SLD_CGROUP_LIST_MAX, SLD_PATH_LEN),
	[SLD_KN_RUN_ALLOW] = LIST_KNOB(run_allow, SLD_KE_ID,
				       SLD_RUN_ALLOW_MAX, SLD_ID_LEN),
};

const struct sld_knob_schema *sld_knob_schema_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < SLD_KN_COUNT; i++)
		if (!strcmp(sld_knob_schema[i].name, name))
			return &sld_knob_schema[i];
	return NULL;
}
