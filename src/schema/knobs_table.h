/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The knob schema: every knob of sld_compat with its type and bounds
 * (entries per list, bytes per entry, numeric range, enum values) and a
 * one-line help. Plain C with no kernel headers, like x86scan: the same
 * table builds into sld_compat.ko, whose knob definitions take their
 * bounds from it, and into sldctl, which validates and lists knobs with
 * it. So the tool refuses exactly what the module would refuse at boot.
 *
 * The module's values are the truth; tests/unit/test_knobs_table.c walks
 * the table against sldctl's validator and the module's SLD_KNOB()s.
 */
#ifndef SLD_KNOBS_TABLE_H
#define SLD_KNOBS_TABLE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#endif

/* Bytes per list entry (terminating NUL excluded). */
#define SLD_MODNAME_LEN		55	/* MODULE_NAME_LEN - 1 */
#define SLD_COMM_LEN		15	/* TASK_COMM_LEN - 1: characters to match */
#define SLD_COMM_PATTERN_LEN	31	/* an exempt_comm entry: stars, escapes */
#define SLD_PATH_LEN		255	/* exempt_path, exempt_cgroup */
#define SLD_ID_LEN		11	/* run_allow: '@' and 10 digits */

/* Entries per list. */
#define SLD_MODULE_LIST_MAX	64	/* safe_modules, hypervisor_modules */
#define SLD_COMM_LIST_MAX	32
#define SLD_PATH_LIST_MAX	16
#define SLD_CGROUP_LIST_MAX	16
#define SLD_RUN_ALLOW_MAX	32
#define SLD_LIST_MAX_ANY	64	/* the largest of the above */

/* Numeric ranges. */
#define SLD_VERBOSE_MAX		3
#define SLD_TASKS_MIN		16
#define SLD_TASKS_LIMIT		(1 << 18)	/* max_tasks, tasks_per_uid */

/* on_hypervisor's values, in the order of enum sld_policy. */
#define SLD_POLICY_NVALUES	4
extern const char *const sld_policy_values[SLD_POLICY_NVALUES];
/* trust_sld_safe's values, in the order of enum sld_trust (trust.h). */
#define SLD_TRUST_NVALUES	3
extern const char *const sld_trust_values[SLD_TRUST_NVALUES];

/*
 * One line of help per knob; also the module's MODULE_PARM_DESC (modinfo),
 * so both say the same.
 */
#define SLD_KNOB_HELP_enabled \
	"Arm (Y) or disarm (N) every hook sld_compat places (default Y)"
#define SLD_KNOB_HELP_verbose \
	"Log verbosity: 0 and 1 (default) the regular lines (errors, warnings, each protection), 2 adds info, 3 debug"
#define SLD_KNOB_HELP_on_hypervisor \
	"When an unprepared hypervisor loads: protect (default), disable, refuse or log"
#define SLD_KNOB_HELP_exempt_proactive \
	"N (default): exempt tasks are protected from their first split lock; Y: from exec"
#define SLD_KNOB_HELP_trust_sld_safe \
	"Honour MODULE_INFO(sld_safe, \"Y\"): Y always (default), signed only from a module whose signature the kernel verified, N never"
#define SLD_KNOB_HELP_max_tasks \
	"Most protected tasks at once, 16..262144 (default 64 per possible CPU, at least 1024)"
#define SLD_KNOB_HELP_tasks_per_uid \
	"Most protected tasks of one non-root uid at once, exempt and hypervisor tasks capped apart, 1..262144 (default an eighth of max_tasks' default)"
#define SLD_KNOB_HELP_safe_modules \
	"Modules the admin declares split-lock safe: a,b replaces, +a/-a edits, - clears"
#define SLD_KNOB_HELP_hypervisor_modules \
	"Modules the admin declares unprepared hypervisors: a,b replaces, +a/-a edits, - clears"
#define SLD_KNOB_HELP_exempt_comm \
	"Comma list of task names whose split locks are handled in warn mode without penalty; +name/-name edit, - clears"
#define SLD_KNOB_HELP_exempt_path \
	"Comma list of absolute executable paths (resolved when written) exempted like exempt_comm"
#define SLD_KNOB_HELP_exempt_cgroup \
	"Comma list of cgroup v2 paths (e.g. /sld.slice/game) whose tasks are exempted like exempt_comm"
#define SLD_KNOB_HELP_run_allow \
	"Comma list of uids and @gids who may relieve their own process trees with sldctl run (root may always); - clears"

/* Index into sld_knob_schema[]; scalars first, in the order tools list them. */
enum sld_knob_id {
	SLD_KN_ON_HYPERVISOR,
	SLD_KN_ENABLED,
	SLD_KN_VERBOSE,
	SLD_KN_EXEMPT_PROACTIVE,
	SLD_KN_TRUST_SLD_SAFE,
	SLD_KN_MAX_TASKS,
	SLD_KN_TASKS_PER_UID,
	SLD_KN_SAFE_MODULES,
	SLD_KN_HYPERVISOR_MODULES,
	SLD_KN_EXEMPT_COMM,
	SLD_KN_EXEMPT_PATH,
	SLD_KN_EXEMPT_CGROUP,
	SLD_KN_RUN_ALLOW,
	SLD_KN_COUNT
};

/* The scalars are the entries before the first list. */
#define SLD_KN_NSCALARS	SLD_KN_SAFE_MODULES

enum sld_knob_type {
	SLD_KT_BOOL,	/* Y/N (also y/n, 1/0) */
	SLD_KT_INT,	/* decimal in [min, max] */
	SLD_KT_ENUM,	/* one of values[] */
	SLD_KT_LIST,	/* "a,b" replaces, "+a,-b" edits, "-" clears */
};

/* What one list entry is. */
enum sld_entry_kind {
	SLD_KE_NONE,	/* not a list */
	SLD_KE_MODULE,	/* [A-Za-z0-9_-], '-' equal to '_' */
	SLD_KE_COMM,	/* a task name */
	SLD_KE_PATH,	/* absolute, no empty, . or .. component */
	SLD_KE_CGROUP,	/* as a path, below the cgroup2 root, not "/" */
	SLD_KE_ID,	/* a uid "1000" or a gid "@60", decimal */
};

struct sld_knob_schema {
	const char *name;
	enum sld_knob_type type;
	/*
	 * Longest value the module takes in one write, trailing newline
	 * excluded (also room for +/- signs of an edit).
	 */
	unsigned int max_len;
	int min, max;			/* SLD_KT_INT */
	const char *const *values;	/* SLD_KT_ENUM */
	unsigned int nvalues;
	enum sld_entry_kind entry;	/* SLD_KT_LIST */
	unsigned int max_entries;
	unsigned int max_entry_len;	/* bytes per entry */
	const char *help;
};

extern const struct sld_knob_schema sld_knob_schema[SLD_KN_COUNT];

/* The knob called name, or NULL. */
const struct sld_knob_schema *sld_knob_schema_find(const char *name);

#endif /* SLD_KNOBS_TABLE_H */
