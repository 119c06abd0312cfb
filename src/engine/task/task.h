/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task engine (engine/task/: task.c and its pieces, internal.h):
 * protected tasks, the engine's middle layer. They call only the MSR
 * accounts (engine/msr/), hooks.c and the knob framework; the parts that
 * decide who is protected (engine/: exempt.c, hvwatch.c, run.c, the trap
 * paths) call them, never the other way.
 */
#ifndef SLD_ENGINE_TASK_H
#define SLD_ENGINE_TASK_H

#include <linux/sched.h>
#include <linux/types.h>

#include "engine/task/comm.h"
#include "engine/task/owner.h"

/*
 * Hypervisor owners at most: hvwatch.c watches that many modules at once,
 * so the in_use file counts that many distinct owners at most.
 */
#define SLD_HV_MAX	16

int sld_task_setup(void);		/* before sld_hooks_init() */
void sld_task_init(void);		/* after sld_hooks_init() */
void sld_task_exit(void);		/* before sld_hooks_exit() */
void sld_task_free(void);
bool sld_task_possible(void);		/* after sld_hooks_init() */

/*
 * Demand, pushed by each owner: need is true while it may protect a task
 * (a rule is set, a module is watched). The engine holds the kernel's
 * preempt-notifier key only while some owner needs it and enabled=Y.
 * Sleepable; sld_task_refresh() re-reads `enabled` (main.c).
 */
void sld_task_need(struct sld_owner *o, bool need);
void sld_task_refresh(void);

/*
 * current, preemption off (probe handlers). 0: protected, already or now.
 * A task's first protection is logged (rate-limited) with rule, the
 * exemption rule that matched (NULL: a hypervisor owner, named by its
 * module); ahead: before any split lock (exempt_proactive), counted so;
 * admin: only root can have made the task match the rule (pool.c: its
 * record is bounded by memory, not by max_tasks or tasks_per_uid).
 */
int sld_task_protect_as(struct sld_owner *o, const char *rule, bool ahead,
			bool admin);
int sld_task_protect(struct sld_owner *o);	/* rule NULL, not ahead */
/* A new task before it first runs (an exemption, ahead): same answers. */
int sld_task_protect_new(struct task_struct *p, struct sld_owner *o,
			 const char *rule, bool admin);
bool sld_task_protected(void);
void sld_task_ac(bool guest);		/* a protected task's split lock */
void sld_task_bus_lock(void);		/* a protected task's bus-lock #DB */
/*
 * exec'd: keep the record if o exempts the program (rule: o's, for the
 * log; admin: only root can satisfy it); true: dropped over the uid's cap.
 */
bool sld_task_exec(const struct sld_owner *o, const char *rule, bool admin);
void sld_task_renamed(void);

/* Sleepable: the owner's tasks lose protection; returns how many. */
unsigned int sld_task_release(struct sld_owner *o);

/* A protected task as sld_task_list() reports it. */
struct sld_task_info {
	struct task_struct *task;	/* referenced: put_task_struct() */
	pid_t pid;
	char comm[TASK_COMM_LEN];
	time64_t since;			/* boot time, seconds */
	unsigned long ac;		/* its split-lock traps while protected */
};

unsigned int sld_task_list(enum sld_why why, struct sld_task_info *out,
			   unsigned int max);	/* sleepable */

int sld_tasks_show(char *buf, size_t size);
int sld_task_in_use_show(char *buf, size_t size);
int sld_task_counters_show(char *buf, size_t size);

#endif /* SLD_ENGINE_TASK_H */
