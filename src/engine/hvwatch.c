// SPDX-License-Identifier: GPL-2.0
/*
 * Hypervisor tasks, found before their first #AC: a task that enters an
 * ioctl of a device whose file_operations belong to a module classified
 * `hypervisor` (policy protect) is protected from that moment.
 *
 * Generic path: while some watched module's ioctl entry is unknown, a
 * kprobe on security_file_ioctl() (the ioctl syscall calls it for every
 * ioctl before the driver's handler, and from another file, so it is
 * never inlined) compares file->f_op->owner with the watched modules.
 * The first hit protects the caller and tells us the entry,
 * f_op->unlocked_ioctl; the caller itself then places a kprobe on that
 * function before its ioctl returns (see learn_queue()) and, once every
 * watched module's entry is known, the generic probe goes idle: from then
 * on other tasks' ioctls pay nothing.
 *
 * Who is protected (README, "trust model"): a profiled module's tasks only
 * when they enter its run path; a generic one's only through a file opened
 * for writing on a character device node owned by root (file_trusted()).
 *
 * Profiles: for hypervisors we know, a narrower entry is hooked at once
 * when the module loads, without learning:
 *   vmmon    Vmx86_RunVM, the worker of IOCTL_VMX86_RUN_VM (the ioctl
 *            number moves between releases, the function name does not)
 *   vboxdrv  supdrvIOCtlFast, the fast path of VT-x guest runs; if it is
 *            not found, the learned VBoxDrvLinuxIOCtl_<version> handler
 *
 * 32-bit VMMs (compat_ioctl) are not seen by the generic path.
 *
 * Each watched module is an owner of protected tasks (struct sld_owner,
 * task/task.h) kept in its slot: its probes protect tasks on its behalf,
 * task/task.c counts them and their split locks into it, and it is told
 * when the module is watched (sld_task_need) and unwatched
 * (sld_task_release).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>
#include <asm/ibt.h>

#include "engine/hvwatch.h"
#include "engine/task/task.h"
#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"
#include "schema/hypervisors.h"

enum hv_via { VIA_NONE, VIA_PROFILE, VIA_LEARNED };

struct hv_entry {
	struct module *mod;		/* NULL: free slot */
	unsigned int refs;		/* modscan records watching it */
	unsigned long learned;		/* f_op->unlocked_ioctl seen */
	enum hv_via via;
	struct kprobe kp;
	bool kp_on;
	int kp_err;
	/*
	 * Last: a reloaded module's slot is cleared up to here, not beyond:
	 * it keeps its name and counters.
	 */
	struct sld_owner owner;
};

static struct hv_entry hv[SLD_HV_MAX];
static DEFINE_MUTEX(hv_mutex);		/* lock order: knobs.c */
/*
 * Whether entry probes are armed (enabled=Y), as sld_hv_arm() last set it.
 * Not the knob itself: place() and sld_hv_arm() both run under hv_mutex,
 * so a probe placed while enabled flips is armed as the last flip says;
 * the knob is written outside that lock.
 */
static bool hv_armed;

static void learn_fn(struct work_struct *w);
static DECLARE_WORK(learn_work, learn_fn);

/* ---- the probes (atomic) ---------------------------------------------------------- */

/*
 * Without a profile we do not know which ioctl runs a guest, so the file
 * decides: opened for writing, on a character device node owned by root.
 * Who may open such a node for writing is what its mode (or the vendor's
 * udev rule) says the admin grants: driving that hypervisor. Opened
 * read-only (status queries), or through a node a user created or owns
 * (mknod in a user namespace, a chown'ed copy), it proves nothing, and
 * protection switches a machine-wide defence off for the caller.
 */
static bool file_trusted(const struct file *f)
{
	const struct inode *ino;

	if (!f)		/* a module calling its own handler without a file */
		return false;
	ino = file_inode(f);
	return (f->f_mode & FMODE_WRITE) && S_ISCHR(ino->i_mode) &&
	       uid_eq(ino->i_uid, GLOBAL_ROOT_UID);
}

static int entry_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct hv_entry *e = container_of(kp, struct hv_entry, kp);

	/* A learned entry is f_op->unlocked_ioctl(file, cmd, arg). */
	if (READ_ONCE(e->via) == VIA_LEARNED &&
	    !file_trusted((struct file *)regs->di))
		return 0;
	sld_task_protect(&e->owner);
	return 0;
}

/*
 * The learned entry is hooked by the task that made the first ioctl,
 * before that ioctl returns to user space (task_work), not by a work item
 * later: register_kprobe() holds a reference on the probed module while
 * it works, and a kworker doing so after the ioctl returned made an
 * immediate `rmmod` of the hypervisor fail with EAGAIN. The caller holds
 * the module through its open file anyway until its ioctl has returned.
 * One task at a time (learn_tw_busy); others, kernel threads and exiting
 * tasks fall back to the work item. The callback holds a reference on
 * sld_compat (taken here) so that it never runs from freed text.
 */
void sld_learn_tw_entry(struct callback_head *cb);
static struct callback_head learn_tw = { .func = sld_learn_tw_entry };
static atomic_t learn_tw_busy = ATOMIC_INIT(0);

static void learn_queue(void)
{
	/*
	 * With CFI (kCFI/FineIBT) task_work_run()'s indirect call checks a
	 * type hash before its target, which the asm entry does not carry.
	 */
	if (IS_ENABLED(CONFIG_CFI_CLANG) || IS_ENABLED(CONFIG_CFI) ||
	    (current->flags & (PF_KTHREAD | PF_EXITING)) ||
	    atomic_cmpxchg(&learn_tw_busy, 0, 1))
		goto fallback;
	if (!try_module_get(THIS_MODULE))
		goto unbusy;
	init_task_work(&learn_tw, sld_learn_tw_entry);
	if (!task_work_add(current, &learn_tw, TWA_RESUME))
		return;
	module_put(THIS_MODULE);
unbusy:
	atomic_set(&learn_tw_busy, 0);
fallback:
	schedule_work(&learn_work);
}

/* int security_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg) */
static int learn_pre(struct kprobe *kp, struct pt_regs *regs)
{
	const struct file *f = (const struct file *)regs->di;
	const struct file_operations *fops = f ? f->f_op : NULL;
	struct module *owner = fops ? fops->owner : NULL;
	unsigned int i;

	if (!owner)
		return 0;
	for (i = 0; i < SLD_HV_MAX; i++) {
		if (READ_ONCE(hv[i].mod) != owner)
			continue;
		/* A profiled module protects through its run path only. */
		if (READ_ONCE(hv[i].via) == VIA_PROFILE)
			break;
		/*
		 * Only a trusted file teaches the entry: a user's read-only
		 * or status node must not fix it to a handler that never
		 * runs a guest.
		 */
		if (!file_trusted(f))
			break;
		sld_task_protect(&hv[i].owner);
		if (fops->unlocked_ioctl &&
		    !cmpxchg(&hv[i].learned, 0,
			     (unsigned long)fops->unlocked_ioctl))
			learn_queue();
		break;
	}
	return 0;
}

static struct sld_hook hook_learn = {
	.name = "ioctl-learn", .symbol = "security_file_ioctl", .pre = learn_pre,
	.on_demand = true,
};

/* ---- placing entry probes (sleepable, hv_mutex held) --------------------------------- */

static int place(struct hv_entry *e, unsigned long addr, enum hv_via via)
{
	memset(&e->kp, 0, sizeof(e->kp));
	e->kp.addr = (kprobe_opcode_t *)addr;
	e->kp.pre_handler = entry_pre;
	/* Before it can fire: entry_pre() and learn_pre() read it. */
	WRITE_ONCE(e->via, via);
	e->kp_err = register_kprobe(&e->kp);
	e->kp_on = !e->kp_err;
	if (!e->kp_on)
		WRITE_ONCE(e->via, VIA_NONE);
	if (!hv_armed && e->kp_on)
		disable_kprobe(&e->kp);
	return e->kp_err;
}

/* The generic probe is needed while some entry is not known. */
static void update_learning(void)
{
	bool want = false;
	unsigned int i;

	for (i = 0; i < SLD_HV_MAX; i++)
		want |= hv[i].mod && !hv[i].kp_on;
	sld_hook_want(&hook_learn, want);
}

/*
 * Is addr in mod's core (text or data: whether it is text is for
 * register_kprobe() to say)? hv_mutex held: mod cannot go
 * (sld_hv_unwatch).
 */
static bool in_module_core(struct module *mod, unsigned long addr)
{
	return within_module_core(addr, mod);
}

static void learn_all(void)
{
	unsigned int i;

	mutex_lock(&hv_mutex);
	for (i = 0; i < SLD_HV_MAX; i++) {
		struct hv_entry *e = &hv[i];
		unsigned long addr = READ_ONCE(e->learned);

		if (!e->mod || !addr || e->kp_on || e->kp_err)
			continue;
		if (!in_module_core(e->mod, addr)) {
			e->kp_err = -EFAULT;
			pr_info("%s: ioctl entry %ps is not in its text: keeping the generic ioctl probe\n",
				e->owner.name, (void *)addr);
			continue;
		}
		if (!place(e, addr, VIA_LEARNED))
			pr_info("%s: ioctl entry %ps hooked, generic ioctl probe no longer needed for it\n",
				e->owner.name, (void *)addr);
	}
	update_learning();
	mutex_unlock(&hv_mutex);
}

static void learn_fn(struct work_struct *w)
{
	learn_all();
}

/*
 * In the task that learned, on its way back to user space:
 * sld_learn_tw_entry() runs sld_learn_tw_body(), then drops the reference
 * learn_queue() took with a jump to module_put(), not a call: module_put()
 * returns straight into task_work_run(). Once the reference is gone no
 * instruction of ours is left to run, so an unload can never free text
 * under this task however long it is preempted (a C tail call would do
 * the same, but the compiler does not promise one). task_work_run()
 * calls the entry through a pointer: ENDBR for IBT; its address is taken
 * (init_task_work), so it is never sealed.
 */
void sld_learn_tw_body(void);
void sld_learn_tw_body(void)
{
	learn_all();
	atomic_set(&learn_tw_busy, 0);
}

asm(".pushsection .text, \"ax\"\n"
	".type sld_learn_tw_entry, @function\n"
	".globl sld_learn_tw_entry\n"
	".balign 16\n"
	"sld_learn_tw_entry:\n"
	ASM_ENDBR
	"call sld_learn_tw_body\n"
	"leaq __this_module(%rip), %rdi\n"
	"jmp module_put\n"
	".size sld_learn_tw_entry, .-sld_learn_tw_entry\n"
	".popsection\n");

/* The profiles: the table's entry functions (schema/hypervisors.h). */
static void try_profile(struct hv_entry *e)
{
	char sym[MODULE_NAME_LEN + KSYM_NAME_LEN];
	const struct sld_known_hv *hv = sld_known_hv_find(e->owner.name);
	unsigned long addr;

	if (!hv || !hv->entry)
		return;
	snprintf(sym, sizeof(sym), "%s:%s", e->owner.name, hv->entry);
	addr = sld_lookup(sym);
	if (addr && in_module_core(e->mod, addr) && !place(e, addr, VIA_PROFILE))
		pr_info("%s: profile entry %s hooked\n", e->owner.name, hv->entry);
}

/* ---- watch / unwatch (modscan.c, sleepable) --------------------------------------------- */

/* hv_mutex held. A slot's owner as new: no name, no counts. */
static void owner_reset(struct sld_owner *o)
{
	memset(o->name, 0, sizeof(o->name));
	atomic_long_set(&o->tasks, 0);
	atomic_long_set(&o->ac_user, 0);
	atomic_long_set(&o->ac_guest, 0);
}

/*
 * hv_mutex held. A free slot for a newly watched module: the one it had
 * before (a reloaded vmmon keeps its counters), else a never used one,
 * else any free one. Records of a slot's old tasks were released when it
 * was unwatched, so none of them counts for the next module.
 */
static struct hv_entry *pick_slot(const char *name)
{
	struct hv_entry *unused = NULL, *any = NULL;
	unsigned int i;

	for (i = 0; i < SLD_HV_MAX; i++) {
		struct hv_entry *e = &hv[i];

		if (e->mod)
			continue;
		if (!strcmp(e->owner.name, name))
			return e;
		if (!e->owner.name[0] && !unused)
			unused = e;
		if (!any)
			any = e;
	}
	if (unused || !any)
		return unused;
	memset(any, 0, offsetof(struct hv_entry, owner));
	owner_reset(&any->owner);
	return any;
}

void sld_hv_watch(struct module *mod)
{
	struct hv_entry *e;
	unsigned int i;

	mutex_lock(&hv_mutex);
	for (i = 0; i < SLD_HV_MAX; i++) {
		if (hv[i].mod == mod) {
			hv[i].refs++;
			goto out;
		}
	}
	e = pick_slot(mod->name);
	if (!e) {
		pr_warn("%s: more than %d hypervisor modules: its tasks are protected only from their first split lock\n",
			mod->name, SLD_HV_MAX);
		goto out;
	}
	memset(e, 0, offsetof(struct hv_entry, owner));
	e->refs = 1;
	strscpy(e->owner.name, mod->name, sizeof(e->owner.name));
	WRITE_ONCE(e->mod, mod);
	try_profile(e);
	update_learning();
	sld_task_need(&e->owner, true);
out:
	mutex_unlock(&hv_mutex);
}

/*
 * The last record watching mod lets go (it unloads, or a knob changed its
 * verdict or policy): no probe protects its tasks any more, and the ones
 * protected on its behalf are released (task/task.c).
 */
void sld_hv_unwatch(struct module *mod)
{
	unsigned int i, n;

	mutex_lock(&hv_mutex);
	for (i = 0; i < SLD_HV_MAX; i++) {
		struct hv_entry *e = &hv[i];

		if (e->mod != mod || --e->refs)
			continue;
		if (e->kp_on)
			unregister_kprobe(&e->kp);
		e->kp_on = false;
		WRITE_ONCE(e->mod, NULL);
		n = sld_task_release(&e->owner);
		if (n)
			pr_info("%s: no longer watched: %u protected task(s) released\n",
				e->owner.name, n);
		sld_task_need(&e->owner, false);
	}
	update_learning();
	mutex_unlock(&hv_mutex);
}

/* enabled=Y/N: entry probes follow the hooks. */
void sld_hv_arm(bool on)
{
	unsigned int i;

	mutex_lock(&hv_mutex);
	hv_armed = on;
	for (i = 0; i < SLD_HV_MAX; i++) {
		if (!hv[i].kp_on)
			continue;
		if (on)
			enable_kprobe(&hv[i].kp);
		else
			disable_kprobe(&hv[i].kp);
	}
	mutex_unlock(&hv_mutex);
}

/* ---- init / exit / status ------------------------------------------------------------------ */

void sld_hv_setup(void)
{
	unsigned int i;

	for (i = 0; i < SLD_HV_MAX; i++)
		hv[i].owner.why = SLD_WHY_HV;
	hv_armed = READ_ONCE(sld_knobs.enabled);	/* as given at load */
	if (sld_lookup(hook_learn.symbol))
		sld_hook_add(&hook_learn);
	else
		sld_degrade("ioctl-learn", "no security_file_ioctl (CONFIG_SECURITY off): hypervisor tasks are protected only through profiles or from their first split lock");
}

/*
 * After the hooks are gone: a learn_pre() that was running when
 * sld_hv_exit() cancelled the work may have queued it again, and it must
 * not run from freed module text. unregister_kprobe() waited for every
 * handler, so nothing can queue it after this.
 */
void sld_hv_free(void)
{
	cancel_work_sync(&learn_work);
}

/* After modscan stopped (no more watch calls), before hooks go. */
void sld_hv_exit(void)
{
	unsigned int i;

	cancel_work_sync(&learn_work);
	mutex_lock(&hv_mutex);
	for (i = 0; i < SLD_HV_MAX; i++) {
		if (hv[i].kp_on)
			unregister_kprobe(&hv[i].kp);
		hv[i].kp_on = false;
		WRITE_ONCE(hv[i].mod, NULL);
		sld_task_need(&hv[i].owner, false);
	}
	mutex_unlock(&hv_mutex);
}

static const char *state(const struct hv_entry *e)
{
	if (e->kp_on)
		return "hooked";
	if (e->kp_err)
		return "generic";
	return "learning";
}

/*
 * "NAME state=learning|hooked|generic via=profile|learned|- entry=SYM
 * tasks=N ac_user=N ac_guest=N" per watched module, or "none".
 */
int sld_hv_show(char *buf, size_t size)
{
	static const char *const via[] = { "-", "profile", "learned" };
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i;
	int n = 0;

	mutex_lock(&hv_mutex);
	for (i = 0; i < SLD_HV_MAX; i++) {
		const struct hv_entry *e = &hv[i];

		if (!e->mod)
			continue;
		/* "sym [mod]": the module is the line's first word already. */
		if (e->kp_on)
			snprintf(sym, sizeof(sym), "%ps", e->kp.addr);
		else
			strscpy(sym, "-", sizeof(sym));
		strreplace(sym, ' ', '\0');
		n += scnprintf(buf + n, size - n,
			       "%s state=%s via=%s entry=%s tasks=%ld ac_user=%ld ac_guest=%ld\n",
			       e->owner.name, state(e), via[e->via], sym,
			       atomic_long_read(&e->owner.tasks),
			       atomic_long_read(&e->owner.ac_user),
			       atomic_long_read(&e->owner.ac_guest));
	}
	mutex_unlock(&hv_mutex);
	if (!n)
		n = scnprintf(buf, size, "none\n");
	return n;
}
