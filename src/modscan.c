// SPDX-License-Identifier: GPL-2.0
/*
 * Scan every module that loads after sld_compat, classify it (x86scan's
 * sld_classify) and apply the on_hypervisor policy (policy.c). When a
 * knob or a vendor changes what a loaded module is or what its verdict
 * leads to, its record is re-decided the same way, under the same lock.
 *
 * Why two hooks: a kprobe on module_finalize() and a module notifier.
 *  - module_finalize(hdr, sechdrs, mod) is where the ELF section headers
 *    and the temporary copy of the file (load_info) can be found: each
 *    executable section's name and final address, .modinfo (sld_safe).
 *    The notifier only gets struct module, which keeps none of that. But
 *    a kprobe handler runs with preemption off (int3: NMI-like): it
 *    cannot scan megabytes, sleep, or make the load fail, and on RT every
 *    instruction there is latency.
 *  - The MODULE_STATE_COMING notifier runs in sleepable context after the
 *    text is final, while load_module() still holds the ELF copy (it is
 *    freed after COMING), and its error (notifier_from_errno) makes
 *    prepare_coming_module() fail the load, on 6.1 and 6.12 alike. So the
 *    handler only records where the copy is, in a preallocated pending
 *    slot, and the notifier walks the sections, scans, classifies,
 *    records and refuses.
 * Whether a module calls the kernel's guest #AC handler
 * (handle_guest_split_lock) is read from its text, not its symbol table,
 * so that a module loaded before sld_compat gets the same verdict.
 * Without the kprobe (missing, failed, or `enabled`=N) the notifier still
 * scans the module's text regions (compat.h), without section names or
 * modinfo; status says so.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/elf.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/ibt.h>

#include "sld_compat.h"
#include "degraded.h"
#include "hooks.h"
#include "policy.h"
#include "symbols.h"
#include "compat/compat.h"
#include "x86scan.h"
#include "trust.h"

#define MAX_SECS	16
#define SEC_NAME_LEN	24
#define NPENDING	8	/* loads between module_finalize and COMING */
#define MAX_GONE	32	/* unloaded records kept for status */
#define SCAN_CHUNK	4096	/* instructions between cond_resched() */

struct sec_info {
	char name[SEC_NAME_LEN];
	unsigned long addr, size;
};

/*
 * What the module_finalize handler records, until the COMING notifier:
 * pointers only, so that the handler, which runs with preemption off
 * (and under pending_lock with interrupts off), takes the same few
 * hundred instructions for every module. Walking the sections and
 * .modinfo of an amdgpu-sized module there took tens of thousands
 * (issue #12 item 7; atomic_ns= in /proc/sld_compat_modules).
 */
struct pending {
	struct module *mod;	/* key; NULL: free slot */
	struct task_struct *task;	/* the loading task (never dereferenced) */
	const Elf_Ehdr *hdr;	/* load_info's copy of the file */
	const Elf_Shdr *sh;	/* its section headers, final addresses */
	unsigned long gen;	/* sld_hooks_gen() when recorded */
	u64 seq;		/* age, to reuse the oldest stale slot */
	u64 atomic_ns;		/* the handler's own time, preemption off */
};

/* What the notifier reads through a slot, in sleepable context. */
struct elf_facts {
	unsigned int nsec;
	bool sec_truncated, has_modinfo, modinfo_safe;
	struct sec_info sec[MAX_SECS];
};

/*
 * Preallocated: the handler may run from the int3 trap, where even
 * GFP_ATOMIC allocation is not allowed. A load that fails between
 * module_finalize and COMING never reaches the notifier: the probe on
 * module_arch_cleanup() (every failure after module_finalize passes
 * there) drops its slot, and pending_fresh() refuses a slot that any
 * other load than the current one may have left (see there).
 */
static struct pending *pending;
static u64 pending_seq;
static DEFINE_RAW_SPINLOCK(pending_lock);

enum rec_flags {
	RF_SECTIONS = BIT(0),	/* per-section scan (else text regions) */
	RF_INIT = BIT(1),	/* init text scanned */
	RF_PRELOADED = BIT(2),	/* loaded before sld_compat */
	RF_MODINFO = BIT(3),	/* .modinfo was read */
	RF_TRUNC = BIT(5),	/* more than MAX_SECS executable sections */
	RF_GONE = BIT(6),	/* unloaded */
};

struct modrec {
	struct list_head node;
	struct module *mod;	/* NULL once gone */
	char name[MODULE_NAME_LEN];
	enum sld_verdict verdict;
	enum sld_reason reason;
	unsigned int flags;
	struct sld_policy_hold pol;	/* what the policy gave it */
	bool modinfo_safe;
	enum sld_claim claim;	/* what its sld_safe tag counted for */
	unsigned int handler_calls;	/* call/jmp sites to the guest handler */
	unsigned int nsec;
	char sec[MAX_SECS][SEC_NAME_LEN];
	u8 first_sec[X86_F_COUNT];
	struct x86scan_stats st;	/* count[] and first[] used */
	u64 scan_ns;		/* time spent decoding, what insmod paid */
	u64 atomic_ns;		/* module_finalize handler, preemption off */
};

static LIST_HEAD(records);
static DEFINE_MUTEX(records_lock);
/*
 * Held while one already-loaded module is scanned and decided. on_going()
 * takes it before the kernel may free that module, so the scan needs no
 * reference on it: a reference would make an `rmmod` racing our insmod
 * fail with EAGAIN (installers reload modules in scripts). Lock order:
 * module_mutex -> preload_lock -> records_lock.
 */
static DEFINE_MUTEX(preload_lock);
static unsigned int ngone;
static bool notifier_on;
static struct proc_dir_entry *proc_entry;

/* ---- module_finalize and module_arch_cleanup handlers (atomic) --------- */

static int finalize_pre(struct kprobe *kp, struct pt_regs *regs)
{
	u64 t0 = ktime_get_mono_fast_ns();
	const Elf_Ehdr *hdr = (const void *)regs->di;
	const Elf_Shdr *sh = (const void *)regs->si;
	struct module *mod = (void *)regs->dx;
	struct pending *p = NULL;
	unsigned long flags;
	unsigned int i;

	if (!pending || !hdr || !sh || !mod)
		return 0;
	raw_spin_lock_irqsave(&pending_lock, flags);
	for (i = 0; i < NPENDING && !p; i++)
		if (pending[i].mod == mod)
			p = &pending[i];
	for (i = 0; i < NPENDING && !p; i++)
		if (!pending[i].mod)
			p = &pending[i];
	if (!p) {
		p = &pending[0];
		for (i = 1; i < NPENDING; i++)
			if (pending[i].seq < p->seq)
				p = &pending[i];
	}
	p->mod = mod;
	p->task = current;
	p->hdr = hdr;
	p->sh = sh;
	p->gen = sld_hooks_gen();
	p->seq = ++pending_seq;
	p->atomic_ns = ktime_get_mono_fast_ns() - t0;
	raw_spin_unlock_irqrestore(&pending_lock, flags);
	return 0;
}

static struct sld_hook finalize_hook = {
	.name = "modscan",
	.symbol = "module_finalize",
	.pre = finalize_pre,
};

/* Move the pending slot of mod into out; false if there is none. */
static bool pending_take(struct module *mod, struct pending *out)
{
	unsigned long flags;
	bool found = false;
	unsigned int i;

	if (!pending)
		return false;
	raw_spin_lock_irqsave(&pending_lock, flags);
	for (i = 0; i < NPENDING; i++) {
		if (pending[i].mod != mod)
			continue;
		if (out)
			*out = pending[i];
		pending[i].mod = NULL;
		found = true;
	}
	raw_spin_unlock_irqrestore(&pending_lock, flags);
	return found;
}

/*
 * module_arch_cleanup(mod): a load that failed after module_finalize
 * (bad arguments, a duplicate exported symbol, ...) on its way out, or a
 * module being freed (its slot was taken at COMING). Drop the slot: its
 * ELF copy is about to be freed and its struct module reused.
 */
static int cleanup_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct module *mod = (void *)regs->di;

	if (mod && pending_take(mod, NULL))
		sld_info("%s: load failed after module_finalize, its record dropped\n",
			 mod->name);
	return 0;
}

static struct sld_hook cleanup_hook = {
	.name = "modscan-cleanup",
	.symbol = "module_arch_cleanup",
	.pre = cleanup_pre,
};

/*
 * The pointers of a slot lead into the ELF copy of the load that recorded
 * it, alive until that load returns: load_module() frees the copy after
 * the COMING notifier (its error paths before, through
 * module_arch_cleanup, where cleanup_pre drops the slot). A slot the
 * current load did not record (the key is the struct module's address,
 * which a later module can get) must be ignored. It was recorded by this
 * load if the same task made it and the probes stayed armed since: else
 * this load's module_finalize may have passed unseen, and a failure
 * unseen left the slot. With kprobes off system-wide (debugfs) neither
 * probe runs: trust no slot then. Only a debugfs switch off and on again
 * between this load's module_finalize and COMING escapes this; the
 * section ranges are still checked (pending_fits) before the text is.
 */
static bool pending_fresh(const struct pending *p)
{
	return p->task == current && p->gen == sld_hooks_gen() &&
	       !sld_hooks_kernel_off();
}

/* Is the string at strtab[off] exactly s, within size bytes? */
static bool str_is(const char *tab, size_t size, size_t off, const char *s)
{
	size_t len = strlen(s);

	return off < size && size - off > len && !memcmp(tab + off, s, len) &&
	       !tab[off + len];
}

static void note_exec(struct elf_facts *e, const Elf_Shdr *s,
		      const char *names, size_t nsize)
{
	struct sec_info *si;
	size_t len = 0;

	if (e->nsec >= MAX_SECS) {
		e->sec_truncated = true;
		return;
	}
	si = &e->sec[e->nsec++];
	if (s->sh_name < nsize)
		len = strnlen(names + s->sh_name,
			      min_t(size_t, nsize - s->sh_name, SEC_NAME_LEN - 1));
	memcpy(si->name, names + s->sh_name, len);
	si->name[len] = '\0';
	if (!len)
		strscpy(si->name, "?", SEC_NAME_LEN);
	si->addr = s->sh_addr;
	si->size = s->sh_size;
}

/* Sleepable: each executable section's name and final address, .modinfo. */
static void note_sections(struct elf_facts *e, const Elf_Ehdr *hdr,
			  const Elf_Shdr *sh)
{
	const unsigned long exec = SHF_EXECINSTR | SHF_ALLOC;
	const Elf_Shdr *strsec;
	const char *names;
	size_t nsize;
	unsigned int i;

	if (hdr->e_shstrndx >= hdr->e_shnum)
		return;
	strsec = &sh[hdr->e_shstrndx];
	names = (const char *)hdr + strsec->sh_offset;
	nsize = strsec->sh_size;
	for (i = 1; i < hdr->e_shnum; i++) {
		const Elf_Shdr *s = &sh[i];

		if ((s->sh_flags & exec) == exec && s->sh_size &&
		    s->sh_type != SHT_NOBITS && s->sh_addr) {
			note_exec(e, s, names, nsize);
		} else if (str_is(names, nsize, s->sh_name, ".modinfo") &&
			   s->sh_addr) {
			e->has_modinfo = true;
			e->modinfo_safe =
				x86_modinfo_sld_safe((const void *)s->sh_addr,
						     s->sh_size);
		}
		if (!(i % 64))
			cond_resched();
	}
}

/* ---- scanning (sleepable) -------------------------------------------- */

struct scan_ctx {
	struct modrec *rec;
	unsigned int sec;
};

static int scan_cb(void *ctx, enum x86_find f, size_t off)
{
	struct scan_ctx *c = ctx;
	struct modrec *rec = c->rec;

	if (f < 0 || f >= X86_F_COUNT)
		return 0;
	if (!rec->st.count[f]++) {
		rec->st.first[f] = off;
		rec->first_sec[f] = c->sec;
	}
	return 0;
}

/*
 * Where a direct call to the kernel's handle_guest_split_lock() lands in
 * a module's text: its address (the loader resolved the import, and at
 * COMING as for a module loaded long ago the text is relocated:
 * apply_relocations() runs before module_finalize()), just past its
 * ENDBR, or with call depth tracking (retbleed=stuff) in the call thunk
 * that module_finalize() patches calls to, in the padding before it.
 * Since mainline exports it with EXPORT_SYMBOL_FOR_KVM, only KVM can
 * import it at all: then no other module ever calls it directly.
 */
static bool handler_range(u64 *lo, u64 *hi)
{
	unsigned long h = sld_kernel.guest_handler;

	if (!h)
		return false;
	*lo = h - SLD_CALL_PADDING;
	*hi = h + ENDBR_INSN_SIZE;
	return true;
}

/*
 * Calls to the guest handler count in core text only: a module loaded
 * before sld_compat has no init text left, and its verdict must not
 * depend on the order (issue #12 item 8).
 */
static void count_handler_calls(struct modrec *rec, const void *base,
				unsigned long size)
{
	u64 lo, hi;

	if (handler_range(&lo, &hi))
		rec->handler_calls += x86_rel32_to(base, size,
						   (unsigned long)base, lo, hi);
}

static int scan_region(struct modrec *rec, unsigned int sec,
		       const void *base, unsigned long size, bool init)
{
	struct scan_ctx ctx = { .rec = rec, .sec = sec };
	struct x86scan *s;
	u64 t0;

	if (!base || !size)
		return 0;
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	t0 = ktime_get_ns();
	x86scan_init(s, base, size);
	while (x86scan_run(s, SCAN_CHUNK, scan_cb, &ctx))
		cond_resched();
	if (!init)
		count_handler_calls(rec, base, size);
	rec->scan_ns += ktime_get_ns() - t0;
	rec->st.insns += s->st.insns;
	rec->st.invalid += s->st.invalid;
	kfree(s);
	return 0;
}

static void add_sec(struct modrec *rec, const char *name)
{
	strscpy(rec->sec[rec->nsec++], name, SEC_NAME_LEN);
}

static int scan_sections(struct modrec *rec, const struct elf_facts *e)
{
	unsigned int i;
	int err = 0;

	rec->flags |= RF_SECTIONS | RF_MODINFO * e->has_modinfo |
		      RF_TRUNC * e->sec_truncated;
	rec->modinfo_safe = e->modinfo_safe;
	for (i = 0; i < e->nsec && !err; i++) {
		bool init = !strncmp(e->sec[i].name, ".init", 5);

		add_sec(rec, e->sec[i].name);
		if (init)
			rec->flags |= RF_INIT;
		err = scan_region(rec, i, (const void *)e->sec[i].addr,
				  e->sec[i].size, init);
	}
	return err;
}

static int scan_regions(struct modrec *rec, struct module *mod, bool init)
{
	const void *base;
	unsigned long size;
	int err;

	sld_module_text(mod, SLD_TEXT_CORE, &base, &size);
	add_sec(rec, "core-text");
	err = scan_region(rec, 0, base, size, false);
	if (err || !init)
		return err;
	sld_module_text(mod, SLD_TEXT_INIT, &base, &size);
	add_sec(rec, "init-text");
	if (base && size)
		rec->flags |= RF_INIT;
	return scan_region(rec, 1, base, size, true);
}

/*
 * Called with records_lock held. "Imports the guest handler" is decided
 * from the text, the same way for every module, whenever it loaded: a
 * direct call to it (the symbol table is gone once a module is loaded).
 */
static void classify(struct modrec *rec)
{
	struct sld_facts f = {
		.name = rec->name,
		/* trust_sld_safe (trust.c): Y, signed or N */
		.modinfo_safe = sld_claim_honoured(rec->claim =
			sld_trust_decide(rec->mod, rec->modinfo_safe)),
		.imports_guest_handler = rec->handler_calls > 0,
		.admin = sld_registry_admin(rec->name),
		.vendor = sld_registry_vendor(rec->name),
		.st = &rec->st,
	};

	rec->verdict = sld_classify(&f, &rec->reason);
}

static bool host_vmx(enum x86_find f)
{
	return x86_find_class(f) == X86_C_VMX && f != X86_F_VMCALL &&
	       f != X86_F_VMFUNC;
}

/* The finding to name: the first VMX one for a hypervisor, else any. */
static int first_find(const struct modrec *rec)
{
	int f, best = -1, pass;

	for (pass = 0; pass < 2 && best < 0; pass++) {
		for (f = 0; f < X86_F_COUNT; f++) {
			if (!rec->st.count[f] ||
			    (!pass && (rec->verdict != SLD_V_HYPERVISOR ||
				       !host_vmx(f))))
				continue;
			if (best < 0 || rec->first_sec[f] < rec->first_sec[best] ||
			    (rec->first_sec[f] == rec->first_sec[best] &&
			     rec->st.first[f] < rec->st.first[best]))
				best = f;
		}
	}
	return best;
}

static int describe_first(const struct modrec *rec, char *buf, size_t size,
			  const char *at)
{
	int f = first_find(rec);

	if (f < 0)
		return scnprintf(buf, size, "-");
	return scnprintf(buf, size, "%s%s%s+0x%llx", x86_find_name(f), at,
			 rec->sec[rec->first_sec[f]],
			 (unsigned long long)rec->st.first[f]);
}

/* Called with records_lock held. Returns -EPERM to refuse. */
static int apply_policy(struct modrec *rec, bool can_refuse)
{
	char first[64], what[160], why[96];
	unsigned int ch;

	sld_claim_reason(rec->claim, rec->reason, why, sizeof(why));
	if (rec->verdict == SLD_V_SAFE && rec->claim != SLD_CLAIM_NONE)
		pr_info("%s: sld_safe (%s)\n", rec->name, why);
	if (rec->verdict != SLD_V_HYPERVISOR)
		return 0;
	describe_first(rec, first, sizeof(first), " at ");
	if (can_refuse && sld_policy_refuses(true)) {
		pr_err("refusing %s: %s\n", rec->name,
		       first[0] == '-' ? sld_reason_name(rec->reason) : first);
		return -EPERM;
	}
	ch = sld_policy_move(&rec->pol, rec->mod, true);
	pr_info("%s: %s (%s), first %s, policy %s\n", rec->name,
		sld_verdict_name(rec->verdict), why, first,
		sld_policy_name(sld_policy()));
	if (ch & SLD_PC_LATE) {
		sld_policy_changes(SLD_PC_LATE, what, sizeof(what));
		pr_warn("%s: %s\n", rec->name, what);
	}
	return 0;
}

static void release_policy(struct modrec *rec)
{
	sld_policy_release(&rec->pol, rec->mod);
}

/* Called with records_lock held: drop a gone record of the same name. */
static void insert(struct modrec *rec)
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

static struct modrec *new_rec(struct module *mod)
{
	struct modrec *rec = kzalloc(sizeof(*rec), GFP_KERNEL);

	if (rec) {
		rec->mod = mod;
		rec->pol.kept = -1;
		strscpy(rec->name, mod->name, sizeof(rec->name));
	}
	return rec;
}

/*
 * Defence in depth behind pending_fresh(): read a section only if it lies
 * inside this module, as a section of this load's ELF copy does.
 */
static bool facts_fit(const struct elf_facts *e, struct module *mod)
{
	unsigned int i;

	for (i = 0; i < e->nsec; i++)
		if (!within_module(e->sec[i].addr, mod) ||
		    !within_module(e->sec[i].addr + e->sec[i].size - 1, mod))
			return false;
	return true;
}

/*
 * This load's module_finalize slot, walked: false (scan the text regions
 * instead) without one, or if it is not this load's (pending_fresh).
 */
static bool take_facts(struct module *mod, struct elf_facts *e,
		       struct modrec *rec)
{
	struct pending p;

	if (!pending_take(mod, &p))
		return false;
	if (!pending_fresh(&p)) {
		sld_info("%s: finalize record not from this load, ignored\n",
			 mod->name);
		return false;
	}
	rec->atomic_ns = p.atomic_ns;
	memset(e, 0, sizeof(*e));
	note_sections(e, p.hdr, p.sh);
	return facts_fit(e, mod);
}

static int on_coming(struct module *mod)
{
	struct elf_facts *e = kmalloc(sizeof(*e), GFP_KERNEL);
	struct modrec *rec = new_rec(mod);
	int err = -ENOMEM;

	if (!e || !rec) {
		pending_take(mod, NULL);
		pr_warn("%s: not scanned: out of memory\n", mod->name);
		goto out;
	}
	if (take_facts(mod, e, rec))
		err = scan_sections(rec, e);
	else
		err = scan_regions(rec, mod, true);
	if (err) {
		pr_warn("%s: not scanned: out of memory\n", mod->name);
		goto out;
	}
	mutex_lock(&records_lock);
	classify(rec);
	err = apply_policy(rec, true);
	if (!err) {
		insert(rec);
		rec = NULL;
	}
	mutex_unlock(&records_lock);
out:
	kfree(e);
	kfree(rec);
	return err == -EPERM ? err : 0;
}

static void on_going(struct module *mod)
{
	struct modrec *r;

	pending_take(mod, NULL);
	/* A scan of this module by scan_loaded() finishes first. */
	mutex_lock(&preload_lock);
	mutex_unlock(&preload_lock);
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
	sld_registry_vendor_drop(mod->name);
}

static int modscan_notify(struct notifier_block *nb, unsigned long state,
			  void *data)
{
	struct module *mod = data;

	if (mod == THIS_MODULE)
		return NOTIFY_DONE;
	switch (state) {
	case MODULE_STATE_COMING:
		return notifier_from_errno(on_coming(mod));
	case MODULE_STATE_GOING:
		on_going(mod);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block modscan_nb = {
	.notifier_call = modscan_notify,
};

/* ---- re-deciding loaded modules --------------------------------------- */

/*
 * Re-run the verdict of a live record and move it to what the verdict
 * and the knobs now ask for (policy.c); why names the cause for dmesg.
 * Called with records_lock held, as a load decides. True if it changed.
 */
static bool redecide_one(struct modrec *r, const char *why)
{
	enum sld_verdict v = r->verdict;
	enum sld_reason reason = r->reason;
	enum sld_claim claim = r->claim;
	char what[192], was[112] = "", rsn[96];
	unsigned int ch;

	classify(r);
	ch = sld_policy_move(&r->pol, r->mod, r->verdict == SLD_V_HYPERVISOR);
	if (v == r->verdict && reason == r->reason && !ch)
		return false;
	if (v != r->verdict || reason != r->reason) {
		sld_claim_reason(claim, reason, rsn, sizeof(rsn));
		snprintf(was, sizeof(was), "%s (%s) -> ", sld_verdict_name(v),
			 rsn);
	}
	sld_claim_reason(r->claim, r->reason, rsn, sizeof(rsn));
	if (!sld_policy_changes(ch, what, sizeof(what)))
		strscpy(what, "nothing else changed", sizeof(what));
	if (ch & SLD_PC_LATE)
		pr_warn("%s: %s: %s%s (%s), policy %s: %s\n", why, r->name, was,
			sld_verdict_name(r->verdict), rsn,
			sld_policy_name(sld_policy()), what);
	else
		pr_info("%s: %s: %s%s (%s), policy %s: %s\n", why, r->name, was,
			sld_verdict_name(r->verdict), rsn,
			sld_policy_name(sld_policy()), what);
	return true;
}

/* A vendor declared what its module is. */
void sld_modscan_reclassify(const char *name)
{
	struct modrec *r;

	mutex_lock(&records_lock);
	list_for_each_entry(r, &records, node) {
		if ((r->flags & RF_GONE) || strcmp(r->name, name))
			continue;
		redecide_one(r, "vendor declaration");
		break;
	}
	mutex_unlock(&records_lock);
}

/*
 * A knob changed (on_hypervisor, safe_modules, hypervisor_modules,
 * enabled; the caller holds the knobs' mutex): re-decide every loaded
 * module, so that the machine follows the admin, not only the modules
 * that load afterwards. A module loading meanwhile decides under
 * records_lock with the knob's new value or is re-decided here.
 */
void sld_modscan_redecide(const char *knob)
{
	unsigned int n = 0, changed = 0;
	struct modrec *r;

	if (!READ_ONCE(notifier_on))
		return;		/* load-time options: nothing recorded yet */
	mutex_lock(&records_lock);
	list_for_each_entry(r, &records, node) {
		if (r->flags & RF_GONE)
			continue;
		n++;
		changed += redecide_one(r, knob);
	}
	mutex_unlock(&records_lock);
	if (changed)
		pr_info("%s: %u of %u loaded module(s) changed\n", knob,
			changed, n);
	else
		sld_info("%s: none of %u loaded module(s) changed\n", knob, n);
}

/* ---- modules loaded before us ---------------------------------------- */

typedef char modname_t[MODULE_NAME_LEN];

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
static modname_t *loaded_names(struct list_head *modules, struct mutex *mm,
			       unsigned int *n)
{
	unsigned int max = count_modules(modules, mm) + 32, tries;
	struct module *mod;
	modname_t *names;

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
			strscpy(names[(*n)++], mod->name, MODULE_NAME_LEN);
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

/* records_lock held: the notifier decided this load already. */
static bool recorded(const struct module *mod)
{
	struct modrec *r;

	list_for_each_entry(r, &records, node)
		if (r->mod == mod && !(r->flags & RF_GONE))
			return true;
	return false;
}

/*
 * A module that loaded after the notifier was registered was decided at
 * COMING from its sections and .modinfo: keep that verdict.
 */
static void scan_one_loaded(struct module *mod)
{
	struct modrec *rec = new_rec(mod);

	if (!rec || scan_regions(rec, mod, false)) {
		pr_warn("%s: not scanned: out of memory\n", mod->name);
		kfree(rec);
		return;
	}
	rec->flags |= RF_PRELOADED;
	mutex_lock(&records_lock);
	if (!recorded(mod)) {
		classify(rec);
		apply_policy(rec, false);
		insert(rec);
		rec = NULL;
	}
	mutex_unlock(&records_lock);
	kfree(rec);
}

/*
 * The module list is not exported. We find `modules` and `module_mutex`
 * through kallsyms. The notifier is already registered, so a module that
 * loads meanwhile is decided there (one in COMING at that instant may be
 * missed); one that unloads meanwhile is skipped or waits (preload_lock).
 */
static void scan_loaded(void)
{
	struct list_head *modules = (void *)sld_lookup("modules");
	struct mutex *mm = (void *)sld_lookup("module_mutex");
	unsigned int n = 0, i;
	modname_t *names;

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
		struct module *mod = hold_live(modules, mm, names[i]);

		if (!mod)
			continue;
		scan_one_loaded(mod);
		mutex_unlock(&preload_lock);
	}
	kvfree(names);
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

	describe_first(rec, first, sizeof(first), "@");
	seq_printf(m, "%s %s %s vmx=%u svm=%u cr=%u dr=%u first=%s guest_calls=%u scan_us=%llu atomic_ns=%llu flags=",
		   rec->name, sld_verdict_name(rec->verdict),
		   sld_reason_name(rec->reason), class_count(rec, X86_C_VMX),
		   class_count(rec, X86_C_SVM), class_count(rec, X86_C_CR),
		   class_count(rec, X86_C_DR), first, rec->handler_calls,
		   div_u64(rec->scan_ns, NSEC_PER_USEC), rec->atomic_ns);
	seq_puts(m, rec->flags & RF_SECTIONS ? "sections" : "text-regions");
	if (rec->flags & RF_PRELOADED)
		seq_puts(m, ",preloaded,init-gone");
	else
		seq_puts(m, rec->flags & RF_INIT ? ",init-scanned" : ",no-init");
	seq_puts(m, rec->flags & RF_MODINFO ? ",modinfo" : ",no-modinfo");
	if (rec->flags & RF_TRUNC)
		seq_puts(m, ",sections-truncated");
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

/* ---- init / exit ------------------------------------------------------- */

/* Before sld_hooks_init(): allocate the pending slots, add the hook. */
int sld_modscan_setup(void)
{
	pending = kcalloc(NPENDING, sizeof(*pending), GFP_KERNEL);
	if (!pending)
		return -ENOMEM;
	sld_hook_add(&finalize_hook);
	sld_hook_add(&cleanup_hook);
	return 0;
}

/* After sld_hooks_init(). */
int sld_modscan_init(void)
{
	int err;

	if (!finalize_hook.registered)
		sld_degrade("modscan-sections",
			    "no module_finalize kprobe: text regions only, no modinfo");
	err = register_module_notifier(&modscan_nb);
	if (err)
		return err;
	notifier_on = true;
	scan_loaded();
	proc_entry = proc_create_seq("sld_compat_modules", 0444, NULL,
				     &rec_seq_ops);
	if (!proc_entry)
		sld_degrade("modscan-status", "cannot create /proc/sld_compat_modules");
	return 0;
}

/* Stop scanning and drop every record (undoing its policy). */
void sld_modscan_exit(void)
{
	struct modrec *r, *tmp;

	proc_remove(proc_entry);
	proc_entry = NULL;
	if (notifier_on)
		unregister_module_notifier(&modscan_nb);
	notifier_on = false;
	mutex_lock(&records_lock);
	list_for_each_entry_safe(r, tmp, &records, node) {
		release_policy(r);
		list_del(&r->node);
		kfree(r);
	}
	ngone = 0;
	mutex_unlock(&records_lock);
}

/* After sld_hooks_exit(): no handler can run any more. */
void sld_modscan_free(void)
{
	kfree(pending);
	pending = NULL;
}
