// SPDX-License-Identifier: GPL-2.0
/*
 * Exemptions: ordinary processes an admin wants handled like protected
 * hypervisor tasks (a game under Proton, a legacy binary, one VM's QEMU).
 *
 *   exempt_comm    task names (what ps shows, at most 15 characters)
 *   exempt_path    executables, by absolute path (path_match())
 *   exempt_cgroup  cgroup v2 directories; a task in one of them or below,
 *                  by path, whether the cgroup exists yet or not
 *                  (cgroup_match())
 *   exempt_proactive  N: an exempt task is protected from its first split
 *                  lock on; Y: from exec, before any split lock
 *   run_allow      who besides root may relieve a process tree with
 *                  `sldctl run`: its tasks are matched by run.c (the
 *                  design is there) and always protected ahead,
 *                  exempt_proactive or not; root's first run arms runs
 *                  even while the list is empty (run_arm_work)
 *
 * Both path kinds are checked as text by src/schema/entries.c, the same
 * code sldctl runs, so the two refuse the same entries in the same words.
 *
 * exempt_path: the path must name a regular file when written. A task
 * matches when its executable is
 *   (a) the file the path named then (struct file_id: a symlink or hard
 *       link to it matches too; a rewrite, chmod or chown ends it), or
 *   (b) the file now at that name, in the directory the path led to when
 *       written, if root owns it and nobody else may write it.
 * (b) keeps a rule across a package upgrade: dpkg writes the new binary
 * next to the old one and renames it over it, a new inode under the same
 * name, and (a) alone would lapse until the knob is written again. Why
 * path plus root ownership and not a re-resolution when the file
 * changes: that needs a probe on every rename and unlink of the system
 * or a path lookup where a split lock is decided (the #AC handler, which
 * cannot sleep); the exe's name, parent and owner can be read there under
 * RCU, from the exe file with a count held (never a bare RCU pointer to
 * it: path_match()). Who can satisfy (b): whoever can place a file owned by root under
 * that name, that is root. Who can run code as a matching task: whoever
 * may execute the file, as with (a) -- LD_PRELOAD, ptrace of their own
 * process, or PR_SET_MM_MAP with the file as exe_fd in their own user
 * namespace run their code with that executable (README, trust model).
 *
 * exempt_cgroup: a rule is a path whose names are patterns (the
 * grammar of exempt_comm, schema/glob.c), compared with the names of the
 * task's cgroup and its ancestors when a task is decided (cgroup v2
 * directories cannot be renamed, so the names are stable under RCU).
 * Patterns because what an admin means is often not one directory:
 * libvirt starts each VM in its own scope below machine.slice, beside
 * podman's and systemd-nspawn's containers, so "libvirt's guests" is
 * /machine.slice/machine-qemu\x2d*.scope, not /machine.slice. Nothing
 * is resolved or held when the knob is written: a rule no cgroup matches
 * yet (no VM runs at boot) is accepted and waits; the `exempt_pending`
 * status file lists such rules. A cgroup created later that the rule
 * names, or below one (the VM's vCPU cgroups), matches. Memory is the
 * knob's list, fixed in size.
 *
 * A rule is matched against the task as it is when asked: at a split lock
 * and, when the task execs, for the new program. So a child inherits an
 * exemption exactly as far as it still matches (same name, executable or
 * cgroup; fork keeps all three), and exec re-decides it. The protected
 * state itself (SLD off while running) is never inherited: fork starts the
 * child unprotected (task/task.c).
 *
 * Each rule kind is an owner of protected tasks (struct sld_owner): this
 * file tells task/task.c when a kind has rules (sld_task_need), protects
 * the tasks they match on its behalf, naming the rule for the kernel log,
 * and releases them when the rules change. The probes that decide at
 * exec, thread start and rename are here too: they ask the rules,
 * task/task.c only keeps the records.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm_types.h>
#include <linux/namei.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "compat/compat.h"
#include "engine/exempt.h"
#include "engine/run.h"
#include "engine/task/task.h"
#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "knobs/knobs.h"
#include "knobs/switches.h"
#include "schema/entries.h"
#include "schema/glob.h"

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
 * small inodes, goes unseen): what (a) exempts is the file as it was
 * when the admin named it. Holding the inode instead would keep a
 * deleted binary's blocks allocated and its filesystem busy.
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

/* The same inode: what a directory keeps while its entries change. */
static bool same_inode(const struct file_id *a, const struct inode *ino)
{
	return a->ino == ino->i_ino && a->dev == ino->i_sb->s_dev &&
	       a->gen == ino->i_generation;
}

static bool file_id_eq(const struct file_id *a, const struct file_id *b)
{
	return a->ino == b->ino && a->dev == b->dev && a->gen == b->gen &&
	       timespec64_equal(&a->ctime, &b->ctime);
}

/*
 * One exempt_path rule as resolved when written: (a) the file, (b) its
 * directory and its name there (after symlinks: the file's own name).
 */
struct path_rule {
	struct file_id file;
	struct file_id dir;		/* ctime unused */
	char base[NAME_MAX + 1];
};

struct path_rules {
	struct sld_list list;		/* first: knobs.h */
	struct path_rule r[PATH_MAX_N];
};
static_assert(offsetof(struct path_rules, list) == 0);

static struct sld_owner owner_comm = { .why = SLD_WHY_COMM };
static struct sld_owner owner_path = { .why = SLD_WHY_PATH };
static struct sld_owner owner_cgroup = { .why = SLD_WHY_CGROUP };
static struct sld_owner owner_run = { .why = SLD_WHY_RUN };

/* Each a struct sld_list (knobs.h), exempt_path's in a struct path_rules. */
static struct sld_list __rcu *comms;
static struct sld_list __rcu *paths;
static struct sld_list __rcu *cgroups;
static bool proactive;

static void update_hooks(void);

/*
 * A rule changed: the tasks protected under the old rules of its kind are
 * released and decide again under the new ones (sld_task_release()), so
 * that removing a rule takes effect for running tasks too. A task that
 * still matches pays one #AC (none at exec with exempt_proactive=Y).
 * Then the kind tells task/task.c whether it still has rules.
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

/* ---- matching (any context, current task, under rcu_read_lock) ------------ */

/* Each returns the rule that matches t, or NULL. */
static const char *comm_match(const struct task_struct *t)
{
	const struct sld_list *c = rcu_dereference(comms);
	const struct sld_names *l = c ? c->names : NULL;
	unsigned int i;

	for (i = 0; l && i < l->n; i++)
		if (sld_glob_match(l->v[i], t->comm))
			return l->v[i];
	return NULL;
}

/*
 * The dentry's name is want: read as the kernel's d_path() reads it,
 * without d_lock. A rename racing with it may make it miss; the read
 * stops at the first difference or the name's NUL, inside its buffer.
 */
static bool name_is(const struct dentry *d, const char *want)
{
	const unsigned char *s = READ_ONCE(d->d_name.name);
	size_t i;

	for (i = 0; want[i]; i++)
		if (s[i] != (unsigned char)want[i])
			return false;
	return !s[i];
}

/* (b): exe is the root-owned file now at r's name in r's directory. */
static bool at_rule_path(const struct path_rule *r, const struct file *exe)
{
	const struct inode *ino = file_inode(exe), *dir;
	const struct dentry *d = exe->f_path.dentry;

	if (!uid_eq(ino->i_uid, GLOBAL_ROOT_UID) ||
	    (ino->i_mode & 0022) || d_unhashed(d))
		return false;
	dir = d_inode_rcu(READ_ONCE(d->d_parent));
	return dir && same_inode(&r->dir, dir) && name_is(d, r->base);
}

/*
 * Only root may run code as a task of exe (root's file that nobody else
 * may execute: exec, PR_SET_MM_MAP's exe_fd and an LD_PRELOAD all need
 * the right to execute it; with the group bits clear a POSIX ACL's mask
 * grants none either). The pool counts such a task as the admin's.
 */
static bool exe_root_only(const struct file *exe)
{
	const struct inode *ino = file_inode(exe);

	return uid_eq(ino->i_uid, GLOBAL_ROOT_UID) && !(ino->i_mode & 0011);
}

/* noinline: t/43 stalls it (a fixture) to widen the window it reads in. */
static noinline const char *exe_match(const struct path_rules *p,
				      const struct file *exe)
{
	struct file_id id;
	unsigned int i;

	file_id_of(file_inode(exe), &id);
	for (i = 0; i < p->list.names->n; i++)
		if (file_id_eq(&p->r[i].file, &id) ||
		    at_rule_path(&p->r[i], exe))
			return p->list.names->v[i];
	return NULL;
}

/*
 * The exe is read with a count held (compat.h says why a bare RCU read
 * of mm->exe_file is not enough since 6.7: any user can swap their exe
 * with PR_SET_MM while another thread renames itself into this matcher).
 * The fput() is safe here: a last reference, if ours, is freed from
 * task work at the return to user space, or from a workqueue.
 */
static const char *path_match(const struct task_struct *t, bool *admin)
{
	const struct sld_list *l = rcu_dereference(paths);
	const char *rule;
	struct file *exe;

	if (!l || !t->mm)
		return NULL;
	exe = sld_mm_exe_file_get(t->mm);
	if (!exe)
		return NULL;
	rule = exe_match(container_of(l, struct path_rules, list), exe);
	*admin = rule && exe_root_only(exe);
	fput(exe);
	return rule;
}

/*
 * cg is a cgroup the rule names (absolute, normalised, not "/"; each of
 * its names a pattern, glob.c) or below one: cg's ancestor at level n has
 * a name the rule's n-th pattern matches, for each of them. From the
 * root down, so that a cgroup outside the rule's first name (a user's,
 * whose names the user picks) costs one comparison. Names are at most
 * 255 bytes, so a pattern costs at most 255 times its length.
 */
static bool cgroup_below(struct cgroup *cg, const char *rule)
{
	const char *c = rule;
	int level = 0;
	size_t len;

	if (cg->level < (int)sld_cgroup_depth(rule))
		return false;
	while ((c = sld_cgroup_next(c, &len))) {
		const char *name;

		name = sld_kernfs_name_rcu(cgroup_ancestor(cg, ++level)->kn);
		if (!sld_glob_match_n(c, len, name))
			return false;
		c += len;
	}
	return true;
}

/*
 * Only root put tasks into cg, and no user's login: it and every cgroup
 * above it are root's directories that nobody else may write, and it is
 * not below /user.slice. A user can make cgroups only in a directory they
 * may write (their own, or one root delegated to them, as systemd's
 * Delegate= does by chown) and move tasks only between cgroups below one
 * whose cgroup.procs they may write: so a user's cgroup, named however
 * they like, always has a user's directory above it or is one. Login
 * sessions are root's scopes (logind's, below /user.slice) in which any
 * user who logs in runs what they like: a rule naming them is one a user
 * satisfies alone. The pool counts a task in any other root-only cgroup
 * as the admin's.
 */
static bool cgroup_root_only(struct cgroup *cg)
{
	const char *top = NULL;
	kuid_t uid;

	for (; cg && cg->kn; cg = cgroup_parent(cg)) {
		if (!sld_kernfs_owner_rcu(cg->kn, &uid) ||
		    !uid_eq(uid, GLOBAL_ROOT_UID) || (cg->kn->mode & 0022))
			return false;
		if (cg->level == 1)
			top = sld_kernfs_name_rcu(cg->kn);
	}
	return !top || strcmp(top, "user.slice");
}

static const char *cgroup_match(struct task_struct *t, bool *admin)
{
	const struct sld_list *c = rcu_dereference(cgroups);
	const struct sld_names *l = c ? c->names : NULL;
	struct cgroup *cg;
	unsigned int i;

	if (!l)
		return NULL;
	cg = task_dfl_cgroup(t);
	for (i = 0; i < l->n; i++)
		if (cgroup_below(cg, l->v[i])) {
			*admin = cgroup_root_only(cg);
			return l->v[i];
		}
	return NULL;
}

/*
 * Which rule kind exempts t and by which rule (*rule); *admin: only root
 * can have made t match it (the pool's admin class: README, trust
 * model). A match only root can make wins over one anyone can (a vCPU
 * named by an exempt_comm rule as well as in root's scope is the
 * admin's); else comm, path, cgroup, run, in that order. rcu_read_lock.
 */
static struct sld_owner *match(struct task_struct *t, const char **rule,
			       bool *admin)
{
	const char *comm = comm_match(t), *path, *cg;
	bool path_admin = false, cg_admin = false;
	struct sld_owner *o = NULL;

	path = path_match(t, &path_admin);
	cg = cgroup_match(t, &cg_admin);
	*admin = true;
	if (path && path_admin)
		o = &owner_path;
	else if (cg && cg_admin)
		o = &owner_cgroup;
	if (o) {
		*rule = o == &owner_path ? path : cg;
		return o;
	}
	*admin = false;
	*rule = comm ?: path ?: cg;
	if (*rule)
		return comm ? &owner_comm : path ? &owner_path : &owner_cgroup;
	*rule = sld_run_match(t);
	return *rule ? &owner_run : NULL;
}

/* A match is protected ahead of a trap: always for a run, the user asked. */
static bool ahead_ok(const struct sld_owner *o)
{
	return o == &owner_run || READ_ONCE(proactive);
}

/*
 * Root's first run (run.c, "Arming on demand"): arm runs as a set
 * run_allow would, until unload. Queued from a probe or the #AC path;
 * cancelled in sld_exempt_free(), once no handler can queue it again.
 */
static void run_arm_fn(struct work_struct *work)
{
	sld_knobs_lock();
	if (sld_run_root_arm()) {
		pr_info("root's first sldctl run: runs armed until unload\n");
		sld_task_need(&owner_run, true);
		update_hooks();
	}
	sld_knobs_unlock();
}
static DECLARE_WORK(run_arm_work, run_arm_fn);

/*
 * Root's run arms runs while nothing has: queue it for a task t some rule
 * matched (o) that is in a run scope, whichever rule won the match (an
 * exempt_cgroup of /system.slice may match root's run first).
 */
static void run_arm_check(const struct sld_owner *o, struct task_struct *t)
{
	if (!o || sld_run_any())
		return;
	rcu_read_lock();
	if (o == &owner_run || sld_run_match(t))
		schedule_work(&run_arm_work);
	rcu_read_unlock();
}

/*
 * For a trap path (#AC, #DB): current protected already, or now by a rule
 * (0); -ENOENT: no rule; else refused.
 */
int sld_exempt_ensure(void)
{
	return sld_task_protected() ? 0 : sld_exempt_protect(false);
}

/*
 * Protect current if a rule exempts it, naming the rule in the kernel log
 * (sld_task_protect_as()). 0: protected; -ENOENT: no rule; else refused.
 * A run's task while runs are not armed can only be root's: it arms them.
 */
int sld_exempt_protect(bool ahead)
{
	const char *rule;
	struct sld_owner *o;
	int err = -ENOENT;
	bool admin;

	rcu_read_lock();
	o = match(current, &rule, &admin);
	run_arm_check(o, current);
	if (o && (!ahead || ahead_ok(o)))
		err = sld_task_protect_as(o, rule, ahead, admin);
	rcu_read_unlock();
	return err;
}

static bool exempt_any(void)
{
	return rcu_access_pointer(comms) || rcu_access_pointer(paths) ||
	       rcu_access_pointer(cgroups);
}

/* Rules whose tasks are protected ahead of a trap. */
static bool ahead_any(void)
{
	return (exempt_any() && READ_ONCE(proactive)) || sld_run_any();
}

/* ---- deciding at exec, thread start and rename (probes, current) ---------- */

/*
 * setup_new_exec() returned: comm and exe are the new program's. An
 * exemption is re-decided for it; a hypervisor task keeps its protection
 * (task/task.c drops only a record no hypervisor holds).
 */
static int exec_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sld_owner *o;
	const char *rule;
	bool admin, capped;

	rcu_read_lock();
	o = match(current, &rule, &admin);
	capped = sld_task_exec(o, rule, admin);
	rcu_read_unlock();
	/* Without exempt_proactive no protect call follows for every match. */
	run_arm_check(o, current);
	/* Refused over its cap just now: it asks again at its split locks. */
	if (o && !capped && ahead_ok(o) && !sld_task_protected())
		sld_exempt_protect(true);
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
	if (!ahead_any() || (current->flags & SLD_PF_NOT_USER))
		return;
	if (!sld_task_protected())
		sld_exempt_protect(true);
}

/*
 * void wake_up_new_task(struct task_struct *p), in the parent: p is
 * complete (cgroup_post_fork() ran, its name and mm are set) and has not
 * run. Matched and protected now, its record is on it before its first
 * switch in, which its protected parent hands the hold to without a
 * write. One refused here (the pool full or still growing) is protected
 * at its first split lock or rename.
 */
static int clone_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct task_struct *p = (struct task_struct *)regs->di;
	struct sld_owner *o;
	const char *rule;
	bool admin;

	if (!ahead_any() || (p->flags & SLD_PF_NOT_USER))
		return 0;
	rcu_read_lock();
	o = match(p, &rule, &admin);
	run_arm_check(o, p);
	if (o && ahead_ok(o))
		sld_task_protect_new(p, o, rule, admin);
	rcu_read_unlock();
	return 0;
}

/*
 * schedule_tail() returned: the first instructions of a new task. Armed
 * only where the clone probe could not be placed.
 */
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

static struct sld_hook hook_clone = {
	.name = "task-clone", .symbol = "wake_up_new_task", .pre = clone_pre,
	.on_demand = true,
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
	bool want = sld_task_possible() && ahead_any();

	sld_hook_want(&hook_clone, want);
	/* A second chance at start would only match every new task twice. */
	sld_hook_want(&hook_start, want && !hook_clone.registered);
	sld_hook_want(&hook_rename, want);
}

/* Before sld_hooks_init(), after sld_task_setup(). */
void sld_exempt_setup(void)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_NOTIFIERS))
		return;
	sld_hook_add(&hook_exec);
	sld_hook_add(&hook_clone);
	sld_hook_add(&hook_start);
	sld_hook_add(&hook_rename);
}

/* After sld_task_init(): the rules given at load act from now on. */
void sld_exempt_init(void)
{
	if (sld_task_possible() && !hook_exec.registered)
		sld_degrade("exec", "no setup_new_exec probe: exemptions act from the first split lock only");
	if (sld_task_possible() && !hook_clone.registered)
		sld_degrade("task-clone", "no wake_up_new_task probe: new threads of exempt processes are protected at their start, after a switch in");
	if (sld_task_possible() && !hook_clone.registered &&
	    !hook_start.registered)
		sld_degrade("task-start", "no schedule_tail probe: new threads of exempt processes are protected from their first split lock");
	if (sld_task_possible() && !hook_rename.registered)
		sld_degrade("task-rename", "no __set_task_comm probe: a thread exempt by its new name is protected from its first split lock");
	if (sld_task_possible() && !SLD_KERNFS_OWNER_KNOWN)
		sld_degrade("cgroup-owner", "a cgroup directory's owner is not known on this kernel: exempt_cgroup tasks are bounded per uid like a user's");
	sld_knobs_lock();
	sld_task_need(&owner_comm, !!rcu_access_pointer(comms));
	sld_task_need(&owner_path, !!rcu_access_pointer(paths));
	sld_task_need(&owner_cgroup, !!rcu_access_pointer(cgroups));
	sld_task_need(&owner_run, sld_run_any());
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

/*
 * Every rule kind's write (sld_list_set(), knobs.c): the tasks the old
 * rules exempted decide again.
 */
static int rules_set(struct sld_list __rcu **slot,
		     const struct sld_list_kind *kind, struct sld_owner *o,
		     const char *knob, const char *val, const char **why)
{
	int err = sld_list_set(slot, kind, val, why);

	if (!err)
		recheck(o, knob, !!rcu_access_pointer(*slot));
	return err;
}

static const struct sld_list_kind comm_kind = {
	.rule = &comm_rule, .size = sizeof(struct sld_list),
};

static int comm_set(const char *val, const char **why)
{
	return rules_set(&comms, &comm_kind, &owner_comm, "exempt_comm", val,
			 why);
}

static int comm_show(char *buf, size_t size)
{
	return sld_list_show(&comms, buf, size);
}

static struct sld_knob knob_comm = {
	.schema = &sld_knob_schema[SLD_KN_EXEMPT_COMM],
	.set = comm_set, .show = comm_show, .free = sld_exempt_free,
};
SLD_KNOB(exempt_comm, knob_comm);

/* ---- exempt_path ----------------------------------------------------------- */

/* The text: src/schema/entries.c, shared with sldctl. */
static int path_check(const char *s, const char **why)
{
	*why = sld_entry_check(s, false);
	return *why ? -EINVAL : 0;
}

static const struct sld_names_rule path_rule = {
	.max = PATH_MAX_N, .max_len = PATH_LEN, .check = path_check,
};

/*
 * (a) and (b) of entry i from the file its path names now (it must be
 * one). All or nothing: every entry resolves, or the knob stays as it was.
 */
static int path_resolve(struct sld_list *l, unsigned int i, const char **why)
{
	const char *path = l->names->v[i];
	struct path_rule *r = &container_of(l, struct path_rules, list)->r[i];
	struct name_snapshot name;
	struct dentry *parent;
	struct inode *ino;
	struct path p;

	if (kern_path(path, LOOKUP_FOLLOW, &p)) {
		*why = "no such file";
		return -EINVAL;
	}
	ino = d_backing_inode(p.dentry);
	if (!ino || !S_ISREG(ino->i_mode)) {
		path_put(&p);
		*why = "not a regular file";
		return -EINVAL;
	}
	file_id_of(ino, &r->file);
	parent = dget_parent(p.dentry);
	file_id_of(d_inode(parent), &r->dir);
	dput(parent);
	take_dentry_name_snapshot(&name, p.dentry);
	strscpy(r->base, (const char *)name.name.name, sizeof(r->base));
	release_dentry_name_snapshot(&name);
	path_put(&p);
	return 0;
}

static const struct sld_list_kind path_kind = {
	.rule = &path_rule, .size = sizeof(struct path_rules),
	.resolve = path_resolve,
};

static int path_set(const char *val, const char **why)
{
	return rules_set(&paths, &path_kind, &owner_path, "exempt_path", val,
			 why);
}

static int path_show(char *buf, size_t size)
{
	return sld_list_show(&paths, buf, size);
}

static struct sld_knob knob_path = {
	.schema = &sld_knob_schema[SLD_KN_EXEMPT_PATH],
	.set = path_set, .show = path_show, .free = sld_exempt_free,
};
SLD_KNOB(exempt_path, knob_path);

/* ---- exempt_cgroup --------------------------------------------------------- */

static int cgroup_check(const char *s, const char **why)
{
	*why = sld_entry_check(s, true);
	return *why ? -EINVAL : 0;
}

static const struct sld_names_rule cgroup_rule = {
	.max = CGROUP_MAX, .max_len = PATH_LEN, .check = cgroup_check,
};

static const struct sld_list_kind cgroup_kind = {
	.rule = &cgroup_rule, .size = sizeof(struct sld_list),
};

static int cgroup_set(const char *val, const char **why)
{
	return rules_set(&cgroups, &cgroup_kind, &owner_cgroup,
			 "exempt_cgroup", val, why);
}

static int cgroup_show(char *buf, size_t size)
{
	return sld_list_show(&cgroups, buf, size);
}

static struct sld_knob knob_cgroup = {
	.schema = &sld_knob_schema[SLD_KN_EXEMPT_CGROUP],
	.set = cgroup_set, .show = cgroup_show, .free = sld_exempt_free,
};
SLD_KNOB(exempt_cgroup, knob_cgroup);

/*
 * Bit i set for each rule of l some live cgroup matches at the rule's
 * own level (the one it names, not one below it). A walk of every cgroup
 * under RCU, once for all rules: a rule's names are patterns, so no
 * path lookup can answer. A removed cgroup stays visible to the walk
 * until freed; rmdir clears CSS_ONLINE of its self css (the kernel's
 * private cgroup_is_dead(); css_is_dying() is not set for it on 7.x).
 */
static unsigned long cgroups_named(const struct sld_names *l)
{
	struct cgroup_subsys_state *pos;
	struct cgroup *root, *cg;
	unsigned long found = 0;
	unsigned int i;

	BUILD_BUG_ON(CGROUP_MAX > BITS_PER_LONG);
	rcu_read_lock();
	root = cgroup_ancestor(task_dfl_cgroup(current), 0);
	css_for_each_descendant_pre(pos, &root->self) {
		cg = pos->cgroup;
		if (!(pos->flags & CSS_ONLINE) || !cg->level)
			continue;
		for (i = 0; i < l->n; i++)
			if (cg->level == (int)sld_cgroup_depth(l->v[i]) &&
			    cgroup_below(cg, l->v[i]))
				found |= BIT(i);
	}
	rcu_read_unlock();
	return found;
}

/*
 * The status file exempt_pending: the exempt_cgroup rules no cgroup
 * matches now, one per line ("-" for none). They match as soon as one is
 * created.
 */
int sld_exempt_pending_show(char *buf, size_t size)
{
	const struct sld_list *c;
	const struct sld_names *l;
	unsigned long found;
	unsigned int i;
	int n = 0;

	sld_knobs_lock();
	c = rcu_dereference_protected(cgroups, 1);
	l = c ? c->names : NULL;
	found = l ? cgroups_named(l) : 0;
	for (i = 0; l && i < l->n; i++)
		if (!(found & BIT(i)))
			n += scnprintf(buf + n, size - n, "exempt_cgroup %s\n",
				       l->v[i]);
	sld_knobs_unlock();
	return n ? n : scnprintf(buf, size, "-\n");
}

/* ---- run_allow (the rest is run.c's) ------------------------------------- */

static int run_allow_set(const char *val, const char **why)
{
	int err = sld_run_allow_set(val, why);

	if (!err)
		recheck(&owner_run, "run_allow", sld_run_any());
	return err;
}

static struct sld_knob knob_run_allow = {
	.schema = &sld_knob_schema[SLD_KN_RUN_ALLOW],
	.set = run_allow_set, .show = sld_run_allow_show,
	.free = sld_exempt_free,
};
SLD_KNOB(run_allow, knob_run_allow);

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
	cancel_work_sync(&run_arm_work);
	sld_list_free(&comms);
	sld_list_free(&paths);
	sld_list_free(&cgroups);
	sld_run_free();
}
