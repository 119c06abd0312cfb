/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pieces of task_sld's protected tasks share; task_sld.h stays
 * the interface for other files. The pieces, each calling only those
 * listed after it:
 *   task_status.c    the tasks, in_use and counters files
 *   task_sld.c       protect and release, the task's life (exit, exec),
 *                    the key, readiness and detaching, init and exit, the
 *                    knobs max_tasks and tasks_per_uid: one piece, as
 *                    release() queues a refresh of the key and the key's
 *                    setup registers the exit probe that calls release()
 *   task_release.c   an owner lets its tasks go
 *   task_pins.c      a hypervisor task keeps sld_compat loaded
 *   task_pool.c      the records: allocation, per-uid tables, admission
 *   task_notifier.c  the preempt notifier and the core hold it switches
 */
#ifndef SLD_TASK_SLD_INTERNAL_H
#define SLD_TASK_SLD_INTERNAL_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "task_comm.h"
#include "task_owner.h"

struct sld_task {
	struct preempt_notifier pn;
	struct sld_task *next_free;	/* on the free list */
	struct task_struct *task;
	kuid_t uid;		/* counted for this uid (see admit()) */
	pid_t pid;
	char comm[TASK_COMM_LEN];
	time64_t since;		/* protected since (boot time, seconds) */
	enum sld_why why;
	struct sld_owner *hv;	/* the hypervisor owner, or NULL */
	bool running;
	int cpu;
	unsigned long switches, ac_user, ac_guest;
	bool warned, bl_warned;
	bool pinned;		/* holds a reference on sld_compat */
	bool used;		/* under pool_lock */
	bool exempt_share;	/* counted against the exempt share */
	struct uid_table *counted;	/* counted there for uid, or nowhere */
	bool detached;		/* detach_fn() took it off its task */
};

/* task_sld.c */
extern bool key_held, ready;
extern atomic_long_t n_protected, n_exited, n_exec_dropped, n_proactive;
extern atomic_long_t n_by_why[SLD_WHY_HV + 1];
extern atomic_long_t n_detached, n_refused_off, n_refused_full;
extern atomic_long_t n_refused_cap, n_refused_growing;
extern const char *const why_names[];
void owner_name(const struct sld_owner *o, char *buf, size_t size);

/* task_notifier.c */
DECLARE_PER_CPU(unsigned long, sched_calls);
DECLARE_PER_CPU(unsigned long, sched_handovers);
DECLARE_PER_CPU(struct sld_task *, handed);
extern struct preempt_ops task_ops;
void start_running(struct sld_task *t);
struct sld_task *find_current(void);

/* task_pool.c */
#define CHUNK_SHIFT	7
#define CHUNK		(1U << CHUNK_SHIFT)		/* 128 records */

struct uid_count {
	kuid_t uid;
	unsigned int n;		/* 0: free slot */
};

struct uid_table;

enum refusal { ADMIT, REFUSE_FULL, REFUSE_CAP, REFUSE_GROWING };

extern struct mutex task_mutex;
extern atomic_long_t n_grow_failed;
extern raw_spinlock_t pool_lock;
extern struct sld_task *chunks[];
extern unsigned int nexempt;
extern struct uid_table uids_exempt, uids_hv;
extern unsigned int max_tasks_knob, per_uid_knob;
extern struct work_struct grow_work;
extern struct sld_task *free_list;
extern unsigned int nchunks, nfree;
unsigned int max_tasks(void);
unsigned int per_uid(void);
unsigned int capacity(void);
struct sld_task *rec(unsigned int id);
struct uid_count *uid_slot(struct uid_table *tb, kuid_t uid);
void uid_get(struct uid_count *u, kuid_t uid);
void uid_put(struct uid_table *tb, kuid_t uid);
void leave_exempt_share(struct sld_task *t);
int grow(void);
struct sld_task *pool_get(enum sld_why why, struct sld_owner *hv,
			  enum refusal *refused);
struct task_struct *pool_put(struct sld_task *t);
unsigned int live(void);

/* task_pins.c */
extern atomic_t n_pinned;
extern struct work_struct unpin_work;
void pin(struct sld_task *t);
void unpin_last_act(void);
void unpin_detached(unsigned int n);

#endif /* SLD_TASK_SLD_INTERNAL_H */
