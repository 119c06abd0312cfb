/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the parts of sld_compat. One concept per
 * file; this header only says who offers what to whom.
 */
#ifndef SLD_COMPAT_INTERNAL_H
#define SLD_COMPAT_INTERNAL_H

#include <linux/kprobes.h>
#include <linux/types.h>

struct module;

/* ---- symbols.c: what the running kernel has ------------------------- */

enum sld_mode {			/* mirrors the kernel's split_lock_detect_state */
	SLD_MODE_OFF, SLD_MODE_WARN, SLD_MODE_FATAL, SLD_MODE_RATELIMIT,
	SLD_MODE_UNKNOWN,
};

struct sld_kernel {
	bool resolver_ok;	/* ksym.h works on this kernel */
	bool cpu_sld;		/* X86_FEATURE_SPLIT_LOCK_DETECT */
	bool cpu_bld;		/* X86_FEATURE_BUS_LOCK_DETECT */
	const int *sld_state;	/* the kernel's sld_state, if found */
	const unsigned int *mitigate;	/* sysctl_sld_mitigate, if found */
	unsigned long user_handler;	/* handle_user_split_lock */
	unsigned long guest_handler;	/* handle_guest_split_lock */
	unsigned long warn;		/* split_lock_warn */
	unsigned long reenable;		/* __split_lock_reenable */
	unsigned long reenable_unlock;	/* __split_lock_reenable_unlock */
	unsigned long cpu_offline;	/* splitlock_cpu_offline */
	const bool *kprobes_all_disarmed;	/* debugfs kprobes/enabled = 0 */
};

extern struct sld_kernel sld_kernel;

int sld_symbols_init(void);
unsigned long sld_lookup(const char *name);
enum sld_mode sld_kernel_mode(void);
const char *sld_mode_name(enum sld_mode m);
int sld_kernel_mitigate(void);		/* -1 when the sysctl is absent */
bool sld_kernel_has_sld_code(void);

/* ---- degraded.c: features that are off, and why --------------------- */

void sld_degrade(const char *feature, const char *reason);
bool sld_is_degraded(const char *feature);
int sld_degraded_show(char *buf, size_t size);	/* "feature: reason\n"... */
void sld_degraded_reset(void);

/* ---- hooks.c: every kprobe the module places ------------------------ */

struct sld_hook {
	const char *name;		/* what it is for, e.g. "ac-user" */
	const char *symbol;		/* kernel function it probes */
	bool ret;			/* kretprobe instead of kprobe */
	kprobe_pre_handler_t pre;
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

/* ---- knobs.c: /sys/module/sld_compat/parameters --------------------- */

struct sld_knobs {
	bool enabled;
	int verbose;		/* 0 quiet .. 3 debug */
};

extern struct sld_knobs sld_knobs;

int sld_knobs_init(void);
void sld_knobs_exit(void);

/* ---- policy.c: the on_hypervisor knob --------------------------------- */

enum sld_policy {
	SLD_POLICY_PROTECT, SLD_POLICY_DISABLE, SLD_POLICY_REFUSE,
	SLD_POLICY_LOG,
};

enum sld_policy sld_policy(void);
const char *sld_policy_name(enum sld_policy p);

/* What one module holds under the policy (in modrecords.c's record). */
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

/* ---- core_msr.c: the only writer of MSR_TEST_CTRL, and its account ---- */

void sld_msr_setup(void);		/* before sld_hooks_init() */
int sld_msr_init(void);
void sld_msr_exit(void);
void sld_msr_disable_get(void);		/* SLD off on every CPU */
void sld_msr_disable_put(void);		/* back on with the last put */
void sld_msr_task_in(void);		/* this CPU, preemption off */
void sld_msr_task_out(void);
bool sld_msr_task_held(void);		/* this CPU, irqs off */
void sld_msr_bracket_enter(void);
void sld_msr_bracket_exit(void);
void sld_msr_reassert(void);		/* after the kernel wrote it */
enum sld_ac_msr { SLD_AC_MSR_OFF, SLD_AC_MSR_CLEARED, SLD_AC_MSR_STUCK };
enum sld_ac_msr sld_msr_ac_off(void);	/* #AC of a protected task */
void sld_msr_drop_task_holds(void);	/* under stop_machine */
void sld_msr_sync_all(void);		/* sleepable */
void sld_account_init(void);		/* /proc/sld_compat_account */
void sld_account_exit(void);
int sld_disable_count_show(char *buf, size_t size);

/* ---- exempt.c: exemption rules (knobs exempt_*) ------------------------ */

enum sld_why {			/* why a task is protected */
	SLD_WHY_NONE, SLD_WHY_COMM, SLD_WHY_PATH, SLD_WHY_CGROUP, SLD_WHY_HV,
};

enum sld_why sld_exempt_match(void);	/* current, any context */
bool sld_exempt_proactive(void);
bool sld_exempt_any(void);
void sld_exempt_free(void);

/* ---- task_sld.c: protected tasks --------------------------------------- */

int sld_task_setup(void);		/* before sld_hooks_init() */
void sld_task_init(void);		/* after sld_hooks_init() */
void sld_task_exit(void);		/* before sld_hooks_exit() */
void sld_task_free(void);
void sld_task_refresh(void);		/* sleepable: rules/enabled changed */
int sld_task_protect(enum sld_why why, int hv);	/* current, preempt off */
unsigned int sld_task_release_hv(int slot);	/* sleepable: slot unwatched */
unsigned int sld_task_release_exempt(enum sld_why why);	/* sleepable */
bool sld_task_protected(void);
int sld_task_ac(bool guest);		/* returns the hv slot or -1 */
int sld_tasks_show(char *buf, size_t size);
int sld_task_in_use_show(char *buf, size_t size);
int sld_task_counters_show(char *buf, size_t size);

/* ---- hvwatch.c: hypervisor modules and their tasks --------------------- */

void sld_hv_setup(void);		/* before sld_hooks_init() */
void sld_hv_exit(void);
void sld_hv_free(void);			/* after sld_hooks_exit() */
void sld_hv_watch(struct module *mod);
void sld_hv_unwatch(struct module *mod);
void sld_hv_arm(bool on);
bool sld_hv_any(void);
void sld_hv_count_task(int slot);
void sld_hv_count_ac(int slot, bool guest);
void sld_hv_name(int slot, char *buf, size_t size);
int sld_hv_show(char *buf, size_t size);

/* ---- ac_path.c: the #AC path for exempt tasks ------------------------ */

void sld_ac_setup(void);		/* before sld_hooks_init() */
int sld_ac_show(char *buf, size_t size);

/* ---- status.c: read-only view ---------------------------------------- */

int sld_status_init(void);
void sld_status_exit(void);

#define sld_info(fmt, ...) do {						\
	if (READ_ONCE(sld_knobs.verbose) >= 2)				\
		pr_info(fmt, ##__VA_ARGS__);				\
} while (0)
#define sld_dbg(fmt, ...) do {						\
	if (READ_ONCE(sld_knobs.verbose) >= 3)				\
		pr_info(fmt, ##__VA_ARGS__);				\
} while (0)

#endif /* SLD_COMPAT_INTERNAL_H */
