/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A knob is a module parameter with one validating setter, reachable two
 * ways: at load (insmod/modprobe.d options) and at runtime through
 * /sys/module/sld_compat/parameters/<name>.
 */
#ifndef SLD_KNOBS_H
#define SLD_KNOBS_H

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "schema/knobs_table.h"
#include "schema/names.h"

struct sld_knob {
	/* name and bounds (max_len: longest value, newline excluded) */
	const struct sld_knob_schema *schema;
	/*
	 * Validate and apply, all or nothing: on error return -EINVAL and
	 * leave state unchanged. *why names what was wrong for dmesg.
	 */
	int (*set)(const char *val, const char **why);
	int (*show)(char *buf, size_t size);
	/*
	 * Optional: free what set allocated. The kernel calls it when the
	 * module goes, also when loading failed after options were parsed
	 * (module init never ran, so nothing else would free it).
	 */
	void (*free)(void);
	struct module_attribute attr;	/* in /sys/module/<mod>/parameters */
};

extern const struct kernel_param_ops sld_knob_ops;

/*
 * perm 0: the kernel makes no sysfs file for it; knobs.c makes one that
 * sees the written byte count, so "1\0junk" can be told from "1".
 * The description is the schema's help line (knobs_table.h).
 */
#define SLD_KNOB(_name, _knob)						\
	module_param_cb(_name, &sld_knob_ops, &(_knob), 0);		\
	MODULE_PARM_DESC(_name, SLD_KNOB_HELP_##_name)

/* Helpers for setters, all strict: no sign where none fits, no junk. */
int sld_parse_bool(const char *val, bool *out, const char **why);
int sld_parse_int(const char *val, int min, int max, int *out,
		  const char **why);
int sld_parse_enum(const char *val, const char *const *names,
		   unsigned int n, unsigned int *out, const char **why);

/*
 * Serialises every knob write and the reads that need a whole value;
 * the outermost lock of sld_compat (lock order: knobs.c).
 */
void sld_knobs_lock(void);
void sld_knobs_unlock(void);

/*
 * A knob that changes what loaded modules are or what is done about them
 * (on_hypervisor, safe_modules, hypervisor_modules, trust_sld_safe) calls
 * sld_knobs_verdict_changed() from its setter, under the knobs' mutex;
 * that calls what main.c registered (modscan.c's re-decision), so no knob
 * file calls up into modscan.c.
 */
void sld_knobs_on_verdict_change(void (*fn)(const char *knob));
void sld_knobs_verdict_changed(const char *knob);

int sld_knobs_init(void);	/* the sysfs files, last at load */
void sld_knobs_exit(void);

/*
 * A knob whose value is a list of names, in the grammar of every list
 * knob (schema/names.h); what a name may be is the owner's rule.
 */
struct sld_names {
	unsigned int n;
	char *v[];
};

int sld_names_edit(const struct sld_names *old, const char *val,
		   const struct sld_names_rule *rule, struct sld_names **out,
		   const char **why);
int sld_names_show(const struct sld_names *l, char *buf, size_t size);
void sld_names_free(struct sld_names *l);

/*
 * A list knob that tasks' paths read under RCU (exempt_comm, exempt_path,
 * exempt_cgroup, run_allow): its names and, where a name must be
 * resolved when written (a file, an id), what each resolved to, in one
 * table its owner defines with struct sld_list first (at offset 0:
 * sld_list_set() allocates and frees the whole table through it). NULL while empty,
 * so that one load tells a reader whether there is a rule.
 */
struct sld_list {
	struct sld_names *names;
};

struct sld_list_kind {
	const struct sld_names_rule *rule;
	size_t size;		/* of the owner's table */
	/* name i of the new table into its entry i; NULL: names only */
	int (*resolve)(struct sld_list *l, unsigned int i, const char **why);
};

/*
 * The write of every such knob, all or nothing: the edited names, each
 * resolved, replace the table after a grace period (under the knobs'
 * mutex, which every setter runs under).
 */
int sld_list_set(struct sld_list __rcu **slot, const struct sld_list_kind *kind,
		 const char *val, const char **why);
int sld_list_show(struct sld_list __rcu **slot, char *buf, size_t size);
void sld_list_free(struct sld_list __rcu **slot);	/* at unload */

#endif /* SLD_KNOBS_H */
