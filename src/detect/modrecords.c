// SPDX-License-Identifier: GPL-2.0
/*
 * The records of the modules modscan.c decided: one per loaded module,
 * plus the last MAX_GONE unloaded ones for status, each with what the
 * policy gave it (released when it unloads or its record is dropped).
 * /proc/sld_compat_modules lists them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "detect/modrecords.h"
#include "detect/policy.h"
#include "kernel/degraded.h"
#include "knobs/switches.h"

#define MAX_GONE	32	/* unloaded records kept for status */

static LIST_HEAD(records);
/* Lock order: knobs.c (module_mutex -> preload_lock -> records_lock). */
static DEFINE_MUTEX(records_lock);
static unsigned int ngone;
static struct proc_dir_entry *proc_entry;

void sld_modrec_lock(void)
{
	mutex_lock(&records_lock);
}

void sld_modrec_unlock(void)
{
	mutex_unlock(&records_lock);
}

static void release_policy(struct modrec *rec)
{
	sld_policy_release(&rec->pol, rec->mod);
}

/* Called with records_lock held: drop a gone record of the same name. */
void sld_modrec_insert(struct modrec *rec)
{
	struct modrec *r, *tmp, *oldest = NULL;

	list_for_each_entry_safe(r, tmp, &records, node) {
		if (r->mod == rec->mod || !strcmp(r->name, rec->name)) {
			if (r->flags & RF_GONE)
				ngone--;
			release_policy(r);
			list_del(&r->node);
			kfree(r);
		}
	}
	list_add_tail(&rec->node, &records);
	if (ngone <= MAX_GONE)
		return;
	list_for_each_entry(r, &records, node)
		if (r->flags & RF_GONE) {
			oldest = r;
			break;
		}
	if (oldest) {
		list_del(&oldest->node);
		kfree(oldest);
		ngone--;
	}
}

struct modrec *sld_modrec_new(struct module *mod)
{
	struct modrec *rec = kzalloc(sizeof(*rec), GFP_KERNEL);

	if (rec) {
		rec->mod = mod;
		rec->pol.kept = -1;
		strscpy(rec->name, mod->name, sizeof(rec->name));
	}
	return rec;
}

/* records_lock held: the notifier decided this load already. */
bool sld_modrec_recorded(const struct module *mod)
{
	struct modrec *r;

	list_for_each_entry(r, &records, node)
		if (r->mod == mod && !(r->flags & RF_GONE))
			return true;
	return false;
}

/* records_lock held: the live record after r, from the first if r is NULL. */
struct modrec *sld_modrec_next_live(struct modrec *r)
{
	r = list_prepare_entry(r, &records, node);
	list_for_each_entry_continue(r, &records, node)
		if (!(r->flags & RF_GONE))
			return r;
	return NULL;
}

/* GOING: the record stays, for status, without its policy. */
void sld_modrec_gone(struct module *mod)
{
	struct modrec *r;

	mutex_lock(&records_lock);
	list_for_each_entry(r, &records, node) {
		if (r->mod != mod)
			continue;
		release_policy(r);
		r->mod = NULL;
		r->flags |= RF_GONE;
		ngone++;
		break;
	}
	mutex_unlock(&records_lock);
}

/* Drop every record (undoing its policy). */
void sld_modrec_drop_all(void)
{
	struct modrec *r, *tmp;

	mutex_lock(&records_lock);
	list_for_each_entry_safe(r, tmp, &records, node) {
		release_policy(r);
		list_del(&r->node);
		kfree(r);
	}
	ngone = 0;
	mutex_unlock(&records_lock);
}

int sld_modrec_first(const struct modrec *rec, char *buf, size_t size,
		     const char *at)
{
	/* the first host-only VMX one for a hypervisor, else any (modlib) */
	int f = sld_first_finding(&rec->st, rec->first_sec,
				  rec->verdict == SLD_V_HYPERVISOR);

	if (f < 0)
		return scnprintf(buf, size, "-");
	return scnprintf(buf, size, "%s%s%s+0x%llx", x86_find_name(f), at,
			 rec->first_name[f],
			 (unsigned long long)rec->st.first[f]);
}

/* ---- /proc/sld_compat_modules ------------------------------------------ */

/*
 * One line per module can exceed a page on a real host (100+ modules), so
 * this is a seq_file, in /proc: debugfs is gone under lockdown.
 */
static void *rec_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&records_lock);
	return seq_list_start(&records, *pos);
}

static void *rec_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &records, pos);
}

static void rec_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&records_lock);
}

static unsigned int class_count(const struct modrec *rec,
				enum x86_find_class c)
{
	unsigned int n = 0;
	int f;

	for (f = 0; f < X86_F_COUNT; f++)
		if (x86_find_class(f) == c)
			n += rec->st.count[f];
	return n;
}

static int rec_show(struct seq_file *m, void *v)
{
	const struct modrec *rec = list_entry(v, struct modrec, node);
	char first[64];

	sld_modrec_first(rec, first, sizeof(first), "@");
	seq_printf(m, "%s %s %s vmx=%u svm=%u cr=%u dr=%u first=%s guest_calls=%u scan_us=%llu atomic_ns=%llu exec_secs=%u flags=",
		   rec->name, sld_verdict_name(rec->verdict),
		   sld_reason_name(rec->reason), class_count(rec, X86_C_VMX),
		   class_count(rec, X86_C_SVM), class_count(rec, X86_C_CR),
		   class_count(rec, X86_C_DR), first, rec->handler_calls,
		   div_u64(rec->scan_ns, NSEC_PER_USEC), rec->atomic_ns,
		   rec->nsec);
	seq_puts(m, rec->flags & RF_SECTIONS ? "sections" : "text-regions");
	if (rec->flags & RF_PRELOADED)
		seq_puts(m, ",preloaded,init-gone");
	else
		seq_puts(m, rec->flags & RF_INIT ? ",init-scanned" : ",no-init");
	seq_puts(m, rec->flags & RF_MODINFO ? ",modinfo" : ",no-modinfo");
	if (rec->init_finds)
		seq_puts(m, ",init-findings-ignored");
	if (rec->claim != SLD_CLAIM_NONE)
		seq_printf(m, ",%s", sld_claim_flag(rec->claim));
	if (rec->pol.watched)
		seq_puts(m, ",watched");
	if (rec->pol.disabled)
		seq_puts(m, ",sld-disabled");
	if (rec->pol.late)
		seq_puts(m, ",refuse-too-late");
	seq_puts(m, rec->flags & RF_GONE ? ",unloaded\n" : ",loaded\n");
	return 0;
}

static const struct seq_operations rec_seq_ops = {
	.start = rec_start,
	.next = rec_next,
	.stop = rec_stop,
	.show = rec_show,
};

void sld_modrec_proc_init(void)
{
	proc_entry = proc_create_seq("sld_compat_modules", 0444, NULL,
				     &rec_seq_ops);
	if (!proc_entry)
		sld_degrade("modscan-status", "cannot create /proc/sld_compat_modules");
}

void sld_modrec_proc_exit(void)
{
	proc_remove(proc_entry);
	proc_entry = NULL;
}
