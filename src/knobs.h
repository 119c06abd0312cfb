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

struct sld_knob {
	const char *name;
	size_t max_len;		/* longest accepted value, newline excluded */
	/*
	 * Validate and apply, all or nothing: on error return -EINVAL and
	 * leave state unchanged. *why names what was wrong for dmesg.
	 */
	int (*set)(const char *val, const char **why);
	int (*show)(char *buf, size_t size);
	struct module_attribute attr;	/* in /sys/module/<mod>/parameters */
};

extern const struct kernel_param_ops sld_knob_ops;

/*
 * perm 0: the kernel makes no sysfs file for it; knobs.c makes one that
 * sees the written byte count, so "1\0junk" can be told from "1".
 */
#define SLD_KNOB(_name, _knob, _desc)					\
	module_param_cb(_name, &sld_knob_ops, &(_knob), 0);		\
	MODULE_PARM_DESC(_name, _desc)

/* Helpers for setters, all strict: no sign where none fits, no junk. */
int sld_parse_bool(const char *val, bool *out, const char **why);
int sld_parse_int(const char *val, int min, int max, int *out,
		  const char **why);
int sld_parse_enum(const char *val, const char *const *names,
		   unsigned int n, unsigned int *out, const char **why);

/* Serialises every knob write and the reads that need a whole value. */
void sld_knobs_lock(void);
void sld_knobs_unlock(void);

#endif /* SLD_KNOBS_H */
