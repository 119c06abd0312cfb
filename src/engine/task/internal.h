/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pieces of the task engine (this folder) share; task.h stays
 * the interface for other files. The pieces, each calling only those
 * listed after it:
 *   status.c    the tasks, in_use and counters files
 *   task.c      protect and release, the task's life (exit, exec), the
 *               key, readiness and detaching, init and exit: one piece,
 *               as release() queues a refresh of the key and the key's
 *               setup registers the exit probe that calls release()
 *   release.c   an owner lets its tasks go
 *   pins.c      a hypervisor task keeps sld_compat loaded
 *   pool.c      the records: allocation, per-uid tables, admission and
 *               its knobs, max_tasks and tasks_per_uid
 *   notifier.c  the preempt notifier and the core hold it switches
 * Their shared names start with tk_ (records, pool, pins, counters), so
 * that a reader, and the layer lint's call graph, tell them from other
 * files' words.
 */
#ifndef SLD_ENGINE_TASK_INTERNAL_H
#define SLD_ENGINE_TASK_INTERNAL_H

#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "engine/task/comm.h"
#include "engine/task/owner.h"

struct sld_task {
	struct preempt_notifier pn;
	union {
		struct sld_task *next_free;	/* on the free list */
		struct llist_node dead;	/* retired: to task.c's reaper */
	};
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
	bool used;		/* under tk_pool_lock */
	bool exempt_share;	/* counted against the exempt share */
	bool admin;		/* an admin record: counted in tk_nadmin alone */
	struct uid_table *counted;	/* counted there for uid, or nowhere */
	bool detached;		/* detach_fn() took it off its task */
	bool exiting;		/* its task is in do_exit: counted nowhere */
	bool retired;		/* off its dead task, unreferenced (notifier.c) */
};

/* task.c */
extern bool tk_key_held, tk_ready;
extern atomic_long_t tk_n_protected, tk_n_exited, tk_n_exec_dropped, tk_n_proactive;
extern atomic_long_t tk_n_by_why[SLD_WHY_HV + 1];
extern atomic_long_t tk_n_detached, tk_n_refused_off, tk_n_refused_full;
extern atomic_long_t tk_n_refused_cap, tk_n_refused_growing, tk_n_refused_nomem;
extern atomic_long_t tk_n_refused_admin;
extern const char *const tk_why_names[];
void tk_owner_name(const struct sld_owner *o, char *buf, size_t size);

/* notifier.c */
DECLARE_PER_CPU(unsigned long, tk_sched_calls);
DECLARE_PER_CPU(unsigned long, tk_sched_handovers);
DECLARE_PER_CPU(struct sld_task *, tk_handed);
extern struct preempt_ops tk_task_ops;
void tk_start_running(struct sld_task *t);
struct sld_task *tk_find_current(void);
void tk_retire_init(void (*reap)(struct llist_node *first));
void tk_retire_sync(void);

/* pool.c */
#define CHUNK_SHIFT	7
#define CHUNK		(1U << CHUNK_SHIFT)		/* 128 records */

struct uid_table;

enum refusal { ADMIT, REFUSE_FULL, REFUSE_CAP, REFUSE_GROWING, REFUSE_NOMEM };

extern struct mutex tk_task_mutex;
extern atomic_long_t tk_n_grow_failed;
extern raw_spinlock_t tk_pool_lock;
extern struct sld_task *tk_chunks[];
extern unsigned int tk_nexempt, tk_nadmin;
extern struct uid_table tk_uids_exempt, tk_uids_hv;
extern bool tk_setup_done;
extern struct work_struct tk_grow_work;
extern struct sld_task *tk_free_list;
extern unsigned int tk_nchunks, tk_nfree;
unsigned int tk_max_tasks(void);
unsigned int tk_per_uid(void);
unsigned int tk_capacity(void);
size_t tk_pool_bytes(void);
struct sld_task *tk_rec(unsigned int id);
bool tk_uid_move(struct sld_task *t, struct uid_table *tb, kuid_t uid);
void tk_leave_exempt_share(struct sld_task *t);
int tk_grow(void);
struct sld_task *tk_chunk_alloc(void);
struct sld_task *tk_pool_get(struct task_struct *task, enum sld_why why,
			     struct sld_owner *hv, bool admin,
			     enum refusal *refused);
bool tk_pool_recount(struct sld_task *t, kuid_t uid);
bool tk_pool_exiting(struct sld_task *t);
void tk_pool_retire(struct sld_task *t);
struct task_struct *tk_pool_put(struct sld_task *t);
unsigned int tk_live(void);
unsigned int tk_exiting(void);
unsigned int tk_records(void);

/* pins.c */
extern atomic_t tk_n_pinned;
extern struct work_struct tk_unpin_work;
void tk_pin(struct sld_task *t);
void tk_unpin_last_act(void);
void tk_unpin_later(unsigned int n);
void tk_unpin_detached(unsigned int n);

#endif /* SLD_ENGINE_TASK_INTERNAL_H */
