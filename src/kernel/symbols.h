/* SPDX-License-Identifier: GPL-2.0 */
/* symbols.c: what the running kernel has. */
#ifndef SLD_SYMBOLS_H
#define SLD_SYMBOLS_H

#include <linux/types.h>

struct semaphore;

enum sld_mode {			/* mirrors the kernel's split_lock_detect_state */
	SLD_MODE_OFF, SLD_MODE_WARN, SLD_MODE_FATAL, SLD_MODE_RATELIMIT,
	SLD_MODE_UNKNOWN,
};

struct sld_kernel {
	bool resolver_ok;	/* ksym.h works on this kernel */
	bool cpu_sld;		/* X86_FEATURE_SPLIT_LOCK_DETECT */
	bool cpu_bld;		/* X86_FEATURE_BUS_LOCK_DETECT */
	bool kernel_bld;	/* the kernel set DEBUGCTL's bus-lock bit */
	bool svm_bld;		/* ... on an AMD host: SVM guests see it */
	bool bld_police;	/* Intel, SLD and BLD, bit 2 left clear */
	const int *sld_state;	/* the kernel's sld_state, if found */
	const unsigned int *mitigate;	/* sysctl_sld_mitigate, if found */
	unsigned long user_handler;	/* handle_user_split_lock */
	unsigned long guest_handler;	/* handle_guest_split_lock */
	unsigned long bus_lock_handler;	/* handle_bus_lock */
	unsigned long warn;		/* split_lock_warn */
	unsigned long reenable;		/* __split_lock_reenable */
	unsigned long reenable_unlock;	/* __split_lock_reenable_unlock */
	unsigned long cpu_offline;	/* splitlock_cpu_offline */
	struct semaphore *buslock_sem;	/* what reenable_unlock releases */
	const bool *kprobes_all_disarmed;	/* debugfs kprobes/enabled = 0 */
};

extern struct sld_kernel sld_kernel;

int sld_symbols_init(void);
unsigned long sld_lookup(const char *name);
enum sld_mode sld_kernel_mode(void);
const char *sld_mode_name(enum sld_mode m);
int sld_kernel_mitigate(void);		/* -1 when the sysctl is absent */
bool sld_kernel_has_sld_code(void);

#endif /* SLD_SYMBOLS_H */
