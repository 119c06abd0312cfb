// SPDX-License-Identifier: GPL-2.0
/*
 * The task engine's record pool: allocation ahead of demand, the per-uid
 * tables and admission (who may take a record), bounded by the knobs
 * max_tasks and tasks_per_uid, which live here too (the end of the file).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "engine/task/internal.h"
#include "knobs/knobs.h"
#include "knobs/switches.h"
#include "schema/knobs_table.h"

/* ---- the pool ------------------------------------------------------------------ */

/*
 * Records live in chunks of CHUNK, allocated in sleepable context by
 * tk_grow_work, never in the handlers that take records: tk_pool_get() queues
 * the work when fewer than low_water() records are free (a chunk, so the
 * first protected task brings a second one, or an eighth of the live
 * records: a host starting its hundredth VM starts more threads at once
 * than its first; half a chunk was outrun once by 8 processes starting
 * 64 threads each on 64 vCPUs: 19 refused), so the pool grows ahead of
 * demand, chunk by chunk, as far as admit() can let tasks in. Chunks
 * are never freed before unload: a record's address is stable while
 * anything may look at it, and walkers need no RCU. A burst larger than
 * that faster than the work runs is refused (tasks_refused_growing), and
 * while the kernel has no memory for a chunk, tasks_refused_nomem; both
 * ask again at their next split lock or rename.
 *
 * Admin records: a task matched by a rule only root can have made it
 * match (exempt.c: a cgroup rule whose cgroup and those above it are
 * root's directories, a path rule whose file only root may execute)
 * takes an admin record, bounded by memory alone: neither max_tasks nor
 * tasks_per_uid counts it, up to ADMIN_LIMIT of them (TASKS_LIMIT, the
 * same hard bound as max_tasks', where the records' memory, not a
 * policy, is the limit: docs/performance.md). Every other record is
 * bounded by max_tasks as below, and the last ADMIN_RESERVE free records
 * are the admin's alone: users' tasks started faster than the pool grows
 * cannot leave a guest's vCPU without one. The pool grows for both. A
 * record keeps the class it was taken in for its task's life (exec, a
 * move to another cgroup, a release and a new protection): one record
 * per task, whatever it matches later. The uid it counts for is its
 * task's when it was taken and again after each exec (tk_pool_recount()):
 * a task root started in a user's cgroup that drops to the user and runs
 * the user's program counts as the user's, as its threads do. A uid
 * changed without exec (the program root chose, still running) counts
 * from the next exec; so does a hypervisor's record over the new uid's
 * cap (task.c keeps its guest protected).
 *
 * Who may take any other record (admit()): an unprivileged user can obtain an
 * exemption by itself (exempt_comm, see README's trust model), and a user
 * owns 65,536 subordinate uids (/etc/subuid), so nothing an exempt record
 * holds may be something a hypervisor task needs:
 * - exempt records may fill at most max_tasks minus a reserve of a
 *   quarter: hypervisor tasks never fail because exempt tasks filled the
 *   pool;
 * - the records of one non-root uid are capped (tasks_per_uid), exempt
 *   and hypervisor records apart: a user can also obtain hypervisor
 *   records alone, through a device node anyone may open (/dev/vboxdrvu
 *   is 0666), and must not starve the others' tasks or guests. The
 *   default, an eighth of max_tasks' default, is half the reserve of the
 *   default pool: no single uid takes the reserve;
 * - the counts per uid live in fixed tables (no allocation in handlers),
 *   one for exempt records (tk_uids_exempt) and one for hypervisor records
 *   (tk_uids_hv). When UID_SLOTS uids hold exempt records, a new uid's
 *   exempt task is refused as over its cap; exempt tasks never count in
 *   tk_uids_hv, so one user with many uids can fill tk_uids_exempt and change
 *   nothing for anyone's hypervisor tasks. A full tk_uids_hv (UID_SLOTS uids
 *   with hypervisor tasks at once) refuses nobody: a hypervisor task of a
 *   further uid is admitted uncounted, bounded by max_tasks like all.
 *   An exempt record that becomes a hypervisor's moves to tk_uids_hv, unless
 *   its uid is at its cap there: then it stays an exempt record (still
 *   protected, but not counted for the hypervisor nor pinning it).
 * Root's tasks are not capped. Hypervisor records are otherwise bounded
 * only by max_tasks.
 */
#define TASKS_LIMIT	((unsigned int)SLD_TASKS_LIMIT)	/* knobs_table.h */
#define ADMIN_LIMIT	TASKS_LIMIT
#define ADMIN_RESERVE	(CHUNK / 4)	/* below low_water()'s least */
#define MAX_CHUNKS	((TASKS_LIMIT + ADMIN_LIMIT) / CHUNK)
#define UID_BITS	10
#define UID_SLOTS	(1U << UID_BITS)

/*
 * key, ready, detach, needs (lock order: knobs.c). Defined here, in the
 * lowest piece that takes it: grow_fn().
 */
DEFINE_MUTEX(tk_task_mutex);
atomic_long_t tk_n_grow_failed;

DEFINE_RAW_SPINLOCK(tk_pool_lock);	/* everything below; innermost */
struct sld_task *tk_chunks[MAX_CHUNKS];
unsigned int tk_nchunks;		/* published chunks */
struct sld_task *tk_free_list;
unsigned int tk_nfree;
static unsigned int nlive;		/* all live records */
static unsigned int nexiting;		/* records of tasks in do_exit */
unsigned int tk_nexempt;		/* in the exempt share */
unsigned int tk_nadmin;			/* admin records */
static bool grow_failing;		/* the last chunk could not be had */
struct uid_count {
	kuid_t uid;
	unsigned int n;		/* 0: free slot */
};

struct uid_table {
	struct uid_count slot[UID_SLOTS];
} tk_uids_exempt, tk_uids_hv;

static unsigned int max_tasks_knob;	/* 0: default_max_tasks() */
static unsigned int per_uid_knob;	/* 0: an eighth of max_tasks */
/*
 * Between sld_task_init() and sld_task_exit() (task.c, under
 * tk_task_mutex): the engine is set up, so a refresh may take the key
 * and a raised max_tasks grows the pool at once.
 */
bool tk_setup_done;

static unsigned int default_max_tasks(void)
{
	return clamp(64 * num_possible_cpus(), 1024U, TASKS_LIMIT);
}

unsigned int tk_max_tasks(void)
{
	return READ_ONCE(max_tasks_knob) ?: default_max_tasks();
}

/*
 * Half the default reserve (max_tasks / 4). Not of max_tasks itself: a
 * knob's value changes only when written.
 */
unsigned int tk_per_uid(void)
{
	return READ_ONCE(per_uid_knob) ?: default_max_tasks() / 8;
}

/* The pool's memory: its records and its fixed tables. */
size_t tk_pool_bytes(void)
{
	return (size_t)tk_capacity() * sizeof(struct sld_task) +
	       sizeof(tk_chunks) + sizeof(tk_uids_exempt) + sizeof(tk_uids_hv);
}

unsigned int tk_capacity(void)
{
	/* Pairs with add_chunk()'s release: a counted chunk is fully built. */
	return smp_load_acquire(&tk_nchunks) * CHUNK;
}

/* Record id (0 .. tk_capacity() - 1) to record. */
struct sld_task *tk_rec(unsigned int id)
{
	return &tk_chunks[id >> CHUNK_SHIFT][id & (CHUNK - 1)];
}

/* tk_pool_lock held: the uid's slot in tb (linear probing), or a free one. */
static struct uid_count *uid_slot(struct uid_table *tb, kuid_t uid)
{
	unsigned int i = hash_32(__kuid_val(uid), UID_BITS), n;
	struct uid_count *u = tb->slot;

	for (n = 0; n < UID_SLOTS; n++, i = (i + 1) & (UID_SLOTS - 1))
		if (!u[i].n || uid_eq(u[i].uid, uid))
			return &u[i];
	return NULL;
}

/* tk_pool_lock held: one more record in slot u (from uid_slot()) for uid. */
static void uid_get(struct uid_count *u, kuid_t uid)
{
	if (!u->n++)
		u->uid = uid;
}

/* tk_pool_lock held: one record less for uid in tb (backward-shift delete). */
static void uid_put(struct uid_table *tb, kuid_t uid)
{
	struct uid_count *u = uid_slot(tb, uid), *s = tb->slot;
	unsigned int i, j, k;

	if (!u || !u->n || --u->n)
		return;
	i = u - s;
	for (j = (i + 1) & (UID_SLOTS - 1); s[j].n;
	     j = (j + 1) & (UID_SLOTS - 1)) {
		k = hash_32(__kuid_val(s[j].uid), UID_BITS);
		/* An entry whose home lies cyclically in (i, j] stays. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s[i] = s[j];
		s[j].n = 0;
		i = j;
	}
}

/*
 * tk_pool_lock held: uid, whose slot in tb is u (uid_slot()), may not
 * have one more record there. Without a slot (tb full), an exempt task
 * is over its cap; a hypervisor task is admitted uncounted (above).
 */
static bool uid_over_cap(struct uid_table *tb, struct uid_count *u)
{
	return u ? u->n >= tk_per_uid() : tb == &tk_uids_exempt;
}

/*
 * tk_pool_lock held: t counts for uid in tb from now on (root's: for no
 * uid, nor without a slot in a full hypervisor table), no longer where it
 * did; false at uid's cap in tb, nothing changed.
 */
bool tk_uid_move(struct sld_task *t, struct uid_table *tb, kuid_t uid)
{
	bool root = uid_eq(uid, GLOBAL_ROOT_UID);
	struct uid_count *u = root ? NULL : uid_slot(tb, uid);

	if (!root && uid_over_cap(tb, u))
		return false;
	if (t->counted)
		uid_put(t->counted, t->uid);
	t->counted = NULL;
	t->uid = uid;
	/* Again: the put may have shifted uid's slot in tb, or freed one. */
	u = root ? NULL : uid_slot(tb, uid);
	if (u) {
		uid_get(u, uid);
		t->counted = tb;
	}
	return true;
}

/* tk_pool_lock held: leave the exempt share (the record became a hypervisor's). */
void tk_leave_exempt_share(struct sld_task *t)
{
	if (!t->exempt_share)
		return;
	t->exempt_share = false;
	tk_nexempt--;
}

/* The table a non-root uid's records of this kind count in. */
static struct uid_table *uid_table(bool hv)
{
	return hv ? &tk_uids_hv : &tk_uids_exempt;
}

/*
 * tk_pool_lock held: a free record (more than the admin's reserve unless
 * admin), or why there is none.
 */
static enum refusal free_record(bool admin)
{
	if (tk_nfree > (admin ? 0 : ADMIN_RESERVE))
		return ADMIT;
	/* A failure is stale once a new attempt is queued. */
	return READ_ONCE(grow_failing) && !work_pending(&tk_grow_work) ?
	       REFUSE_NOMEM : REFUSE_GROWING;
}

/*
 * tk_pool_lock held: may current take a record? See the comment above.
 * *slot: where the record counts for its uid, NULL for none (root, an
 * admin record, or a hypervisor task when tk_uids_hv is full).
 */
static enum refusal admit(bool hv, bool admin, kuid_t uid,
			  struct uid_count **slot)
{
	unsigned int max = tk_max_tasks();

	*slot = NULL;
	if (admin)
		return tk_nadmin < ADMIN_LIMIT ? free_record(true) : REFUSE_FULL;
	if (nlive - tk_nadmin >= max)
		return REFUSE_FULL;
	if (!hv && tk_nexempt >= max - max / 4)
		return REFUSE_FULL;
	if (!uid_eq(uid, GLOBAL_ROOT_UID)) {
		*slot = uid_slot(uid_table(hv), uid);
		if (uid_over_cap(uid_table(hv), *slot))
			return REFUSE_CAP;
	}
	return free_record(false);
}

static void grow_fn(struct work_struct *work);
DECLARE_WORK(tk_grow_work, grow_fn);

/* Free records to keep ahead of demand. tk_pool_lock held. */
static unsigned int low_water(void)
{
	return max(CHUNK, nlive / 8);
}

/*
 * tk_pool_lock held. Capacity up to what admit() can let in: max_tasks
 * for the others, and the admin records alive, plus those of tasks in
 * do_exit and the free ones kept ahead of demand.
 */
static bool want_chunk(void)
{
	return tk_nfree < low_water() && tk_nchunks < MAX_CHUNKS &&
	       tk_nchunks * CHUNK < tk_max_tasks() + tk_nadmin + nexiting +
				    low_water();
}

/*
 * noinline and apart: the test suite's fx_nomem.ko makes it fail (an
 * allocation failure injected from outside, never in this module).
 */
noinline struct sld_task *tk_chunk_alloc(void)
{
	return kvcalloc(CHUNK, sizeof(struct sld_task), GFP_KERNEL);
}

/*
 * Current's record t after an exec that kept it, current now running as
 * uid: t counts for uid from now on, in the table it counts in, else
 * the one of what it is now (a released hypervisor record keeps its
 * stale hv, not its kind). False: uid is at its cap there, nothing
 * changed. An admin record counts for no uid; root's tasks count for
 * none either. Only current changes a live record's uid and table, so
 * they are read before the lock.
 */
bool tk_pool_recount(struct sld_task *t, kuid_t uid)
{
	struct uid_table *tb;
	unsigned long flags;
	bool moved;

	if (t->admin || uid_eq(t->uid, uid))
		return true;
	tb = t->counted ?: uid_table(READ_ONCE(t->why) == SLD_WHY_HV);
	/*
	 * A full exempt table refuses as admit() would, though the old
	 * uid's put might free a slot: uid changes at exec are rare.
	 */
	raw_spin_lock_irqsave(&tk_pool_lock, flags);
	moved = tk_uid_move(t, tb, uid);
	raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	return moved;
}

/* tk_pool_lock held: a new chunk's records join the free list. */
static void add_chunk(struct sld_task *c)
{
	unsigned int i;

	for (i = CHUNK; i-- > 0;) {
		c[i].next_free = tk_free_list;
		tk_free_list = &c[i];
	}
	tk_nfree += CHUNK;
	tk_chunks[tk_nchunks] = c;
	/* Publish the chunk only after its records and chunks[] are set. */
	smp_store_release(&tk_nchunks, tk_nchunks + 1);
}

/* Sleepable: allocate chunks until low_water() records are free again. */
int tk_grow(void)
{
	unsigned long flags;
	struct sld_task *c;
	bool want;

	for (;;) {
		raw_spin_lock_irqsave(&tk_pool_lock, flags);
		want = want_chunk();
		raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
		if (!want) {
			/* Enough free: a refusal now is a burst, not memory. */
			WRITE_ONCE(grow_failing, false);
			return 0;
		}
		c = tk_chunk_alloc();
		WRITE_ONCE(grow_failing, !c);
		if (!c) {
			atomic_long_inc(&tk_n_grow_failed);
			return -ENOMEM;
		}
		raw_spin_lock_irqsave(&tk_pool_lock, flags);
		if (want_chunk()) {
			add_chunk(c);
			c = NULL;
		}
		raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
		kvfree(c);
	}
}

/* tk_task_mutex: sld_task_free() waits for it with cancel_work_sync(). */
static void grow_fn(struct work_struct *work)
{
	mutex_lock(&tk_task_mutex);
	tk_grow();
	mutex_unlock(&tk_task_mutex);
}

/*
 * A record for task, whole once it is used: why, hv, task and its
 * reference are set under the lock, where sld_task_release() and
 * sld_task_list() (any reader of runs) look at a used record, never at a
 * previous owner's or at a NULL task.
 */
struct sld_task *tk_pool_get(struct task_struct *task, enum sld_why why,
			     struct sld_owner *hv, bool admin,
			     enum refusal *refused)
{
	kuid_t uid = current_uid();
	struct sld_task *t = NULL;
	struct uid_count *slot;
	unsigned long flags;
	bool more;

	raw_spin_lock_irqsave(&tk_pool_lock, flags);
	*refused = admit(!!hv, admin, uid, &slot);
	if (*refused == ADMIT) {
		t = tk_free_list;
		tk_free_list = t->next_free;
		tk_nfree--;
		nlive++;
		memset(t, 0, sizeof(*t));
		get_task_struct(task);
		t->task = task;
		t->pid = task_pid_nr(task);
		t->used = true;
		t->why = why;
		t->hv = hv;
		t->uid = uid;
		t->admin = admin;
		if (admin)
			tk_nadmin++;
		else if (!hv) {
			t->exempt_share = true;
			tk_nexempt++;
		}
		if (slot) {
			uid_get(slot, uid);
			t->counted = uid_table(hv);
		}
	}
	more = want_chunk();
	raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	if (more)
		schedule_work(&tk_grow_work);
	return t;
}

/* tk_pool_lock held: t counts nowhere from now on. */
static void unaccount(struct sld_task *t)
{
	tk_leave_exempt_share(t);
	if (t->admin)
		tk_nadmin--;
	t->admin = false;
	if (t->counted)
		uid_put(t->counted, t->uid);
	t->counted = NULL;
	nlive--;
}

/*
 * t's task is in do_exit and may keep the record to its last switch
 * (task.c frees it after): from now on it is gone for every count and
 * bound, live, the exempt share, admin records, its uid's, as a record
 * that went at exit; only its memory waits (tk_records()). At most
 * EXITING_MAX such records at once, which the pool grows for
 * (want_chunk()): a user who ends threads faster than they are freed
 * cannot hold free records past their bounds. False: over it, the
 * caller frees t now.
 */
#define EXITING_MAX	(CHUNK / 2)

bool tk_pool_exiting(struct sld_task *t)
{
	unsigned long flags;
	bool parked = false;

	raw_spin_lock_irqsave(&tk_pool_lock, flags);
	if (nexiting < EXITING_MAX) {
		unaccount(t);
		t->exiting = true;
		nexiting++;
		parked = true;
	}
	raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	return parked;
}

/*
 * t's task is at its last switch and t lets it go: from here on nobody
 * takes a task reference through t (sld_task_list() looks under the
 * lock), so the caller may drop the record's own. An exiting record,
 * the usual one, needs no lock: sld_task_list() passes over it since
 * tk_pool_exiting(), which its own task ran before this switch.
 */
void tk_pool_retire(struct sld_task *t)
{
	unsigned long flags;

	if (t->exiting) {
		WRITE_ONCE(t->retired, true);
		return;
	}
	raw_spin_lock_irqsave(&tk_pool_lock, flags);
	t->retired = true;
	raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
}

/* Returns the task reference the record held, for the caller to drop. */
struct task_struct *tk_pool_put(struct sld_task *t)
{
	struct task_struct *task = t->task;
	unsigned long flags;

	raw_spin_lock_irqsave(&tk_pool_lock, flags);
	if (t->exiting)
		nexiting--;
	else
		unaccount(t);
	t->used = false;
	t->next_free = tk_free_list;
	tk_free_list = t;
	tk_nfree++;
	raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	return task;
}

/* Records of live tasks: what max_tasks bounds and the status shows. */
unsigned int tk_live(void)
{
	return READ_ONCE(nlive);
}

/* Records of tasks in do_exit, their last switch to come or not. */
unsigned int tk_exiting(void)
{
	return READ_ONCE(nexiting);
}

/* Every record still linked to a task, its last switch to come or not. */
unsigned int tk_records(void)
{
	unsigned long flags;
	unsigned int n;

	raw_spin_lock_irqsave(&tk_pool_lock, flags);
	n = nlive + nexiting;
	raw_spin_unlock_irqrestore(&tk_pool_lock, flags);
	return n;
}

/* ---- knobs: max_tasks, tasks_per_uid ------------------------------------------------ */

/*
 * max_tasks bounds the records (protected tasks) alive at once. Lowering
 * it below the live count is accepted and only caps: no record is taken
 * away, new ones are refused until fewer are alive, and memory already
 * allocated stays until unload. Raising it lets the pool grow on demand.
 */
static int max_tasks_set(const char *val, const char **why)
{
	int v;
	const struct sld_knob_schema *s = &sld_knob_schema[SLD_KN_MAX_TASKS];
	int err = sld_parse_int(val, s->min, s->max, &v, why);

	if (err)
		return err;
	WRITE_ONCE(max_tasks_knob, v);
	/* Raised: room for new records now, not at the next refusal. */
	if (READ_ONCE(tk_setup_done))
		schedule_work(&tk_grow_work);
	return 0;
}

static int max_tasks_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", tk_max_tasks());
}

static struct sld_knob knob_max_tasks = {
	.schema = &sld_knob_schema[SLD_KN_MAX_TASKS],
	.set = max_tasks_set, .show = max_tasks_show,
};
SLD_KNOB(max_tasks, knob_max_tasks);

static int per_uid_set(const char *val, const char **why)
{
	int v;
	const struct sld_knob_schema *s = &sld_knob_schema[SLD_KN_TASKS_PER_UID];
	int err = sld_parse_int(val, s->min, s->max, &v, why);

	if (!err)
		WRITE_ONCE(per_uid_knob, v);
	return err;
}

static int per_uid_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", tk_per_uid());
}

static struct sld_knob knob_per_uid = {
	.schema = &sld_knob_schema[SLD_KN_TASKS_PER_UID],
	.set = per_uid_set, .show = per_uid_show,
};
SLD_KNOB(tasks_per_uid, knob_per_uid);
