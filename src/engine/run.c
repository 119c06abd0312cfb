// SPDX-License-Identifier: GPL-2.0
/*
 * `sldctl run CMD`: relief for one process tree of a user the admin
 * allowed, for as long as it lives (issue #30; docs/internals.md).
 *
 * Who decides what:
 *   the admin  run_allow: uids and @gids (sldctl apply resolves the names
 *              of /etc/sld-compat), for users' runs. Root needs no entry:
 *              root may always (below).
 *   the user   `sldctl run CMD` asks the user's own systemd manager for a
 *              transient scope (`systemd-run --user --scope
 *              --unit=sld-run-...`) and execs CMD in it; root's run
 *              always asks the system manager (a scope below
 *              system.slice).
 *   the module a task is relieved while its cgroup is such a scope, or
 *              below one, at one of two places only:
 *                /user.slice/user-U.slice/user@U.service/.../sld-run-*.scope
 *                  where U is the task's real uid, and U is root, or
 *                  listed, or its real gid or a supplementary group is;
 *                /system.slice/sld-run-*.scope, the scope itself a child
 *                  of system.slice, for root's tasks (and listed ones').
 *
 * Why root needs no entry: root can write run_allow, or exempt_cgroup,
 * anyway; the question is only who else could get a root task relieved.
 * A cgroup directly below /system.slice is made by mkdir there, which
 * takes write access to that directory: root's (systemd's) alone. The
 * system manager delegates subtrees to users only below user.slice
 * (user@U.service), and a Delegate=yes system service's own cgroup is a
 * child of system.slice, so whatever its user creates is a grandchild,
 * which this rule ignores; a container's root in its own cgroup namespace
 * writes only below its scope, likewise two levels down. cgroup v2 has no
 * rename. So /system.slice/sld-run-*.scope is made by the system manager
 * alone, for root or a caller polkit lets manage units (who can start
 * any service as root: root's equal), and a scope holds the caller's own
 * processes: a user's task there has the user's real uid, not root's.
 *
 * Arming on demand: users' runs arm the probes and the preempt-notifier
 * key while run_allow is set, as any rule does; with the list empty
 * nothing is armed for runs, so a host where nobody runs pays nothing.
 * Root's first run arms them instead: the first time a root task matches
 * a run scope (at its exec, or at a split lock) while runs are not armed,
 * exempt.c queues run_arm_work, which arms runs as a set run_allow would,
 * until unload; that task's locks until then pay the kernel's penalty.
 * `sldctl run` as root therefore waits in the scope (its own exec there
 * armed them) until the task-clone probe is no longer idle before it
 * execs CMD, so CMD is relieved from its exec on. Only root's tasks get
 * there (the uid test comes first): no other user can make the host pay
 * for the probes.
 *
 * Why this is safe without a setuid helper or a D-Bus service: moving a
 * process into a cgroup takes write access to the destination's
 * cgroup.procs and to that of the common ancestor of source and
 * destination (cgroup v2 delegation). user@U.service is delegated to U
 * alone and the common ancestor of two users' cgroups is root's, so only
 * U (and root) puts tasks into U's scopes, and U cannot pull another
 * user's process into one. The name is no secret: any user may mkdir
 * sld-run-x.scope in their own subtree, which gains nothing to one not
 * allowed (the uid test) and nothing more to one allowed. The uid in the
 * path must be the task's real uid: `su other` inside a run is other's
 * task. Groups are the real gid and the supplementary ones, not
 * in_group_p(): that one counts the fsgid (the egid), which a setgid
 * program (Debian ships setgid-games ones) gives whoever runs it.
 * groups_search() is not exported; the group list is sorted by whoever
 * sets it (groups_sort()), and searched here the same way.
 *
 * What one user can hold: relieved tasks are exempt records (task/pool.c):
 * the exempt share and the per-uid table (tasks_per_uid) bound them, so
 * no allowed user takes what hypervisors or other users need.
 *
 * Lifetime: exempt.c decides a task at exec, at its start (a forked
 * child, a thread started later) and at a split lock, and relieves a
 * run's task ahead of any split lock, whatever exempt_proactive says:
 * the user asked for it. A record ends with its task (do_exit), so when
 * the run's last task exits nothing stays relieved; systemd then removes
 * the scope. A task moved out of the scope keeps its record until it
 * execs or exits (the kernel tells no module of a migration; moving
 * needs the user's own rights anyway).
 *
 * Why a scope and not a registered pid: a pid needs a privileged helper
 * that trusts the caller, and a parent-pid rule loses the daemonising
 * children games and Wine start (Steam's reaper, wineserver); the kernel
 * keeps a cgroup through every fork. Why not a glob in exempt_cgroup:
 * the uid in the path must equal the task's, which no pattern says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uidgid.h>

#include "compat/compat.h"
#include "engine/run.h"
#include "engine/task/task.h"
#include "knobs/knobs.h"
#include "knobs/switches.h"
#include "schema/entries.h"
#include "schema/escape.h"

#define RUN_PREFIX	"sld-run-"
#define RUN_SUFFIX	".scope"

struct run_id {
	bool group;
	kuid_t uid;
	kgid_t gid;
};

struct run_allow {
	struct sld_list list;		/* first: knobs.h */
	struct run_id e[SLD_RUN_ALLOW_MAX];
};
static_assert(offsetof(struct run_allow, list) == 0);

static struct sld_list __rcu *allow;	/* in a struct run_allow */
static bool root_armed;		/* root's first run armed runs (above) */

/* ---- matching (any context, under rcu_read_lock) ---------------------------- */

static const char *cg_name(const struct cgroup *cg)
{
	return sld_kernfs_name_rcu(cg->kn);
}

static bool is_run_scope(const char *name)
{
	size_t n = strlen(name), p = strlen(RUN_PREFIX), s = strlen(RUN_SUFFIX);

	return n > p + s && !strncmp(name, RUN_PREFIX, p) &&
	       !strcmp(name + n - s, RUN_SUFFIX);
}

static struct cgroup *ancestor_at(struct cgroup *cg, int level)
{
	while (cg && cg->level > level)
		cg = cgroup_parent(cg);
	return cg && cg->level == level ? cg : NULL;
}

static bool named(struct cgroup *cg, const char *want)
{
	return cg && !strcmp(cg_name(cg), want);
}

/* The outermost run scope that is cg or its ancestor at min or deeper. */
static struct cgroup *outer_scope(struct cgroup *cg, int min)
{
	struct cgroup *found = NULL;

	for (; cg && cg->level >= min; cg = cgroup_parent(cg))
		if (is_run_scope(cg_name(cg)))
			found = cg;
	return found;
}

/* The run scope cg belongs to, for a task whose real uid is uid; or NULL. */
static struct cgroup *scope_of(struct cgroup *cg, uid_t uid)
{
	char want[32];

	if (named(ancestor_at(cg, 1), "system.slice"))
		return outer_scope(ancestor_at(cg, 2), 2);
	if (!named(ancestor_at(cg, 1), "user.slice"))
		return NULL;
	snprintf(want, sizeof(want), "user-%u.slice", uid);
	if (!named(ancestor_at(cg, 2), want))
		return NULL;
	snprintf(want, sizeof(want), "user@%u.service", uid);
	if (!named(ancestor_at(cg, 3), want))
		return NULL;
	return outer_scope(cg, 4);
}

/* groups_search() (kernel/groups.c, not exported): gi is sorted. */
static bool in_groups(const struct group_info *gi, kgid_t g)
{
	unsigned int lo = 0, hi = gi ? gi->ngroups : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (gid_gt(g, gi->gid[mid]))
			lo = mid + 1;
		else if (gid_lt(g, gi->gid[mid]))
			hi = mid;
		else
			return true;
	}
	return false;
}

/*
 * Real ids only: no setuid or setgid program makes anyone allowed. Root
 * always; others while a (run_allow, NULL when empty) lists them.
 */
static bool allowed(const struct run_allow *a, const struct cred *c)
{
	unsigned int i;

	if (uid_eq(c->uid, GLOBAL_ROOT_UID))
		return true;
	for (i = 0; a && i < a->list.names->n; i++) {
		const struct run_id *e = &a->e[i];

		if (e->group ? gid_eq(c->gid, e->gid) ||
			       in_groups(c->group_info, e->gid) :
			       uid_eq(c->uid, e->uid))
			return true;
	}
	return false;
}

const char *sld_run_match(struct task_struct *t)
{
	const struct sld_list *l = rcu_dereference(allow);
	const struct cred *c;
	struct cgroup *s;

	c = __task_cred(t);
	if (!allowed(l ? container_of(l, struct run_allow, list) : NULL, c))
		return NULL;
	s = scope_of(task_dfl_cgroup(t), from_kuid(&init_user_ns, c->uid));
	return s ? cg_name(s) : NULL;
}

bool sld_run_any(void)
{
	return rcu_access_pointer(allow) || READ_ONCE(root_armed);
}

/* Knobs mutex. Root's first run: runs stay armed; true if it was not. */
bool sld_run_root_arm(void)
{
	if (root_armed)
		return false;
	WRITE_ONCE(root_armed, true);
	return true;
}

/* ---- run_allow (knobs mutex) ------------------------------------------------ */

static int id_check(const char *s, const char **why)
{
	*why = sld_id_check(s);
	return *why ? -EINVAL : 0;
}

static const struct sld_names_rule id_rule = {
	.max = SLD_RUN_ALLOW_MAX, .max_len = SLD_ID_LEN, .check = id_check,
};

static int id_parse(struct sld_list *l, unsigned int i, const char **why)
{
	const char *s = l->names->v[i];
	struct run_id *e = &container_of(l, struct run_allow, list)->e[i];
	u32 id;

	e->group = *s == '@';
	if (kstrtou32(s + e->group, 10, &id)) {
		*why = "id out of range";
		return -EINVAL;
	}
	e->uid = make_kuid(&init_user_ns, id);
	e->gid = make_kgid(&init_user_ns, id);
	return 0;
}

static const struct sld_list_kind allow_kind = {
	.rule = &id_rule, .size = sizeof(struct run_allow),
	.resolve = id_parse,
};

/* All or nothing; the caller releases the run tasks (exempt.c). */
int sld_run_allow_set(const char *val, const char **why)
{
	return sld_list_set(&allow, &allow_kind, val, why);
}

int sld_run_allow_show(char *buf, size_t size)
{
	return sld_list_show(&allow, buf, size);
}

void sld_run_free(void)
{
	sld_list_free(&allow);
}

/* ---- the runs status file ---------------------------------------------------- */

#define RUNS_MAX	64	/* runs listed; the rest are counted */
#define RUN_TASKS_MAX	1024	/* run tasks read per listing */
/* The longest line: ids and counters, escaped comm, the escaped scope name. */
#define RUN_LINE_MAX	(100 + COMM_ESC_LEN + SLD_ESC_SIZE(NAME_MAX))

struct run_line {
	u64 scope;			/* the scope's cgroup id */
	uid_t uid;
	char name[NAME_MAX + 1];
	char comm[TASK_COMM_LEN];	/* its task protected first */
	time64_t since;
	unsigned int tasks;
	unsigned long ac;
};

/* The run of one relieved task, found or added in r[]; NULL if full. */
static struct run_line *line_of(struct run_line *r, unsigned int *nr,
				u64 scope)
{
	unsigned int i;

	for (i = 0; i < *nr; i++)
		if (r[i].scope == scope)
			return &r[i];
	if (*nr == RUNS_MAX)
		return NULL;
	memset(&r[*nr], 0, sizeof(r[*nr]));
	r[*nr].scope = scope;
	r[*nr].since = TIME64_MAX;
	return &r[(*nr)++];
}

/* Adds one task to its run; false if it fits no line. */
static bool add_task(struct run_line *r, unsigned int *nr,
		     const struct sld_task_info *ti)
{
	struct run_line *l = NULL;
	struct cgroup *s;
	uid_t uid;

	rcu_read_lock();
	uid = from_kuid(&init_user_ns, __task_cred(ti->task)->uid);
	s = scope_of(task_dfl_cgroup(ti->task), uid);
	if (s)
		l = line_of(r, nr, cgroup_id(s));
	if (l && !l->tasks)
		strscpy(l->name, cg_name(s), sizeof(l->name));
	rcu_read_unlock();
	if (!l)
		return false;
	if (ti->since < l->since) {
		l->since = ti->since;
		l->uid = uid;
		memcpy(l->comm, ti->comm, TASK_COMM_LEN);
	}
	l->tasks++;
	l->ac += ti->ac;
	return true;
}

/*
 * One run's line into line[RUN_LINE_MAX]. The scope's name is the user's
 * (any bytes but '/'): escaped as comm is, and its spaces too, so that it
 * stays one field of one line (src/schema/escape.h).
 */
static int run_line_show(char *line, const struct run_line *r)
{
	char comm[COMM_ESC_LEN];
	int n;

	sld_comm_escape(comm, r->comm);
	n = scnprintf(line, RUN_LINE_MAX, "%u %s scope=", r->uid, comm);
	sld_esc(line + n, RUN_LINE_MAX - n, r->name, sizeof(r->name),
		SLD_ESC_SPACE);
	n += strlen(line + n);
	return n + scnprintf(line + n, RUN_LINE_MAX - n,
			     " since=%lld tasks=%u ac=%lu\n",
			     (long long)r->since, r->tasks, r->ac);
}

/*
 * One line per run: "UID COMM scope=NAME since=SECONDS tasks=N ac=N",
 * COMM (escaped as in the tasks file: its first task, what `sldctl run`
 * started), NAME escaped (run_line_show()), since in seconds since boot,
 * tasks relieved now, ac their split-lock traps taken without penalty
 * (locks that found SLD already off leave no trace to count). "none" when
 * there is no run; a last line "... N more task(s)" when some fit no line
 * (over RUNS_MAX runs, moved out of their scope, or past the page).
 */
int sld_run_show(char *buf, size_t size)
{
	struct sld_task_info *ti;
	struct run_line *r;
	unsigned int i, nt, nr = 0, more = 0;
	char *line;
	int n = 0, len;

	ti = kcalloc(RUN_TASKS_MAX, sizeof(*ti), GFP_KERNEL);
	r = kcalloc(RUNS_MAX, sizeof(*r), GFP_KERNEL);
	line = kmalloc(RUN_LINE_MAX, GFP_KERNEL);
	if (!ti || !r || !line) {
		kfree(ti);
		kfree(r);
		kfree(line);
		return -ENOMEM;
	}
	nt = sld_task_list(SLD_WHY_RUN, ti, RUN_TASKS_MAX);
	for (i = 0; i < nt; i++) {
		more += !add_task(r, &nr, &ti[i]);
		put_task_struct(ti[i].task);
	}
	for (i = 0; i < nr; i++) {
		len = run_line_show(line, &r[i]);
		/* Room left for the "... more" line. */
		if (n + len + 32 >= size) {
			more += r[i].tasks;
			continue;
		}
		memcpy(buf + n, line, len + 1);
		n += len;
	}
	if (more)
		n += scnprintf(buf + n, size - n, "... %u more task(s)\n", more);
	if (!n)
		n = scnprintf(buf, size, "none\n");
	kfree(ti);
	kfree(r);
	kfree(line);
	return n;
}
