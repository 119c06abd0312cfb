// SPDX-License-Identifier: GPL-2.0
/*
 * The knob framework and the verbose knob. Feature files declare their
 * own knobs with SLD_KNOB() (main.c: enabled); this file calls none of
 * them but through their setters.
 *
 * Every write goes through knob_store(): it rejects empty values, values
 * longer than the knob allows, embedded NULs, control characters, bytes
 * outside printable ASCII and surrounding whitespace, accepts one trailing
 * newline (what `echo` writes), then calls the knob's setter under one
 * mutex. A rejected write changes nothing and says why, once, in dmesg.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat/compat.h"
#include "knobs/knobs.h"
#include "knobs/switches.h"

struct sld_knobs sld_knobs = {
	.enabled = true,
	.verbose = 1,
};

/*
 * The lock order of sld_compat, written down once: a lock is taken only
 * with locks above it (on its path from the top) held, never one below.
 *
 *   knobs_mutex			every knob write (here)
 *     records_lock		modrecords.c, re-deciding loaded modules;
 *				a load comes in as module_mutex ->
 *				preload_lock (modwalk.c) -> records_lock
 *       hv_mutex		hvwatch.c, watching a module
 *         tk_task_mutex	engine/task/task.c, the preempt-notifier key
 *				(defined in pool.c, as its grow_fn() takes it)
 *         hooks_lock		hooks.c, arming on-demand probes
 *       disable_lock		core_msr.c, the global SLD disable
 *     hooks_lock, hv_mutex, tk_task_mutex	enabled, exempt_* directly
 *
 * registry_lock (registry.c) is a leaf under knobs_mutex or
 * records_lock. Below all of them, and nested in none of each other,
 * the raw spinlocks of the paths that run with preemption or irqs off:
 * tk_pool_lock (engine/task/pool.c), core_locks (core_msr.c), pending_lock
 * (modcapture.c); degraded_lock (degraded.c) is a leaf too.
 */
static DEFINE_MUTEX(knobs_mutex);
static struct attribute **knob_attrs;
static struct attribute_group knob_group = { .name = "parameters" };

void sld_knobs_lock(void)
{
	mutex_lock(&knobs_mutex);
}

void sld_knobs_unlock(void)
{
	mutex_unlock(&knobs_mutex);
}

/*
 * Who re-decides the loaded modules when a verdict knob changes: modscan.c
 * owns them and sits above every knob's file, so main.c passes its
 * function in. NULL until then: load-time values need no re-decision.
 */
static void (*verdict_changed)(const char *knob);	/* knobs_mutex */

void sld_knobs_on_verdict_change(void (*fn)(const char *knob))
{
	mutex_lock(&knobs_mutex);
	verdict_changed = fn;
	mutex_unlock(&knobs_mutex);
}

void sld_knobs_verdict_changed(const char *knob)
{
	lockdep_assert_held(&knobs_mutex);
	if (verdict_changed)
		verdict_changed(knob);
}

int sld_parse_bool(const char *val, bool *out, const char **why)
{
	if (!strcmp(val, "1") || !strcmp(val, "Y") || !strcmp(val, "y")) {
		*out = true;
		return 0;
	}
	if (!strcmp(val, "0") || !strcmp(val, "N") || !strcmp(val, "n")) {
		*out = false;
		return 0;
	}
	*why = "expected 0, 1, Y, N, y or n";
	return -EINVAL;
}

int sld_parse_int(const char *val, int min, int max, int *out,
		  const char **why)
{
	int v;

	if (val[0] == '+' || kstrtoint(val, 10, &v)) {
		*why = "not a decimal integer";
		return -EINVAL;
	}
	if (v < min || v > max) {
		*why = "out of range";
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int sld_parse_enum(const char *val, const char *const *names,
		   unsigned int n, unsigned int *out, const char **why)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(val, names[i])) {
			*out = i;
			return 0;
		}
	}
	*why = "unknown value";
	return -EINVAL;
}

/* The byte-level rules shared by every knob; see the file comment. */
static const char *check_bytes(const char *buf, size_t *len, size_t max)
{
	size_t i, n = *len;

	if (n && buf[n - 1] == '\n')
		n--;
	if (!n)
		return "empty value";
	if (n > max)
		return "value too long";
	if (isspace(buf[0]) || isspace(buf[n - 1]))
		return "leading or trailing whitespace";
	for (i = 0; i < n; i++) {
		unsigned char c = buf[i];

		if (!c)
			return "embedded NUL byte";
		if (c < 0x20 || c > 0x7e)
			return "non-printable or non-ASCII byte";
	}
	*len = n;
	return NULL;
}

static int knob_apply(struct sld_knob *k, const char *buf, size_t len)
{
	const char *why;
	char *val;
	int err;

	why = check_bytes(buf, &len, k->schema->max_len);
	if (why) {
		pr_warn("%s: rejected: %s\n", k->schema->name, why);
		return -EINVAL;
	}
	val = kmemdup_nul(buf, len, GFP_KERNEL);
	if (!val)
		return -ENOMEM;
	why = "invalid value";
	mutex_lock(&knobs_mutex);
	err = k->set(val, &why);
	mutex_unlock(&knobs_mutex);
	if (err)
		pr_warn("%s: rejected '%.64s': %s\n", k->schema->name, val, why);
	kfree(val);
	return err;
}

/* ---- name lists ------------------------------------------------------- */

void sld_names_free(struct sld_names *l)
{
	unsigned int i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		kfree(l->v[i]);
	kfree(l);
}

/* A copy of d's entries, room for max; NULL when out of memory. */
static struct sld_names *names_copy(const struct sld_names_draft *d,
				    unsigned int max)
{
	struct sld_names *l = kzalloc(struct_size(l, v, max), GFP_KERNEL);
	unsigned int i;

	for (i = 0; l && i < d->n; i++) {
		l->v[i] = kstrdup(d->v[i], GFP_KERNEL);
		if (!l->v[i]) {
			sld_names_free(l);
			return NULL;
		}
		l->n++;
	}
	return l;
}

/* All or nothing: *out is a new list, old is left as it was. */
int sld_names_edit(const struct sld_names *old, const char *val,
		   const struct sld_names_rule *rule, struct sld_names **out,
		   const char **why)
{
	struct sld_names_draft *d = kmalloc(sizeof(*d), GFP_KERNEL);
	char *buf = kstrdup(val, GFP_KERNEL);
	int err = -ENOMEM;

	*out = NULL;
	if (!d || !buf)
		goto out;
	sld_names_draft_init(d, old ? (const char *const *)old->v : NULL,
			     old ? old->n : 0);
	err = -EINVAL;
	if (sld_names_apply(rule, d, buf, why, NULL))
		goto out;
	*out = names_copy(d, rule->max);
	err = *out ? 0 : -ENOMEM;
out:
	kfree(buf);
	kfree(d);
	return err;
}

int sld_names_show(const struct sld_names *l, char *buf, size_t size)
{
	size_t n = sld_names_join(l ? (const char *const *)l->v : NULL,
				  l ? l->n : 0, buf, size);

	n = min(n, size - 2);	/* what fits, then the newline */
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

static void list_free(struct sld_list *l)
{
	if (!l)
		return;
	sld_names_free(l->names);
	kfree(l);
}

int sld_list_set(struct sld_list __rcu **slot, const struct sld_list_kind *kind,
		 const char *val, const char **why)
{
	struct sld_list *old = rcu_dereference_protected(*slot, 1), *l;
	unsigned int i;
	int err;

	l = kzalloc(kind->size, GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	err = sld_names_edit(old ? old->names : NULL, val, kind->rule,
			     &l->names, why);
	for (i = 0; !err && kind->resolve && i < l->names->n; i++)
		err = kind->resolve(l, i, why);
	if (err || !l->names->n) {
		list_free(l);
		if (err)
			return err;
		l = NULL;
	}
	rcu_assign_pointer(*slot, l);
	synchronize_rcu();
	list_free(old);
	return 0;
}

int sld_list_show(struct sld_list __rcu **slot, char *buf, size_t size)
{
	const struct sld_list *l = rcu_dereference_protected(*slot, 1);

	return sld_names_show(l ? l->names : NULL, buf, size);
}

void sld_list_free(struct sld_list __rcu **slot)
{
	list_free(rcu_dereference_protected(*slot, 1));
	RCU_INIT_POINTER(*slot, NULL);
}

/* Load time: modprobe/insmod options. The kernel strips no bytes here. */
static int knob_param_set(const char *val, const struct kernel_param *kp)
{
	return knob_apply(kp->arg, val ? val : "", val ? strlen(val) : 0);
}

static int knob_param_get(char *buf, const struct kernel_param *kp)
{
	struct sld_knob *k = kp->arg;
	int n;

	mutex_lock(&knobs_mutex);
	n = k->show(buf, PAGE_SIZE);
	mutex_unlock(&knobs_mutex);
	return n;
}

static void knob_param_free(void *arg)
{
	struct sld_knob *k = arg;

	if (k->free)
		k->free();
}

const struct kernel_param_ops sld_knob_ops = {
	.set = knob_param_set,
	.get = knob_param_get,
	.free = knob_param_free,
};

/* The module kobject's sysfs_ops hand us module_attributes. */
static ssize_t knob_show(SLD_MODATTR_CONST struct module_attribute *attr,
			 struct module_kobject *mk, char *buf)
{
	struct sld_knob *k = container_of(attr, struct sld_knob, attr);
	int n;

	mutex_lock(&knobs_mutex);
	n = k->show(buf, PAGE_SIZE);
	mutex_unlock(&knobs_mutex);
	return n;
}

static ssize_t knob_store(SLD_MODATTR_CONST struct module_attribute *attr,
			  struct module_kobject *mk, const char *buf, size_t count)
{
	struct sld_knob *k = container_of(attr, struct sld_knob, attr);
	int err = knob_apply(k, buf, count);

	return err ? err : count;
}

/* ---- the core knobs ----------------------------------------------------- */

static int verbose_set(const char *val, const char **why)
{
	int v;
	const struct sld_knob_schema *s = &sld_knob_schema[SLD_KN_VERBOSE];
	int err = sld_parse_int(val, s->min, s->max, &v, why);

	if (!err)
		WRITE_ONCE(sld_knobs.verbose, v);
	return err;
}

static int verbose_show(char *buf, size_t size)
{
	return scnprintf(buf, size, "%d\n", sld_knobs.verbose);
}

static struct sld_knob knob_verbose = {
	.schema = &sld_knob_schema[SLD_KN_VERBOSE],
	.set = verbose_set, .show = verbose_show,
};
SLD_KNOB(verbose, knob_verbose);

/* ---- sysfs ------------------------------------------------------------- */

/*
 * The kernel builds /sys/module/<mod>/parameters only for parameters with
 * a non-zero perm; ours have perm 0, so we make the group ourselves from
 * the module's own parameter table and every knob is listed exactly once.
 */
int sld_knobs_init(void)
{
	struct module *me = THIS_MODULE;
	unsigned int i, n = 0;
	int err;

	knob_attrs = kcalloc(me->num_kp + 1, sizeof(*knob_attrs), GFP_KERNEL);
	if (!knob_attrs)
		return -ENOMEM;
	for (i = 0; i < me->num_kp; i++) {
		struct sld_knob *k;

		if (me->kp[i].ops != &sld_knob_ops)
			continue;
		k = me->kp[i].arg;
		/* A knob wired to another knob's schema entry: a build bug. */
		if (strcmp(me->kp[i].name, k->schema->name)) {
			pr_err("knob %s has the schema of %s\n",
			       me->kp[i].name, k->schema->name);
			kfree(knob_attrs);
			knob_attrs = NULL;
			return -EINVAL;
		}
		sysfs_attr_init(&k->attr.attr);
		k->attr.attr.name = k->schema->name;
		k->attr.attr.mode = 0644;
		k->attr.show = knob_show;
		k->attr.store = knob_store;
		knob_attrs[n++] = &k->attr.attr;
	}
	knob_group.attrs = knob_attrs;
	err = sysfs_create_group(&me->mkobj.kobj, &knob_group);
	if (err) {
		kfree(knob_attrs);
		knob_attrs = NULL;
		return err;
	}
	return 0;
}

void sld_knobs_exit(void)
{
	if (!knob_attrs)
		return;
	sysfs_remove_group(&THIS_MODULE->mkobj.kobj, &knob_group);
	kfree(knob_attrs);
	knob_attrs = NULL;
}
