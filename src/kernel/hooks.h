/* SPDX-License-Identifier: GPL-2.0 */
/* hooks.c: every kprobe the module places. */
#ifndef SLD_HOOKS_H
#define SLD_HOOKS_H

#include <linux/kprobes.h>
#include <linux/types.h>

struct sld_hook {
	const char *name;		/* what it is for, e.g. "ac-user" */
	const char *symbol;		/* kernel function it probes */
	bool ret;			/* kretprobe instead of kprobe */
	kprobe_pre_handler_t pre;
	bool override;			/* pre changes regs->ip (hooks.c) */
	kretprobe_handler_t entry;	/* kretprobe entry handler */
	kretprobe_handler_t handler;	/* kretprobe return handler */
	size_t data_size;		/* kretprobe per-instance data */
	bool on_demand;			/* armed only while wanted */
	/* state */
	struct kprobe kp;
	struct kretprobe krp;
	bool registered;
	bool wanted;			/* on_demand: the owner needs it */
	int err;			/* registration error, 0 if none */
};

void sld_hook_add(struct sld_hook *h);
int sld_hooks_init(void);
void sld_hooks_exit(void);
int sld_hooks_arm(bool on);		/* the `enabled` knob */
int sld_hooks_show(char *buf, size_t size);
bool sld_hook_armed(const char *name);
unsigned long sld_hooks_gen(void);	/* changes at every arm or disarm */
bool sld_hooks_kernel_off(void);	/* kprobes off system-wide (debugfs) */
void sld_hook_want(struct sld_hook *h, bool want);

/*
 * An override hook's pre-handler ends with one of these: the probed
 * function returns ret, or its caller gets to target instead (hooks.c).
 */
int sld_hook_return(struct pt_regs *regs, unsigned long ret);
int sld_hook_redirect(struct pt_regs *regs, unsigned long target);

#endif /* SLD_HOOKS_H */
