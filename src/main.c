// SPDX-License-Identifier: GPL-2.0
/*
 * sld_compat: per-task split-lock detection for hosts that run VMX
 * hypervisors unprepared for it. This file only orders init and exit.
 *
 * Init order matters: learn the kernel first (symbols), then let features
 * add their hooks, then place them, then publish knobs and status last so
 * nothing is visible half-built. Exit is the exact reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>

#include "sld_compat.h"
#include "modscan.h"

static void say_what_we_found(void)
{
	int m = sld_kernel_mitigate();

	pr_info("version %s: kernel split-lock mode %s, split_lock_mitigate %s%d, cpu split_lock_detect %d bus_lock_detect %d\n",
		SLD_COMPAT_VERSION, sld_mode_name(sld_kernel_mode()),
		m < 0 ? "absent " : "", m < 0 ? 0 : m,
		sld_kernel.cpu_sld, sld_kernel.cpu_bld);
	if (!sld_kernel_has_sld_code())
		pr_info("this kernel has no split-lock detection: nothing to do\n");
	else if (!sld_kernel.cpu_sld)
		pr_info("CPU has no split-lock detection: MSR_TEST_CTRL is never written, the account records intent only\n");
}

static int __init sld_compat_init(void)
{
	int err;

	sld_degraded_reset();
	err = sld_symbols_init();
	if (err)
		return err;
	say_what_we_found();

	err = sld_msr_init();
	if (err)
		return err;
	err = sld_modscan_setup();
	if (err)
		goto out_free;
	err = sld_task_setup();
	if (err)
		goto out_free;
	sld_ac_setup();
	sld_msr_setup();
	sld_hv_setup();
	err = sld_hooks_init();
	if (err)
		goto out_hooks;
	sld_task_init();
	err = sld_modscan_init();
	if (err)
		goto out_task;
	err = sld_status_init();
	if (err)
		goto out_modscan;
	err = sld_knobs_init();
	if (err)
		goto out_status;
	return 0;

out_status:
	sld_status_exit();
out_modscan:
	sld_modscan_exit();
out_task:
	sld_task_exit();
	sld_hv_exit();
out_hooks:
	sld_hooks_exit();
	sld_hv_free();
out_free:
	sld_exempt_free();
	sld_modscan_free();
	sld_task_free();
	sld_msr_exit();
	return err;
}

/*
 * Protected tasks are detached first, while every hook still runs; then
 * nothing can protect a task again, and the hooks can go.
 */
static void __exit sld_compat_exit(void)
{
	sld_knobs_exit();
	sld_status_exit();
	sld_task_exit();
	sld_modscan_exit();
	sld_hv_exit();
	sld_hooks_exit();
	sld_hv_free();
	sld_exempt_free();
	sld_modscan_free();
	sld_task_free();
	sld_msr_exit();
}

module_init(sld_compat_init);
module_exit(sld_compat_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(SLD_COMPAT_VERSION);
MODULE_DESCRIPTION("Per-task split-lock detection for VMX hypervisors unprepared for it");
MODULE_AUTHOR("The sld-compat developers");
