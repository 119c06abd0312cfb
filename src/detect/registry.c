// SPDX-License-Identifier: GPL-2.0
/*
 * Who says what a module is, besides its text and the table of known
 * hypervisors (schema/hypervisors.c): the admin (knobs safe_modules and
 * hypervisor_modules) and vendors (the API in vendor.c). The verdict rule
 * itself, which weighs them all, is sld_classify() in modlib/verdict.c.
 *
 * A mutex, not RCU, protects the sets: every lookup comes from sleepable
 * context (module notifier, vendor call from a module's init, knob
 * writes, status reads), none from the kprobe handler, and lookups are
 * rare (once per module load), so nothing gains from lock-free reads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "detect/registry.h"
#include "knobs/knobs.h"
#include "knobs/switches.h"
#include "modlib/verdict.h"
#include "schema/names.h"

/* Bounds: the knob schema (schema/knobs_table.h). */
#define REG_MAX		SLD_MODULE_LIST_MAX
#define REG_NAME_LEN	(SLD_MODNAME_LEN + 1)	/* MODULE_NAME_LEN */
static_assert(REG_NAME_LEN == MODULE_NAME_LEN);
static_assert(REG_MAX == 64);	/* sld_names_says_modules: "more than 64 entries" */

struct name_set {
	unsigned int n;
	char name[REG_MAX][REG_NAME_LEN];
};

static struct name_set admin_safe, admin_hv, vendor_safe, vendor_hv;
static DEFINE_MUTEX(registry_lock);
/* A knob write's or read's view of a set; registry_lock held. */
static struct sld_names_draft draft;

/* Stored as the kernel spells the name ('-' -> '_'), so strcmp finds it. */
static void normalise(char *dst, const char *src)
{
	sld_modname_norm(dst, src, strlen(src));
}

static int set_find(const struct name_set *s, const char *norm)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], norm))
			return i;
	return -1;
}

static bool set_has(const struct name_set *s, const char *name)
{
	char norm[REG_NAME_LEN];

	if (strlen(name) >= REG_NAME_LEN)
		return false;
	normalise(norm, name);
	return set_find(s, norm) >= 0;
}

static void set_del(struct name_set *s, int i)
{
	if (i < 0)
		return;
	memmove(s->name[i], s->name[i + 1], (s->n - i - 1) * REG_NAME_LEN);
	s->n--;
}

/* ---- lookups ---------------------------------------------------------- */

int sld_registry_admin(const char *name)
{
	int r = 0;

	mutex_lock(&registry_lock);
	if (set_has(&admin_safe, name))
		r = SLD_R_ADMIN_SAFE;
	else if (set_has(&admin_hv, name))
		r = SLD_R_ADMIN_HYPERVISOR;
	mutex_unlock(&registry_lock);
	return r;
}

int sld_registry_vendor(const char *name)
{
	int r = 0;

	mutex_lock(&registry_lock);
	if (set_has(&vendor_safe, name))
		r = SLD_R_VENDOR_SAFE;
	else if (set_has(&vendor_hv, name))
		r = SLD_R_VENDOR_HYPERVISOR;
	mutex_unlock(&registry_lock);
	return r;
}

/* A vendor's latest declaration replaces its earlier one. */
int sld_registry_vendor_set(const char *name, int reason)
{
	struct name_set *to = reason == SLD_R_VENDOR_SAFE ? &vendor_safe :
							    &vendor_hv;
	char norm[REG_NAME_LEN];
	int err = 0;

	if (strlen(name) >= REG_NAME_LEN)
		return -EINVAL;
	normalise(norm, name);
	mutex_lock(&registry_lock);
	set_del(&vendor_safe, set_find(&vendor_safe, norm));
	set_del(&vendor_hv, set_find(&vendor_hv, norm));
	if (to->n >= REG_MAX)
		err = -ENOSPC;
	else
		strscpy(to->name[to->n++], norm, REG_NAME_LEN);
	mutex_unlock(&registry_lock);
	return err;
}

void sld_registry_vendor_drop(const char *name)
{
	char norm[REG_NAME_LEN];

	if (strlen(name) >= REG_NAME_LEN)
		return;
	normalise(norm, name);
	mutex_lock(&registry_lock);
	set_del(&vendor_safe, set_find(&vendor_safe, norm));
	set_del(&vendor_hv, set_find(&vendor_hv, norm));
	mutex_unlock(&registry_lock);
}

/* ---- admin knobs -------------------------------------------------------- */

/* The other list must not hold any of the new set's names. */
static int set_disjoint(const struct sld_names_draft *d,
			const struct name_set *other, const char **why)
{
	char norm[REG_NAME_LEN];
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		normalise(norm, d->v[i]);
		if (set_find(other, norm) >= 0) {
			*why = "name is in both safe_modules and hypervisor_modules";
			return -EINVAL;
		}
	}
	return 0;
}

static void set_draft(const struct name_set *set, struct sld_names_draft *d)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		d->v[i] = set->name[i];
	d->n = set->n;
}

/*
 * The list grammar of every list knob (schema/names.h), on module names.
 * All or nothing: the write is applied to a draft, checked against the
 * other list, and only then stored.
 */
static int list_set(struct name_set *set, const struct name_set *other,
		    enum sld_knob_id knob, const char *val, const char **why)
{
	struct sld_names_rule rule;
	struct name_set *tmp;
	char *buf;
	unsigned int i;
	int err = -ENOMEM;

	sld_names_rule_of(&sld_knob_schema[knob], &rule);
	tmp = kmalloc(sizeof(*tmp), GFP_KERNEL);
	buf = kstrdup(val, GFP_KERNEL);
	if (!tmp || !buf)
		goto out;
	mutex_lock(&registry_lock);
	set_draft(set, &draft);
	err = sld_names_apply(&rule, &draft, buf, why, NULL) ? -EINVAL : 0;
	if (!err)
		err = set_disjoint(&draft, other, why);
	if (!err) {
		for (i = 0; i < draft.n; i++)
			normalise(tmp->name[i], draft.v[i]);
		tmp->n = draft.n;
		memcpy(set, tmp, sizeof(*tmp));
	}
	mutex_unlock(&registry_lock);
out:
	kfree(buf);
	kfree(tmp);
	return err;
}

static int list_show(const struct name_set *set, char *buf, size_t size)
{
	size_t n;

	mutex_lock(&registry_lock);
	set_draft(set, &draft);
	n = sld_names_join(draft.v, draft.n, buf, size);
	mutex_unlock(&registry_lock);
	n = min(n, size - 2);	/* what fits, then the newline */
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

/* A changed list re-decides the loaded modules (knobs.h). */
static int safe_set(const char *val, const char **why)
{
	int err = list_set(&admin_safe, &admin_hv, SLD_KN_SAFE_MODULES, val,
			   why);

	if (!err)
		sld_knobs_verdict_changed("safe_modules");
	return err;
}

static int safe_show(char *buf, size_t size)
{
	return list_show(&admin_safe, buf, size);
}

static int hv_set(const char *val, const char **why)
{
	int err = list_set(&admin_hv, &admin_safe, SLD_KN_HYPERVISOR_MODULES,
			   val, why);

	if (!err)
		sld_knobs_verdict_changed("hypervisor_modules");
	return err;
}

static int hv_show(char *buf, size_t size)
{
	return list_show(&admin_hv, buf, size);
}

static struct sld_knob knob_safe = {
	.schema = &sld_knob_schema[SLD_KN_SAFE_MODULES],
	.set = safe_set, .show = safe_show,
};
SLD_KNOB(safe_modules, knob_safe);

static struct sld_knob knob_hv = {
	.schema = &sld_knob_schema[SLD_KN_HYPERVISOR_MODULES],
	.set = hv_set, .show = hv_show,
};
SLD_KNOB(hypervisor_modules, knob_hv);
