// SPDX-License-Identifier: GPL-2.0
/*
 * Exemptions: ordinary processes an admin wants handled like protected
 * hypervisor tasks (a game under Proton, a legacy binary, one VM's QEMU).
 *
 *   exempt_comm    task names (what ps shows, at most 15 characters)
 *   exempt_path    executables, by absolute path; the path is resolved
 *                  when written and matched by the file it named then
 *                  (struct file_id), so a symlink or a hard link to the
 *                  same file matches too, and a binary replaced or
 *                  changed later (a package upgrade) needs the knob
 *                  written again
 *   exempt_cgroup  cgroup v2 directories; a task in one of them or below
 *   exempt_proactive  N: an exempt task is protected from its first split
 *                  lock on; Y: from exec, before any split lock
 *
 * A rule is matched against the task as it is when asked: at a split lock
 * and, when the task execs, for the new program. So a child inherits an
 * exemption exactly as far as it still matches (same name, executable or
 * cgroup; fork keeps all three), and exec re-decides it. The protected
 * state itself (SLD off while running) is never inherited: fork starts the
 * child unprotected (task_sld.c).
 *
 * Each rule kind is an owner of protected tasks (struct sld_owner): this
 * file tells task_sld.c when a kind has rules (sld_task_need), protects
 * the tasks they match on its behalf, and releases them when the rules
 * change. The probes that decide at exec, thread start and rename are
 * here too: they ask the rules, task_sld.c only keeps the records.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <linux/namei.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sld_compat.h"
#include "compat/compat.h"
#include "degraded.h"
#include "exempt.h"
#include "glob.h"
#include "hooks.h"
#include "knobs.h"
#include "task_sld.h"

/* Bounds: the knob schema (schema/knobs_table.h). */
#define COMM_MAX	SLD_COMM_LIST_MAX
#define PATH_MAX_N	SLD_PATH_LIST_MAX
#define PATH_LEN	SLD_PATH_LEN
#define CGROUP_MAX	SLD_CGROUP_LIST_MAX
#define COMM_PATTERN_LEN SLD_COMM_PATTERN_LEN

/*
 * The file, not just its number: a deleted binary's inode number is
 * handed to the next file created on that filesystem (ext4 takes the
 * lowest free one), and that file must not inherit the exemption. The
 * generation is what NFS file handles use for the same reason (ext4,
 * xfs, btrfs and tmpfs draw it at random per new inode); ctime covers
 * filesystems that leave it 0 (ramfs) and also ends the match when the
 * file itself is rewritten, chmod'ed or chown'ed (at the filesystem's
 * timestamp granularity: a change within the same second, on ext2's
 * small inodes, goes unseen): what is exempt is the file as it was when
 * the admin named it. Holding the inode instead
 * would keep a deleted binary's blocks allocated and its filesystem busy.
 */
struct file_id {
	dev_t dev;
	unsigned long ino;
	u32 gen;
	struct timespec64 ctime;
};

static void file_id_of(const struct inode *ino, struct file_id *id)
{
	id->dev = ino->i_sb->s_dev;
	id->ino = ino->i_ino;
	id->gen = ino->i_generation;
	id->ctime = sld_inode_ctime(ino);
}

static bool file_id_eq(const struct file_id *a, const struct file_id *b)
{
	return a->ino == b->ino && a->dev == b->dev && a->gen == b->gen &&
	       timespec64_equal(&a->ctime, &b->ctime);
}

/* A list whose entries are resolved when written: paths or cgroups. */
struct resolved {
	struct sld_names *names;
	union {
		struct file_id id[PATH_MAX_N];	/* exempt_path */
		struct cgroup *cg[CGROUP_MAX];	/* exempt_cgroup */
	};
};

/* How one kind of resolved list checks, resolves and releases entries. */
struct resolved_kind {
	const char *knob;
	struct sld_owner *owner;
	const struct sld_names_rule *rule;
	int (*resolve)(struct resolved *r, unsigned int i, const char **why);
	void (*release)(struct resolved *r);	/* optional */
};

static struct sld_owner owner_comm = { .why = SLD_WHY_COMM };
static struct sld_owner owner_path = { .why = SLD_WHY_PATH };
static struct sld_owner owner_cgroup = { .why = SLD_WHY_CGROUP };

static struct sld_names __rcu *comms;
static struct resolved __rcu *paths;
static struct resolved __rcu *cgroups;
static bool proactive;

static void update_hooks(void);

/*
 * A rule changed: the tasks protected under the old rules of its kind are
 * released and decide again under the new ones (sld_task_release()), so
 * that removing a rule takes effect for running tasks too. A task that
 * still matches pays one #AC (none at exec with exempt_proactive=Y).
 * Then the kind tells task_sld.c whether it still has rules.
 */
static void recheck(struct sld_owner *o, const char *knob, bool any)
{
	unsigned int n = sld_task_release(o);

	if (n)
		pr_info("%s changed: %u task(s) it exempted decide again at their next split lock\n",
			knob, n);
	sld_task_need(o, any);
	update_hooks();
}

/* ---- matching (any context, current task) -------------------------------- */

static bool comm_match(const struct task_struct *t)
{
	const struct sld_names *l = rcu_dereference(comms);
	unsigned int i;

	for (i = 0; l && i < l->n; i++)
		if (sld_glob_match(l->v[i], t->comm))
			return true;
	return false;
}

static bool path_match(const struct task_struct *t)
{
	const struct resolved *p = rcu_dereference(paths);
	struct file_id id;
	struct file *exe;
	unsigned int i;

	if (!p || !t->mm)
		return false;
	exe = rcu_dereference(t->mm->exe_file);
	if (!exe)
		return false;
	file_id_of(file_inode(exe), &id);
	for (i = 0; i < p->names->n; i++)
		if (file_id_eq(&p->id[i], &id))
			return true;
	return false;
}

static bool cgroup_match(struct task_struct *t)
{
	const struct resolved *c = rcu_dereference(cgroups);
	struct cgroup *cg;
	unsigned int i;

	if (!c)
		return false;
	cg = task_dfl_cgroup(t);
	for (i = 0; i < c->names->n; i++)
		if (cgroup_is_descendant(cg, c->cg[i]))
			return true;
	return false;
}

/* Which rule kind exempts current, if any (NULL). Atomic context is fine. */
struct sld_owner *sld_exempt_match(void)
{
	struct task_struct *t = current;
	struct sld_owner *o = NULL;

	rcu_read_lock();
	if (comm_match(t))
		o = &owner_comm;
	else if (path_match(t))
		o = &owner_path;
	else if (cgroup_match(t))
		o = &owner_cgroup;
	rcu_read_unlock();
	return o;
}

static bool exempt_any(void)
{
	return rcu_access_pointer(comms) || rcu_access_pointer(paths) ||
	       rcu_access_pointer(cgroups);
}

/* ---- deciding at exec, thread start and rename (probes, current) ---------- */

/*
 * setup_new_exec() returned: comm and exe are the new program's. An
 * exemption is re-decided for it; a hypervisor task keeps its protection
 * (task_sld.c drops only a record no hypervisor holds).
 */
static int exec_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sld_owner *o = sld_exempt_match();

	sld_task_exec(!!o);
	if (o && READ_ONCE(proactive) && !sld_task_protected())
		sld_task_protect_ahead(o);
	return 0;
}

/*
 * With exempt_proactive=Y a task an exemption matches is protected before
 * its first split lock: at exec (above), when it starts (a vCPU thread is
 * created long after its process's exec) and when it names itself (QEMU's
 * "CPU 3/KVM" and VirtualBox's "EMT-3" threads name themselves once they
 * run). Kernel threads and a process's kernel-side workers are never
 * exempt ahead of a trap.
 */
static void proactive_decide(void)
{
	struct sld_owner *o;

	if (!READ_ONCE(proactive) || (current->flags & SLD_PF_NOT_USER))
		return;
	o = sld_exempt_match();
	if (o && !sld_task_protected())
		sld_task_protect_ahead(o);
}

/* schedule_tail() returned: the first instructions of a new task. */
static int start_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	proactive_decide();
	return 0;
}

/*
 * __set_task_comm(tsk, buf, exec): only a task naming itself, outside
 * exec (exec_ret decides that one), in its own context.
 */
static int rename_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	/* exec is a bool: only its low byte is defined in the register. */
	bool self = (struct task_struct *)regs->di == current &&
		    !(u8)regs->dx && !(current->flags & SLD_PF_NOT_USER);

	return self ? 0 : 1;	/* 1: no return handler for this call */
}

static int rename_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	proactive_decide();
	sld_task_renamed();
	return 0;
}

static struct sld_hook hook_exec = {
	.name = "exec", .symbol = "setup_new_exec", .ret = true,
	.handler = exec_ret,
};

static struct sld_hook hook_start = {
	.name = "task-start", .symbol = "schedule_tail", .ret = true,
	.handler = start_ret, .on_demand = true,
};

static struct sld_hook hook_rename = {
	.name = "task-rename", .symbol = "__set_task_comm", .ret = true,
	.entry = rename_entry, .handler = rename_ret, .on_demand = true,
};

/*
 * Probes on every fork and rename: armed only while they can act (hooks.c
 * arms them only while enabled=Y, too). Knobs mutex, or init.
 */
static void update_hooks(void)
{
	bool want = sld_task_possible() && exempt_any() && READ_ONCE(proactive);

	sld_hook_want(&hook_start, want);
	sld_hook_want(&hook_rename, want);
}

/* Before sld_hooks_init(), after sld_task_setup(). */
void sld_exempt_setup(void)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS))
		return;
	sld_hook_add(&hook_exec);
	sld_hook_add(&hook_start);
	sld_hook_add(&hook_rename);
}

/* After sld_task_init(): the rules given at load act from now on. */
void sld_exempt_init(void)
{
	if (sld_task_possible() && !hook_exec.registered)
		sld_degrade("exec", "no setup_new_exec probe: exemptions act from the first split lock only");
	if (sld_task_possible() && !hook_start.registered)
		sld_degrade("task-start", "no schedule_tail probe: new threads of exempt processes are protected from their first split lock");
	if (sld_task_possible() && !hook_rename.registered)
		sld_degrade("task-rename", "no __set_task_comm probe: a thread exempt by its new name is protected from its first split lock");
	sld_knobs_lock();
	sld_task_need(&owner_comm, !!rcu_access_pointer(comms));
	sld_task_need(&owner_path, !!rcu_access_pointer(paths));
	sld_task_need(&owner_cgroup, !!rcu_access_pointer(cgroups));
	update_hooks();
	sld_knobs_unlock();
}

/* ---- exempt_comm ----------------------------------------------------------- */

/* A name or a pattern (x86scan/glob.c): "qemu-system-x86", "EMT-*". */
static int comm_check(const char *s, const char **why)
{
	const char *bad = sld_glob_check(s, SLD_COMM_LEN);

	BUILD_BUG_ON(sizeof_field(struct task_struct, comm) != SLD_COMM_LEN + 1);
	if (bad) {
		*why = bad;
		return -EINVAL;
	}
	return 0;
}

static const struct sld_names_rule comm_rule = {
	.max = COMM_MAX, .max_len = COMM_PATTERN_LEN, .check = comm_check,
	.spaces = true,
};

/* Readers are RCU; writers hold the knobs mutex and may sleep. */
static int comm_set(const char *val, const char **why)
{
	struct sld_names *old = rcu_dereference_protected(comms, 1), *l;
	int err = sld_names_edit(old, val, &comm_rule, &l, why);

	if (err)
		return err;
	if (!l->n) {
		sld_names_free(l);
		l = NULL;
	}
	rcu_assign_pointer(comms, l);
	synchronize_rcu();
	sld_names_free(old);
	recheck(&owner_comm, "exempt_comm", !!l);
	return 0;
}

static int comm_show(char *buf, size_t size)
{
	return sld_names_show(rcu_dereference_protected(comms, 1), buf, size);
}

static struct sld_knob knob_comm = {
	.schema = &sld_knob_schema[SLD_KN_EXEMPT_COMM],
	.set = comm_set, .show = comm_show, .free = sld_exempt_free,
};
SLD_KNOB(exempt_comm, knob_comm);

/* ---- lists resolved when written (exempt_path, exempt_cgroup) ------------- */

static void resolved_free(const struct resolved_kind *kind, struct resolved *r)
{
	if (!r)
		return;
	if (kind->release)
		kind->release(r);
	sld_names_free(r->names);
	kfree(r);
}

/* All or nothing: every entry resolves, or the knob stays as it was. */
static int resolved_set(struct resolved __rcu **slot,
			const struct resolved_kind *kind, const char *val,
			const char **why)
{
	struct resolved *old = rcu_dereference_protected(*slot, 1), *r;
	unsigned int i;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	err = sld_names_edit(old ? old->names : NULL, val, kind->rule,
			     &r->names, why);
	for (i = 0; !err && i < r->names->n; i++)
		err = kind->resolve(r, i, why);
	if (err) {
		resolved_free(kind, r);
		return err;
	}
	if (!r->names->n) {
		resolved_free(kind, r);
		r = NULL;
	}
	rcu_assign_pointer(*slot, r);
	synchronize_rcu();
	resolved_free(kind, old);
	recheck(kind->owner, kind->knob, !!r);
	return 0;
}

static int resolved_show(struct resolved __rcu **slot, char *buf, size_t size)
{
	const struct resolved *r = rcu_dereference_protected(*slot, 1);

	return sld_names_show(r ? r->names : NULL, buf, size);
}

/* ---- exempt_path ----------------------------------------------------------- */

/* Absolute, canonical: no empty, "." or ".." component. */
static int path_check(const char *s, const char **why)
{
	const char *c = s;

	if (s[0] != '/') {
		*why = "path is not absolute";
		return -EINVAL;
	}
	while (*c == '/') {
		const char *end = strchrnul(c + 1, '/');
		size_t len = end - c - 1;

		if (!len || (len == 1 && c[1] == '.') ||
		    (len == 2 && c[1] == '.' && c[2] == '.')) {
			*why = "path has an empty, . or .. component";
			return -EINVAL;
		}
		c = end;
	}
	return 0;
}

static const struct sld_names_rule path_rule = {
	.max = PATH_MAX_N, .max_len = PATH_LEN, .check = path_check,
};

static int path_resolve(struct resolved *r, unsigned int i, const char **why)
{
	struct inode *ino;
	struct path p;
	int err;

	if (kern_path(r->names->v[i], LOOKUP_FOLLOW, &p)) {
		*why = "no such file";
		return -EINVAL;
	}
	ino = d_backing_inode(p.dentry);
	err = ino && S_ISREG(ino->i_mode) ? 0 : -EINVAL;
	if (err)
		*why = "not a regular file";
	else
		file_id_of(ino, &r->id[i]);
	path_put(&p);
	return err;
}

static const struct resolved_kind path_kind = {
	.knob = "exempt_path", .owner = &owner_path, .rule = &path_rule, .resolve = path_resolve,
};

static int path_set(const char *val, const char **why)
{
	return resolved_set(&paths, &path_kind, val, why);
}

static int path_show(char *buf, size_t size)
{
	return resolved_show(&paths, buf, size);
}

static struct sld_knob knob_path = {
	.schema = &sld_knob_schema[SLD_KN_EXEMPT_PATH],
	.set = path_set, .show = path_show, .free = sld_exempt_free,
};
SLD_KNOB(exempt_path, knob_path);

/* ---- exempt_cgroup --------------------------------------------------------- */

static int cgroup_check(const char *s, const char **why)
{
	int err = path_check(s, why);

	if (!err && !strcmp(s, "/")) {
		*why = "the root cgroup would exempt every task";
		err = -EINVAL;
	}
	return err;
}

static const struct sld_names_rule cgroup_rule = {
	.max = CGROUP_MAX, .max_len = PATH_LEN, .check = cgroup_check,
};

static int cgroup_resolve(struct resolved *r, unsigned int i,
			  const char **why)
{
	struct cgroup *cg = cgroup_get_from_path(r->names->v[i]);

	if (IS_ERR(cg)) {
		*why = "no such cgroup (v2 path below the cgroup2 root)";
		return -EINVAL;
	}
	r->cg[i] = cg;
	return 0;
}

static void cgroups_put(struct resolved *r)
{
	unsigned int i;

	for (i = 0; i < CGROUP_MAX; i++)
		if (r->cg[i])
			cgroup_put(r->cg[i]);
}

static const struct resolved_kind cgroup_kind = {
	.knob = "exempt_cgroup", .owner = &owner_cgroup,
	.rule = &cgroup_rule, .resolve = cgroup_resolve,
	.release = cgroups_put,
};

static int cgroup_set(const char *val, const char **why)
{
	return resolved_set(&cgroups, &cgroup_kind, val, why);
}

static int cgroup_show(char *buf, size_t size)
{
	return resolved_show(&cgroups, buf, size);
}

static struct sld_knob knob_cgroup = {
	.schema = &sld_knob_schema[SLD_KN_EXEMPT_CGROUP],
	.set = cgroup_set, .show = cgroup_show, .free = sld_exempt_free,
};
SLD_KNOB(exempt_cgroup, knob_cgroup);

/* ---- exempt_proactive ------------------------------------------------------ */

static int proactive_set(const char *val, const char **why)
{
	bool on;
	int err = sld_parse_bool(val, &on, why);

	if (err)
		return err;
	WRITE_ONCE(proactive, on);
	update_hooks();
	return 0;
}

static int proactive_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%c\n", proactive ? 'Y' : 'N');
}

static struct sld_knob knob_proactive = {
	.schema = &sld_knob_schema[SLD_KN_EXEMPT_PROACTIVE],
	.set = proactive_set, .show = proactive_show,
};
SLD_KNOB(exempt_proactive, knob_proactive);

/* At unload, after every hook is gone; again (a no-op) as the knobs go. */
void sld_exempt_free(void)
{
	sld_names_free(rcu_dereference_protected(comms, 1));
	resolved_free(&path_kind, rcu_dereference_protected(paths, 1));
	resolved_free(&cgroup_kind, rcu_dereference_protected(cgroups, 1));
	RCU_INIT_POINTER(comms, NULL);
	RCU_INIT_POINTER(paths, NULL);
	RCU_INIT_POINTER(cgroups, NULL);
}
