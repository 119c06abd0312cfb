/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference sld_compat cares about, as small inline
 * shims. Shapes that cannot be told from a macro are detected at build
 * time by conftest.sh (probes/), which writes conftest.h with HAVE_*.
 * Nothing outside src/compat/ tests kernel versions.
 */
#ifndef SLD_COMPAT_COMPAT_H
#define SLD_COMPAT_COMPAT_H

#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <linux/version.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>

#include "compat/conftest.h"

/*
 * kvm_amd clears the host's DEBUGCTL around VMRUN from 6.14 on ("KVM: SVM:
 * Manually context switch DEBUGCTL if LBR virtualization is disabled",
 * also in the stable kernels and Debian's 6.12), told by the host DEBUGCTL
 * snapshot that came with it (probes/kvm_host_debugctl.c). 6.13, the
 * first kernel to set the bus-lock bit on AMD, has neither: its kvm_amd is
 * protected as a hypervisor.
 */
static inline bool sld_kvm_amd_switches_debugctl(void)
{
#ifdef HAVE_KVM_HOST_DEBUGCTL
	return true;
#else
	return false;
#endif
}

/* X86_FEATURE_SPLIT_LOCK_DETECT appeared in 5.7, BUS_LOCK_DETECT in 5.12. */
static inline bool sld_cpu_has_split_lock_detect(void)
{
#ifdef X86_FEATURE_SPLIT_LOCK_DETECT
	return boot_cpu_has(X86_FEATURE_SPLIT_LOCK_DETECT);
#else
	return false;
#endif
}

static inline bool sld_cpu_has_bus_lock_detect(void)
{
#ifdef X86_FEATURE_BUS_LOCK_DETECT
	return boot_cpu_has(X86_FEATURE_BUS_LOCK_DETECT);
#else
	return false;
#endif
}

/*
 * Did the kernel verify the module's signature? mod->sig_ok exists only
 * with CONFIG_MODULE_SIG; without it nothing was verified.
 */
static inline bool sld_module_sig_ok(const struct module *mod)
{
#ifdef CONFIG_MODULE_SIG
	return mod->sig_ok;
#else
	return false;
#endif
}

/*
 * A cgroup's own name (its kernfs node's, cg->kn), under rcu_read_lock():
 * an __rcu pointer since 6.15 (the kernel's kernfs_rcu_name() is private
 * to fs/kernfs/), a plain pointer before. A cgroup v2 directory cannot be
 * renamed (only v1 has .rename), so it is stable for as long as the
 * cgroup lives.
 */
static inline const char *sld_kernfs_name_rcu(struct kernfs_node *kn)
{
#ifdef HAVE_KERNFS_RCU_NAME
	return rcu_dereference(kn->name);
#else
	return kn->name;
#endif
}

/*
 * Who owns a cgroup's directory (its kernfs node), under rcu_read_lock()
 * while the cgroup is alive: the owner chown(2) set, kept in kn->iattr,
 * a struct private to fs/kernfs/ (kernfs-internal.h) whose first member
 * has been `kuid_t ia_uid` since 5.2 (t/56 reads a user's cgroup as
 * theirs on every kernel the suite boots, 6.1 to 7.3); a node without
 * it is root's (kernfs_refresh_inode()). A cgroup
 * made by a user is theirs (cgroup_kn_set_ugid()), and so is one root
 * delegated to them. Outside the kernels read, false: the owner is not
 * known (engine/exempt.c then trusts no cgroup as root's alone).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 2, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(7, 4, 0)
#define SLD_KERNFS_OWNER_KNOWN	1
#else
#define SLD_KERNFS_OWNER_KNOWN	0
#endif

static inline bool sld_kernfs_owner_rcu(const struct kernfs_node *kn,
					kuid_t *uid)
{
	const kuid_t *ia = (const kuid_t *)READ_ONCE(kn->iattr);

	if (!SLD_KERNFS_OWNER_KNOWN)
		return false;
	*uid = ia ? READ_ONCE(*ia) : GLOBAL_ROOT_UID;
	return true;
}

/*
 * The executable of mm as a counted file, or NULL; under rcu_read_lock(),
 * any context (it neither sleeps nor takes a lock). The kernel's
 * get_mm_exe_file() does this but is not exported. Since 6.7 a struct
 * file is SLAB_TYPESAFE_BY_RCU: one read from mm->exe_file under RCU may
 * be freed and reused by another open() at any moment, with f_inode and
 * f_path not yet set, so only get_file_rcu(slot), which re-reads the
 * slot after taking the count, hands out a file that is still the exe.
 * Before 6.7 files were freed after a grace period: a count taken while
 * it is not zero holds the file the slot named.
 */
static inline struct file *sld_mm_exe_file_get(struct mm_struct *mm)
{
#ifdef HAVE_GET_FILE_RCU_SLOT
	return get_file_rcu(&mm->exe_file);
#else
	struct file *f = rcu_dereference(mm->exe_file);

	return f && get_file_rcu(f) ? f : NULL;
#endif
}

/* An inode's ctime: inode_get_ctime() since 6.6, i_ctime before. */
static inline struct timespec64 sld_inode_ctime(const struct inode *ino)
{
#ifdef HAVE_INODE_GET_CTIME
	return inode_get_ctime(ino);
#else
	return ino->i_ctime;
#endif
}

/*
 * The 64-bit MSR accessors were renamed rdmsrl/wrmsrl -> rdmsrq/wrmsrq
 * (6.16), and the old names were then removed.
 */
static inline int sld_rdmsr_safe(u32 msr, u64 *v)
{
#ifdef HAVE_RDMSRQ
	return rdmsrq_safe(msr, v);
#else
	return rdmsrl_safe(msr, v);
#endif
}

static inline int sld_wrmsr_safe(u32 msr, u64 v)
{
#ifdef HAVE_RDMSRQ
	return wrmsrq_safe(msr, v);
#else
	return wrmsrl_safe(msr, v);
#endif
}

/*
 * module_attribute's show() and store() take their attribute const since
 * 6.14: SLD_MODATTR_CONST goes before their first parameter.
 */
#ifdef HAVE_CONST_MODULE_ATTRIBUTE
#define SLD_MODATTR_CONST const
#else
#define SLD_MODATTR_CONST
#endif

/*
 * Where a loaded module's text lives. 6.4 replaced core_layout and
 * init_layout by mod->mem[]. Each region holds all of the module's
 * executable sections back to back.
 */
enum sld_text_region { SLD_TEXT_CORE, SLD_TEXT_INIT };

static inline void sld_module_text(const struct module *mod,
				   enum sld_text_region r,
				   const void **base, unsigned long *size)
{
#ifdef HAVE_MODULE_MEMORY
	const struct module_memory *m =
		&mod->mem[r == SLD_TEXT_CORE ? MOD_TEXT : MOD_INIT_TEXT];

	*base = m->base;
	*size = m->size;
#else
	const struct module_layout *l =
		r == SLD_TEXT_CORE ? &mod->core_layout : &mod->init_layout;

	*base = l->base;
	*size = l->text_size;
#endif
}

/*
 * Call depth tracking (6.2+, MITIGATION_ since 6.9; active with
 * retbleed=stuff) makes module_finalize() patch a module's direct calls
 * to a thunk in the padding before the function called.
 */
#if defined(CONFIG_CALL_DEPTH_TRACKING) || \
	defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING)
#define SLD_CALL_PADDING	CONFIG_FUNCTION_PADDING_BYTES
#else
#define SLD_CALL_PADDING	0
#endif

/*
 * Kernel-side workers of a user process (io_uring's since 5.12, vhost's
 * and the rest as PF_USER_WORKER since 6.4) share its mm and cgroup but
 * never run its code.
 */
#ifndef PF_USER_WORKER
#define PF_USER_WORKER	0
#endif
#define SLD_PF_NOT_USER	(PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)

/* p is in its last switch (do_task_dead()). */
#define sld_task_dead(p)	(READ_ONCE((p)->__state) == TASK_DEAD)

#endif /* SLD_COMPAT_COMPAT_H */
