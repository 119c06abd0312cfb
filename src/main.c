// SPDX-License-Identifier: GPL-2.0
/*
 * sld_compat: per-task split-lock detection for hosts that run VMX
 * hypervisors unprepared for it. This file orders init and exit, and
 * owns the one switch that reaches every part: the `enabled` knob.
 *
 * Init order matters: learn the kernel first (symbols), then let features
 * add their hooks, then place them, then publish knobs and status last so
 * nothing is visible half-built. Exit is the exact reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>

#include "detect/modscan.h"
#include "detect/policy.h"
#include "engine/ac_path.h"
#include "engine/db_path.h"
#include "engine/exempt.h"
#include "engine/hvwatch.h"
#include "engine/msr/core_msr.h"
#include "engine/task/task.h"
#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "kernel/symbols.h"
#include "knobs/knobs.h"
#include "knobs/switches.h"
#include "status/status.h"

static void say_what_we_found(void)
{
	int m = sld_kernel_mitigate();

	pr_info("version %s: kernel split-lock mode %s, split_lock_mitigate %s%d, cpu split_lock_detect %d bus_lock_detect %d, bus-lock #DB %s\n",
		SLD_COMPAT_VERSION, sld_mode_name(sld_kernel_mode()),
		m < 0 ? "absent " : "", m < 0 ? 0 : m,
		sld_kernel.cpu_sld, sld_kernel.cpu_bld,
		sld_kernel.kernel_bld ? "on" : "off");
	if (!sld_kernel_has_sld_code())
		pr_info("this kernel has no split-lock detection: nothing to do\n");
	else if (!sld_kernel.cpu_sld)
		pr_info("CPU has no split-lock detection: MSR_TEST_CTRL is never written, the account records intent only\n");
}

/* ---- enabled: every hook, every protected task, every policy hold ----- */

static bool running;	/* knobs mutex: init done, a write switches */

static int enabled_set(const char *val, const char **why)
{
	bool on;
	int err = sld_parse_bool(val, &on, why);

	if (err)
		return err;
	if (running && on != sld_knobs.enabled) {
		err = sld_hooks_arm(on);
		if (err) {
			*why = "hooks could not be switched";
			return err;
		}
		sld_hv_arm(on);
	}
	WRITE_ONCE(sld_knobs.enabled, on);
	if (running) {
		sld_task_refresh();
		/* N gives disable holds back and stops refusing; Y re-takes. */
		sld_modscan_redecide("enabled");
	}
	return 0;
}

static int enabled_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%c\n", sld_knobs.enabled ? 'Y' : 'N');
}

static struct sld_knob knob_enabled = {
	.schema = &sld_knob_schema[SLD_KN_ENABLED],
	.set = enabled_set, .show = enabled_show,
};
SLD_KNOB(enabled, knob_enabled);

static void set_running(bool on)
{
	sld_knobs_lock();
	running = on;
	sld_knobs_unlock();
}

/* ---- init and exit ---------------------------------------------------- */

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
	sld_exempt_setup();
	sld_ac_setup();
	sld_db_setup();
	sld_msr_setup();
	sld_hv_setup();
	err = sld_hooks_init();
	if (err)
		goto out_hooks;
	sld_task_init();
	sld_exempt_init();
	sld_knobs_on_verdict_change(sld_modscan_redecide);
	err = sld_modscan_init();
	if (err)
		goto out_task;
	err = sld_status_init();
	if (err)
		goto out_modscan;
	/* Before the sysfs files: no write may only store. */
	set_running(true);
	err = sld_knobs_init();
	if (err)
		goto out_status;
	return 0;

out_status:
	set_running(false);
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
	set_running(false);
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
