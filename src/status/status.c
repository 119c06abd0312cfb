// SPDX-License-Identifier: GPL-2.0
/*
 * The read-only view: /sys/kernel/sld_compat/, one value per file for
 * scripts, and `status`, the same values as "name: value" lines for
 * people. Both come from one table, so they cannot disagree. What grows
 * with the machine (the per-CPU account, core_msr.c) is a seq_file in
 * /proc instead: a sysfs page holds about 30 CPUs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "detect/vendor.h"
#include "engine/ac_path.h"
#include "engine/db_path.h"
#include "engine/exempt.h"
#include "engine/hvwatch.h"
#include "engine/msr/core_msr.h"
#include "engine/run.h"
#include "engine/task/task.h"
#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"
#include "status/status.h"

struct status_item {
	const char *name;
	int (*show)(char *buf, size_t size);
};

static int version_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", SLD_COMPAT_VERSION);
}

static int sld_mode_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%s\n", sld_mode_name(sld_kernel_mode()));
}

static int mitigate_show(char *buf, size_t size)
{
	int m = sld_kernel_mitigate();

	return m < 0 ? scnprintf(buf, size, "absent\n") :
		       scnprintf(buf, size, "%d\n", m);
}

static int cpu_sld_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%d\n", sld_kernel.cpu_sld);
}

static int cpu_bld_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%d\n", sld_kernel.cpu_bld);
}

/* Which of the kernel's split-lock functions exist here. */
static int kernel_code_show(char *buf, size_t size)
{
	static const struct { const char *name; size_t off; } fns[] = {
#define FN(f, sym) { sym, offsetof(struct sld_kernel, f) }
		FN(user_handler, "handle_user_split_lock"),
		FN(guest_handler, "handle_guest_split_lock"),
		FN(bus_lock_handler, "handle_bus_lock"),
		FN(warn, "split_lock_warn"),
		FN(reenable, "__split_lock_reenable"),
		FN(reenable_unlock, "__split_lock_reenable_unlock"),
		FN(cpu_offline, "splitlock_cpu_offline"),
#undef FN
	};
	unsigned int i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		unsigned long addr = *(unsigned long *)((char *)&sld_kernel +
							fns[i].off);

		n += scnprintf(buf + n, size - n, "%s %s\n", fns[i].name,
			       addr ? "present" : "missing");
	}
	return n;
}

/* What this machine is, in one word, so nobody has to infer it. */
static int support_show(char *buf, size_t size)
{
	const char *s;

	if (!sld_kernel_has_sld_code())
		s = "none: kernel has no split-lock detection code";
	else if (!sld_kernel.cpu_sld)
		s = "kernel-only: CPU has no split-lock detection, MSR writes skipped";
	else
		s = "full";
	return scnprintf(buf, size, "%s\n", s);
}

/*
 * Which trap the kernel raises for a split lock here, and why: the #AC of
 * split-lock detection (MSR_TEST_CTRL, the kernel in warn or fatal mode),
 * the #DB of bus-lock detection (DEBUGCTL bit 2, which the kernel sets in
 * ratelimit mode on Intel and in every mode but off on AMD from 6.13),
 * both, or none. sld_compat relieves tasks on the path that is active.
 */
static int mechanism_show(char *buf, size_t size)
{
	enum sld_mode m = sld_kernel_mode();
	bool ac = sld_kernel.cpu_sld &&
		  (m == SLD_MODE_WARN || m == SLD_MODE_FATAL);
	bool db = sld_kernel.kernel_bld;
	const char *why_db = !sld_kernel.cpu_bld ? "CPU has no bus-lock detection" :
			     db ? "the kernel set DEBUGCTL bit 2" :
			     "the kernel left DEBUGCTL bit 2 clear";
	char why_ac[64];

	if (sld_kernel.cpu_sld && m == SLD_MODE_UNKNOWN)
		return scnprintf(buf, size, "unknown: sld_mode unreadable; bus-lock #DB %s\n",
				 db ? "on" : "off");
	if (!sld_kernel.cpu_sld)
		scnprintf(why_ac, sizeof(why_ac), "CPU has no split-lock detection");
	else
		scnprintf(why_ac, sizeof(why_ac), "sld_mode %s", sld_mode_name(m));
	if (ac && db)
		return scnprintf(buf, size, "both: split-lock #AC (%s), bus-lock #DB (%s)\n",
				 why_ac, why_db);
	if (ac)
		return scnprintf(buf, size, "split-lock #AC: %s; no bus-lock #DB: %s\n",
				 why_ac, why_db);
	if (db)
		return scnprintf(buf, size, "bus-lock #DB: %s; no split-lock #AC: %s\n",
				 why_db, why_ac);
	return scnprintf(buf, size, "none: no split-lock #AC: %s; no bus-lock #DB: %s\n",
			 why_ac, why_db);
}

static const struct status_item items[] = {
	{ "version", version_show },
	{ "support", support_show },
	{ "mechanism", mechanism_show },
	{ "sld_mode", sld_mode_show },
	{ "split_lock_mitigate", mitigate_show },
	{ "cpu_split_lock_detect", cpu_sld_show },
	{ "cpu_bus_lock_detect", cpu_bld_show },
	{ "kernel_code", kernel_code_show },
	{ "hooks", sld_hooks_show },
	{ "degraded", sld_degraded_show },
	{ "ac", sld_ac_show },
	{ "db", sld_db_show },
	{ "tasks", sld_tasks_show },
	{ "exempt_pending", sld_exempt_pending_show },
	{ "runs", sld_run_show },
	{ "in_use", sld_task_in_use_show },
	{ "hypervisors", sld_hv_show },
	{ "vendor", sld_vendor_show },
	{ "disable_count", sld_disable_count_show },
};

/* Multi-line values are indented under their name. */
static int status_show(char *buf, size_t size)
{
	char *tmp = kmalloc(PAGE_SIZE, GFP_KERNEL);
	unsigned int i;
	int n = 0;

	if (!tmp)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(items); i++) {
		int len = items[i].show(tmp, PAGE_SIZE);
		char *line, *p = tmp;
		bool multi = len > 0 && strchr(tmp, '\n') != tmp + len - 1;

		if (len <= 0)
			continue;
		tmp[len - 1] = '\0';
		if (!multi) {
			n += scnprintf(buf + n, size - n, "%s: %s\n",
				       items[i].name, tmp);
			continue;
		}
		n += scnprintf(buf + n, size - n, "%s:\n", items[i].name);
		while ((line = strsep(&p, "\n")))
			n += scnprintf(buf + n, size - n, "  %s\n", line);
	}
	kfree(tmp);
	return n;
}

struct status_attr {
	struct kobj_attribute ka;
	int (*show)(char *buf, size_t size);
};

static ssize_t status_attr_show(struct kobject *kobj,
				struct kobj_attribute *ka, char *buf)
{
	struct status_attr *sa = container_of(ka, struct status_attr, ka);

	return sa->show(buf, PAGE_SIZE);
}

#define NITEMS (ARRAY_SIZE(items) + 1)
static struct status_attr attrs[NITEMS];
static struct attribute *attr_ptrs[NITEMS + 1];
static const struct attribute_group status_group = { .attrs = attr_ptrs };
static struct kobject *status_kobj;

static void fill_attr(unsigned int i, const char *name,
		      int (*show)(char *, size_t))
{
	sysfs_attr_init(&attrs[i].ka.attr);
	attrs[i].ka.attr.name = name;
	attrs[i].ka.attr.mode = 0444;
	attrs[i].ka.show = status_attr_show;
	attrs[i].show = show;
	attr_ptrs[i] = &attrs[i].ka.attr;
}

int sld_status_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(items); i++)
		fill_attr(i, items[i].name, items[i].show);
	fill_attr(i, "status", status_show);

	status_kobj = kobject_create_and_add("sld_compat", kernel_kobj);
	if (!status_kobj)
		return -ENOMEM;
	err = sysfs_create_group(status_kobj, &status_group);
	if (err) {
		kobject_put(status_kobj);
		status_kobj = NULL;
		return err;
	}
	sld_account_init();
	return 0;
}

void sld_status_exit(void)
{
	sld_account_exit();
	if (!status_kobj)
		return;
	sysfs_remove_group(status_kobj, &status_group);
	kobject_put(status_kobj);
	status_kobj = NULL;
}
