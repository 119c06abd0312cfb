// SPDX-License-Identifier: GPL-2.0
/*
 * Resolving what the running kernel has. Only this file looks up kallsyms;
 * everyone else reads sld_kernel. A missing symbol is a fact about the
 * kernel, recorded as a degraded feature, never a load failure.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <asm/cpufeature.h>
#include <asm/msr-index.h>
#include <asm/processor.h>

#include "compat/compat.h"
#include "kernel/degraded.h"
#include "kernel/ksym.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"

struct sld_kernel sld_kernel;

/* See ksym.h for why nothing here is called through a pointer. */
unsigned long sld_lookup(const char *name)
{
	return sld_kernel.resolver_ok ? sld_ksym_resolve(name) : 0;
}

/*
 * The resolver leans on how register_kprobe() treats a name: prove it on
 * this kernel with one function and one data symbol whose addresses the
 * module knows from its own relocations.
 */
static bool resolver_works(void)
{
	return sld_ksym_resolve("register_kprobe") ==
		(unsigned long)register_kprobe &&
	       sld_ksym_resolve("init_task") == (unsigned long)&init_task;
}

enum sld_mode sld_kernel_mode(void)
{
	int v;

	if (!sld_kernel.sld_state)
		return SLD_MODE_UNKNOWN;
	v = READ_ONCE(*sld_kernel.sld_state);
	return v >= SLD_MODE_OFF && v < SLD_MODE_UNKNOWN ? v : SLD_MODE_UNKNOWN;
}

const char *sld_mode_name(enum sld_mode m)
{
	static const char * const names[] = {
		[SLD_MODE_OFF] = "off", [SLD_MODE_WARN] = "warn",
		[SLD_MODE_FATAL] = "fatal", [SLD_MODE_RATELIMIT] = "ratelimit",
		[SLD_MODE_UNKNOWN] = "unknown",
	};

	return m <= SLD_MODE_UNKNOWN ? names[m] : "unknown";
}

int sld_kernel_mitigate(void)
{
	return sld_kernel.mitigate ? (int)READ_ONCE(*sld_kernel.mitigate) : -1;
}

bool sld_kernel_has_sld_code(void)
{
	return sld_kernel.user_handler || sld_kernel.guest_handler;
}

static unsigned long need(const char *sym, const char *feature)
{
	unsigned long addr = sld_lookup(sym);

	if (!addr) {
		char why[96];

		snprintf(why, sizeof(why), "kernel has no %s", sym);
		sld_degrade(feature, why);
	}
	return addr;
}

static void find_split_lock_code(void)
{
	sld_kernel.user_handler = need("handle_user_split_lock", "ac-user");
	sld_kernel.guest_handler = need("handle_guest_split_lock", "ac-guest");
	sld_kernel.bus_lock_handler = need("handle_bus_lock", "db-bus-lock");
	sld_kernel.warn = sld_lookup("split_lock_warn");
	sld_kernel.reenable = sld_lookup("__split_lock_reenable");
	sld_kernel.reenable_unlock = sld_lookup("__split_lock_reenable_unlock");
	sld_kernel.cpu_offline = sld_lookup("splitlock_cpu_offline");
	sld_kernel.buslock_sem = (struct semaphore *)sld_lookup("buslock_sem");
	/* The mode is a static enum in intel.c / bus_lock.c: KALLSYMS_ALL. */
	sld_kernel.sld_state = (const int *)need("sld_state", "sld-mode");
	sld_kernel.mitigate = (const unsigned int *)sld_lookup("sysctl_sld_mitigate");
	/*
	 * With kprobes switched off system-wide a registration succeeds but
	 * nothing is armed: status must say so rather than claim "armed".
	 */
	sld_kernel.kprobes_all_disarmed =
		(const bool *)sld_lookup("kprobes_all_disarmed");
}

/*
 * Whether the kernel takes bus locks by #DB: it sets DEBUGCTL bit 2 on
 * every CPU at boot where it does (Intel: split_lock_detect=ratelimit;
 * AMD, 6.13 on: every mode but off). Which kernels do and in which mode
 * is a moving target; the bit is not. Any online CPU with it will do: one
 * CPU's bit may have been cleared by a hypervisor, or by an earlier
 * sld_compat that lost it there.
 */
static void bld_seen_local(void *seen)
{
	u64 v;

	if (!sld_rdmsr_safe(MSR_IA32_DEBUGCTLMSR, &v) &&
	    (v & DEBUGCTLMSR_BUS_LOCK_DETECT))
		WRITE_ONCE(*(bool *)seen, true);
}

static bool kernel_sets_bld(void)
{
	bool seen = false;

	if (!sld_kernel.cpu_bld)
		return false;
	cpus_read_lock();
	on_each_cpu(bld_seen_local, &seen, 1);
	cpus_read_unlock();
	return READ_ONCE(seen);
}

/*
 * Without the handler (the penalty is given there) or the kernel's mode
 * (warn and fatal differ), the CPUs beside a held core are not policed:
 * their tasks' split locks go unnoticed while the core is held.
 */
static void police_degraded(const char *why)
{
	char reason[128];

	if (!sld_kernel.bld_police)
		return;
	sld_kernel.bld_police = false;
	snprintf(reason, sizeof(reason),
		 "%s: tasks beside a protected one are not policed by #DB", why);
	sld_degrade("bld-police", reason);
}

int sld_symbols_init(void)
{
	sld_kernel.cpu_sld = sld_cpu_has_split_lock_detect();
	sld_kernel.cpu_bld = sld_cpu_has_bus_lock_detect();
	sld_kernel.kernel_bld = kernel_sets_bld();
	/* VMRUN exists on AMD (and Hygon) only; TCG's Intel model offers it. */
	sld_kernel.svm_bld = sld_kernel.kernel_bld &&
		(boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
		 boot_cpu_data.x86_vendor == X86_VENDOR_HYGON);

	/*
	 * Intel with both detections, the bus-lock bit left clear (warn or
	 * fatal: the kernel uses the #AC): the CPUs beside a core held off
	 * can be policed by #DB (debugctl.c). Decided with the kernel's
	 * mode and handler below.
	 */
	sld_kernel.bld_police = sld_kernel.cpu_sld && sld_kernel.cpu_bld &&
		!sld_kernel.kernel_bld &&
		boot_cpu_data.x86_vendor == X86_VENDOR_INTEL;

	sld_kernel.resolver_ok = resolver_works();
	if (!sld_kernel.resolver_ok) {
		sld_degrade("kallsyms", "kprobes do not resolve symbol names here");
		sld_degrade("ac-user", "no symbol lookup");
		sld_degrade("ac-guest", "no symbol lookup");
		sld_degrade("db-bus-lock", "no symbol lookup");
		sld_degrade("sld-mode", "no symbol lookup");
		police_degraded("no symbol lookup");
		return 0;
	}
	find_split_lock_code();
	if (!sld_kernel.bus_lock_handler)
		police_degraded("kernel has no handle_bus_lock");
	else if (!sld_kernel.warn && !sld_kernel.user_handler)
		police_degraded("kernel has no split_lock_warn or handle_user_split_lock");
	else if (!sld_kernel.sld_state)
		police_degraded("kernel's split-lock mode unknown");
	return 0;
}
