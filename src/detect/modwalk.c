// SPDX-License-Identifier: GPL-2.0
/*
 * The modules loaded before sld_compat. The module list is not exported:
 * `modules` and `module_mutex` are found through kallsyms. modscan.c
 * registers its notifier before it walks, so a module that loads
 * meanwhile is decided there (one in COMING at that instant may be
 * missed); one that unloads meanwhile is skipped or waits (preload_lock).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "detect/modwalk.h"
#include "kernel/degraded.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"

/*
 * Held while one already-loaded module is scanned and decided. A GOING
 * notification takes it (sld_modwalk_wait) before the kernel may free
 * that module, so the scan needs no reference on it: a reference would
 * make an `rmmod` racing our insmod fail with EAGAIN (installers reload
 * modules in scripts). Lock order (knobs.c): module_mutex -> preload_lock ->
 * records_lock (modrecords.c).
 */
static DEFINE_MUTEX(preload_lock);

struct modname {
	char s[MODULE_NAME_LEN];
};

static unsigned int count_modules(struct list_head *modules, struct mutex *mm)
{
	struct module *mod;
	unsigned int n = 0;

	mutex_lock(mm);
	list_for_each_entry(mod, modules, list)
		n++;
	mutex_unlock(mm);
	return n;
}

/*
 * The names of the live modules, copied under module_mutex. Modules that
 * load after the count are decided by the notifier, but may take places
 * in the list: retry with room for them rather than drop one silently.
 */
static struct modname *loaded_names(struct list_head *modules, struct mutex *mm,
			       unsigned int *n)
{
	unsigned int max = count_modules(modules, mm) + 32, tries;
	struct module *mod;
	struct modname *names;

	for (tries = 0; tries < 4; tries++, max *= 2) {
		bool full = false;

		names = kvmalloc_array(max, sizeof(*names), GFP_KERNEL);
		if (!names)
			return NULL;
		*n = 0;
		mutex_lock(mm);
		list_for_each_entry(mod, modules, list) {
			if (mod == THIS_MODULE || mod->state != MODULE_STATE_LIVE)
				continue;
			if (*n == max) {
				full = true;
				break;
			}
			strscpy(names[(*n)++].s, mod->name, MODULE_NAME_LEN);
		}
		mutex_unlock(mm);
		if (!full)
			return names;
		kvfree(names);
	}
	return NULL;
}

/*
 * Under module_mutex: the module of that name if it is still live, with
 * preload_lock taken before module_mutex is dropped, so that its GOING
 * notification (after module_mutex, before it is freed) waits for us.
 */
static struct module *hold_live(struct list_head *modules, struct mutex *mm,
				const char *name)
{
	struct module *mod, *found = NULL;

	mutex_lock(mm);
	list_for_each_entry(mod, modules, list)
		if (mod->state == MODULE_STATE_LIVE && !strcmp(mod->name, name)) {
			found = mod;
			mutex_lock(&preload_lock);
			break;
		}
	mutex_unlock(mm);
	return found;
}

void sld_modwalk(void (*fn)(struct module *mod))
{
	struct list_head *modules = (void *)sld_lookup("modules");
	struct mutex *mm = (void *)sld_lookup("module_mutex");
	unsigned int n = 0, i;
	struct modname *names;

	if (!modules || !mm) {
		sld_degrade("modscan-preloaded", "kernel has no modules list symbol");
		return;
	}
	names = loaded_names(modules, mm, &n);
	if (!names) {
		sld_degrade("modscan-preloaded",
			    "out of memory, or modules loading faster than listed");
		return;
	}
	for (i = 0; i < n; i++) {
		struct module *mod = hold_live(modules, mm, names[i].s);

		if (!mod)
			continue;
		fn(mod);
		mutex_unlock(&preload_lock);
	}
	kvfree(names);
}

void sld_modwalk_wait(void)
{
	mutex_lock(&preload_lock);
	mutex_unlock(&preload_lock);
}
