// SPDX-License-Identifier: GPL-2.0
/*
 * task/task.c's status output: the tasks file, why sld_compat is in use
 * (its own pins), and the engine's counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "engine/task/internal.h"
#include "engine/task/task.h"
#include "knobs/switches.h"

/* ---- status ------------------------------------------------------------------------ */

/*
 * "PID COMM why=W hv=NAME cpu=N running=0|1 switches=N ac_user=N
 * ac_guest=N" per protected task, or "none"; then the counters. COMM is
 * escaped (sld_comm_escape()): one line per task, and its fields are the
 * module's (a reader takes the last " why=": COMM may hold spaces).
 */
/* The longest such line: escaped comm, owner name, 64-bit counters. */
#define TASK_LINE_MAX	(20 + COMM_ESC_LEN + 20 + MODULE_NAME_LEN + 130)

int sld_tasks_show(char *buf, size_t size)
{
	unsigned int id, shown = 0;
	unsigned long flags;
	int n = 0;

	for (id = 0; id < tk_capacity() && n < size - TASK_LINE_MAX; id++) {
		struct sld_task t;
		char hv[MODULE_NAME_LEN], comm[COMM_ESC_LEN];
		bool in_use;

		raw_spin_lock_irqsave(&tk_pool_lock, flags);
		/* A dying task's record waiting for its last switch is gone. */
		in_use = tk_rec(id)->used && !tk_rec(id)->exiting;
		if (in_use)
			t = *tk_rec(id);
		raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
		if (!in_use)
			continue;
		tk_owner_name(t.hv, hv, sizeof(hv));
		sld_comm_escape(comm, t.comm);
		n += scnprintf(buf + n, size - n,
			       "%d %s why=%s hv=%s cpu=%d running=%d switches=%lu ac_user=%lu ac_guest=%lu\n",
			       t.pid, comm, tk_why_names[t.why], hv, t.cpu,
			       t.running, t.switches, t.ac_user, t.ac_guest);
		shown++;
	}
	if (shown < tk_live())
		n += scnprintf(buf + n, size - n, "... %u more\n",
			       tk_live() - shown);
	if (!shown && !tk_live())
		n += scnprintf(buf + n, size - n, "none\n");
	return n;
}

/*
 * The live records protected for why, at most max, each with a reference
 * on its task that the caller drops (put_task_struct()). Sleepable: a
 * status file groups them (run.c's runs).
 */
unsigned int sld_task_list(enum sld_why why, struct sld_task_info *out,
			   unsigned int max)
{
	unsigned int id, n = 0;
	unsigned long flags;

	for (id = 0; id < tk_capacity() && n < max; id++) {
		struct sld_task *t = tk_rec(id);
		struct sld_task_info *i = &out[n];

		raw_spin_lock_irqsave(&tk_pool_lock, flags);
		if (t->used && !t->detached && !t->exiting && !t->retired &&
		    READ_ONCE(t->why) == why) {
			/* The record holds a reference until retired. */
			get_task_struct(t->task);
			i->task = t->task;
			i->pid = t->pid;
			memcpy(i->comm, t->comm, TASK_COMM_LEN);
			i->since = t->since;
			i->ac = t->ac_user + t->ac_guest;
			n++;
		}
		raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	}
	return n;
}

#define IN_USE_OWNERS	SLD_HV_MAX	/* task/task.h */

struct owner_count {
	struct sld_owner *o;
	unsigned int n;
};

/*
 * One more pinning task of o. by[] is kept in address order, which is
 * hvwatch.c's slot order. False when by[] is full.
 */
static bool count_owner(struct owner_count *by, unsigned int *nby,
			struct sld_owner *o)
{
	unsigned int i = 0;

	while (i < *nby && by[i].o < o)
		i++;
	if (i < *nby && by[i].o == o) {
		by[i].n++;
		return true;
	}
	if (*nby == IN_USE_OWNERS)
		return false;
	memmove(&by[i + 1], &by[i], (*nby - i) * sizeof(*by));
	by[i].o = o;
	by[i].n = 1;
	(*nby)++;
	return true;
}

/*
 * Why sld_compat is in use, as far as it holds references on itself:
 * "MODULE tasks=N" per hypervisor whose protected tasks pin it, or
 * "none". References others hold (a vendor's symbol_get(), modules linked
 * against it) are the rest of /sys/module/sld_compat/refcnt.
 */
int sld_task_in_use_show(char *buf, size_t size)
{
	struct owner_count by[IN_USE_OWNERS];
	unsigned int id, i, nby = 0, other = 0;
	char hv[MODULE_NAME_LEN];
	struct sld_owner *o;
	unsigned long flags;
	int n = 0;

	for (id = 0; id < tk_capacity(); id++) {
		o = NULL;
		raw_spin_lock_irqsave(&tk_pool_lock, flags);
		if (tk_rec(id)->used && tk_rec(id)->pinned)
			o = tk_rec(id)->hv;
		raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
		if (o && !count_owner(by, &nby, o))
			other++;
	}
	for (i = 0; i < nby; i++) {
		tk_owner_name(by[i].o, hv, sizeof(hv));
		n += scnprintf(buf + n, size - n, "%s tasks=%u\n", hv,
			       by[i].n);
	}
	if (other)
		n += scnprintf(buf + n, size - n, "- tasks=%u\n", other);
	if (!n)
		n = scnprintf(buf, size, "none\n");
	return n;
}

/*
 * The engine's counters. tasks_admin: live admin records (pool.c).
 * tasks_refused counts every refusal, then why: _off (engine off:
 * disabled, unloading, nothing to protect), _full (max_tasks reached, or
 * the exempt share of it), _cap (the uid's tasks_per_uid), _growing (no
 * free record: the pool had not grown yet), _nomem (it could not);
 * _admin: of them all, those under a rule only root can satisfy.
 * tasks_capacity records are allocated, tasks_record_bytes each;
 * tasks_pool_bytes is the pool's memory (records and the tables).
 */
int sld_task_counters_show(char *buf, size_t size)
{
	unsigned long calls = 0, handovers = 0;
	long off = atomic_long_read(&tk_n_refused_off);
	long full = atomic_long_read(&tk_n_refused_full);
	long cap = atomic_long_read(&tk_n_refused_cap);
	long growing = atomic_long_read(&tk_n_refused_growing);
	long nomem = atomic_long_read(&tk_n_refused_nomem);
	size_t pool_bytes = tk_pool_bytes();
	int cpu;

	for_each_possible_cpu(cpu) {
		calls += per_cpu(tk_sched_calls, cpu);
		handovers += per_cpu(tk_sched_handovers, cpu);
	}
	return scnprintf(buf, size,
			 "tasks_live %u\ntasks_exiting %u\ntasks_exempt %u\ntasks_admin %u\ntasks_pinning %d\ntasks_protected %ld\ntasks_exited %ld\ntasks_exec_dropped %ld\ntasks_detached %ld\n"
			 "tasks_proactive %ld\n"
			 "tasks_protected_comm %ld\ntasks_protected_path %ld\ntasks_protected_cgroup %ld\ntasks_protected_run %ld\ntasks_protected_hypervisor %ld\n"
			 "tasks_refused %ld\ntasks_refused_off %ld\ntasks_refused_full %ld\ntasks_refused_cap %ld\ntasks_refused_growing %ld\ntasks_refused_nomem %ld\ntasks_refused_admin %ld\n"
			 "tasks_max %u\ntasks_per_uid %u\ntasks_capacity %u\ntasks_record_bytes %zu\ntasks_pool_bytes %zu\ntasks_grow_failed %ld\n"
			 "key_held %d\nready %d\nsched_calls %lu\nsched_handovers %lu\n",
			 tk_live(), tk_exiting(), READ_ONCE(tk_nexempt),
			 READ_ONCE(tk_nadmin),
			 atomic_read(&tk_n_pinned),
			 atomic_long_read(&tk_n_protected),
			 atomic_long_read(&tk_n_exited),
			 atomic_long_read(&tk_n_exec_dropped),
			 atomic_long_read(&tk_n_detached),
			 atomic_long_read(&tk_n_proactive),
			 atomic_long_read(&tk_n_by_why[SLD_WHY_COMM]),
			 atomic_long_read(&tk_n_by_why[SLD_WHY_PATH]),
			 atomic_long_read(&tk_n_by_why[SLD_WHY_CGROUP]),
			 atomic_long_read(&tk_n_by_why[SLD_WHY_RUN]),
			 atomic_long_read(&tk_n_by_why[SLD_WHY_HV]),
			 off + full + cap + growing + nomem, off, full, cap, growing,
			 nomem, atomic_long_read(&tk_n_refused_admin),
			 tk_max_tasks(), tk_per_uid(), tk_capacity(),
			 sizeof(struct sld_task), pool_bytes,
			 atomic_long_read(&tk_n_grow_failed),
			 READ_ONCE(tk_key_held), READ_ONCE(tk_ready), calls, handovers);
}
