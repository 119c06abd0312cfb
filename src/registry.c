// SPDX-License-Identifier: GPL-2.0
/*
 * Who says what a module is, besides its text: the built-in table, the
 * admin (knobs safe_modules and hypervisor_modules) and vendors (the API
 * in vendor.c). The verdict rule itself is sld_classify() in x86scan.
 *
 * A mutex, not RCU, protects the sets: every lookup comes from sleepable
 * context (module notifier, vendor call from a module's init, knob
 * writes, status reads), none from the kprobe handler, and lookups are
 * rare (once per module load), so nothing gains from lock-free reads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sld_compat.h"
#include "symbols.h"
#include "knobs.h"
#include "x86scan.h"

/* Bounds: the knob schema (schema/knobs_table.h). */
#define REG_MAX		SLD_MODULE_LIST_MAX
#define REG_NAME_LEN	(SLD_MODNAME_LEN + 1)	/* MODULE_NAME_LEN */
static_assert(REG_NAME_LEN == MODULE_NAME_LEN);
static_assert(REG_MAX == 64);	/* list_set()'s "more than 64 entries" */

struct name_set {
	unsigned int n;
	char name[REG_MAX][REG_NAME_LEN];
};

static struct name_set admin_safe, admin_hv, vendor_safe, vendor_hv;
static DEFINE_MUTEX(registry_lock);

static void normalise(char *dst, const char *src)
{
	for (; *src; src++)
		*dst++ = *src == '-' ? '_' : *src;
	*dst = '\0';
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

/*
 * kvm_intel handles split-lock #AC in its guests itself since 5.8, by
 * calling the kernel's handle_guest_split_lock(). That is only true when
 * the running kernel has that function: a kvm_intel built for a kernel
 * without it reflects #AC into guests that do not expect it. So the
 * built-in entry says safe only when sld_kernel.guest_handler is set.
 */
bool sld_registry_builtin_safe(const char *name, const char **why)
{
	if (strcmp(name, "kvm_intel") || !sld_kernel.guest_handler)
		return false;
	if (why)
		*why = "kvm_intel calls the kernel's handle_guest_split_lock";
	return true;
}

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

static bool valid_name(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= REG_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

/*
 * "a,b,c" replaces the set; "+a,-b" edits it (every entry must then carry
 * a sign); "-" alone clears it, as for every list knob. All or nothing:
 * the new set is built in a copy, checked against the other list, and
 * only then stored.
 */
static int list_set(struct name_set *set, const struct name_set *other,
		    const char *val, const char **why)
{
	struct name_set *tmp, *seen;
	const char *p = val;
	int edit = -1, err = -EINVAL;
	unsigned int k;

	tmp = kmalloc(sizeof(*tmp), GFP_KERNEL);
	seen = kzalloc(sizeof(*seen), GFP_KERNEL);
	if (!tmp || !seen) {
		err = -ENOMEM;
		goto out;
	}
	mutex_lock(&registry_lock);
	if (!strcmp(val, "-")) {
		set->n = 0;
		err = 0;
		goto unlock;
	}
	for (;;) {
		const char *end = strchrnul(p, ',');
		bool signed_entry = *p == '+' || *p == '-';
		char op = signed_entry ? *p : 0;
		const char *name = signed_entry ? p + 1 : p;
		size_t len = end - name;
		char norm[REG_NAME_LEN];
		int i;

		if (end == p || (signed_entry && !len)) {
			*why = "empty entry";
			goto unlock;
		}
		if (edit < 0) {
			edit = signed_entry;
			if (edit)
				memcpy(tmp, set, sizeof(*tmp));
			else
				tmp->n = 0;
		} else if (edit != signed_entry) {
			*why = "mixes a replacing list with +/- edits";
			goto unlock;
		}
		if (!valid_name(name, len)) {
			*why = "name must be 1-55 of [a-zA-Z0-9_-]";
			goto unlock;
		}
		memcpy(norm, name, len);
		norm[len] = '\0';
		normalise(norm, norm);
		if (set_find(seen, norm) >= 0) {
			*why = "name given twice";
			goto unlock;
		}
		if (seen->n >= REG_MAX) {
			*why = "more than 64 entries";
			goto unlock;
		}
		strscpy(seen->name[seen->n++], norm, REG_NAME_LEN);
		i = set_find(tmp, norm);
		if (op == '-') {
			if (i < 0) {
				*why = "removing a name that is not listed";
				goto unlock;
			}
			set_del(tmp, i);
		} else {
			if (i >= 0) {
				*why = "name already listed";
				goto unlock;
			}
			if (tmp->n >= REG_MAX) {
				*why = "more than 64 entries";
				goto unlock;
			}
			strscpy(tmp->name[tmp->n++], norm, REG_NAME_LEN);
		}
		if (!*end)
			break;
		p = end + 1;
	}
	for (k = 0; k < tmp->n; k++) {
		if (set_find(other, tmp->name[k]) >= 0) {
			*why = "name is in both safe_modules and hypervisor_modules";
			goto unlock;
		}
	}
	memcpy(set, tmp, sizeof(*tmp));
	err = 0;
unlock:
	mutex_unlock(&registry_lock);
out:
	kfree(tmp);
	kfree(seen);
	return err;
}

static int list_show(const struct name_set *set, char *buf, size_t size)
{
	unsigned int i;
	int n = 0;

	mutex_lock(&registry_lock);
	for (i = 0; i < set->n; i++)
		n += scnprintf(buf + n, size - n, "%s%s", i ? "," : "",
			       set->name[i]);
	mutex_unlock(&registry_lock);
	if (!n)		/* as every list knob reads when empty */
		n = scnprintf(buf, size, "-");
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}

/* A changed list re-decides the loaded modules (modscan.c). */
static int safe_set(const char *val, const char **why)
{
	int err = list_set(&admin_safe, &admin_hv, val, why);

	if (!err)
		sld_modscan_redecide("safe_modules");
	return err;
}

static int safe_show(char *buf, size_t size)
{
	return list_show(&admin_safe, buf, size);
}

static int hv_set(const char *val, const char **why)
{
	int err = list_set(&admin_hv, &admin_safe, val, why);

	if (!err)
		sld_modscan_redecide("hypervisor_modules");
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
