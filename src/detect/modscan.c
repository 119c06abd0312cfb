// SPDX-License-Identifier: GPL-2.0
/*
 * Scan every module that loads after sld_compat, classify it (modlib's
 * sld_classify) and apply the on_hypervisor policy (policy.c). When a
 * knob or a vendor changes what a loaded module is or what its verdict
 * leads to, its record is re-decided the same way, under the same lock.
 *
 * The parts: modcapture.c finds a loading module's sections at
 * module_finalize(); this file scans and decides at its
 * MODULE_STATE_COMING notification (every executable section, however
 * many: modcapture.c says why), which can still refuse the load;
 * modrecords.c keeps the records and their /proc view; modwalk.c walks
 * the modules loaded before sld_compat, decided here the same way.
 * Whether a module calls the kernel's guest #AC handler
 * (handle_guest_split_lock) is read from its text, not its symbol table,
 * and findings in its init text are counted apart and never decide
 * (modlib's sld_section_counts() says why), so that a module loaded
 * before sld_compat, whose init text is gone, gets the same verdict.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/ibt.h>

#include "compat/compat.h"
#include "detect/modcapture.h"
#include "detect/modrecords.h"
#include "detect/modscan.h"
#include "detect/modwalk.h"
#include "detect/policy.h"
#include "detect/registry.h"
#include "detect/trust.h"
#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "kernel/symbols.h"
#include "knobs/switches.h"
#include "modlib/verdict.h"
#include "x86scan/x86scan.h"

#define SCAN_CHUNK	4096	/* instructions between cond_resched() */

static bool notifier_on;

/* ---- scanning (sleepable) -------------------------------------------- */

struct scan_ctx {
	struct modrec *rec;
	const char *name;	/* of the section (or text region) scanned */
	bool counts;		/* sld_section_counts(): not init text */
};

static int scan_cb(void *ctx, enum x86_find f, size_t off)
{
	struct scan_ctx *c = ctx;
	struct modrec *rec = c->rec;

	if (f < 0 || f >= X86_F_COUNT)
		return 0;
	if (!c->counts) {
		rec->init_finds++;
		return 0;
	}
	if (!rec->st.count[f]++) {
		rec->st.first[f] = off;
		rec->first_sec[f] = min_t(unsigned int, rec->nsec - 1, U8_MAX);
		strscpy(rec->first_name[f], c->name, SLD_SEC_NAME_LEN);
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

/* Scan one section or text region with s, counted in rec->nsec. */
static void scan_region(struct modrec *rec, struct x86scan *s,
			const char *name, const void *base,
			unsigned long size, bool init)
{
	struct scan_ctx ctx = { .rec = rec, .name = name, .counts = !init };
	u64 t0;

	if (!base || !size)
		return;
	rec->nsec++;
	t0 = ktime_get_ns();
	x86scan_init(s, base, size);
	while (x86scan_run(s, SCAN_CHUNK, scan_cb, &ctx))
		cond_resched();
	if (!init)
		count_handler_calls(rec, base, size);
	rec->scan_ns += ktime_get_ns() - t0;
	rec->st.insns += s->st.insns;
	rec->st.invalid += s->st.invalid;
}

/* Every executable section, in section header order, however many. */
static int scan_sections(struct modrec *rec, const struct sld_elf_facts *e)
{
	struct x86scan *s = kmalloc(sizeof(*s), GFP_KERNEL);
	struct sld_sec_info si;
	unsigned int pos = 1;

	if (!s)
		return -ENOMEM;
	rec->flags |= RF_SECTIONS | RF_MODINFO * e->has_modinfo;
	rec->modinfo_safe = e->modinfo_safe;
	while (sld_capture_next(e, &pos, &si)) {
		bool init = !sld_section_counts(si.name);

		if (init)
			rec->flags |= RF_INIT;
		scan_region(rec, s, si.name, (const void *)si.addr, si.size,
			    init);
		cond_resched();
	}
	kfree(s);
	return 0;
}

static int scan_regions(struct modrec *rec, struct module *mod, bool init)
{
	struct x86scan *s = kmalloc(sizeof(*s), GFP_KERNEL);
	const void *base;
	unsigned long size;

	if (!s)
		return -ENOMEM;
	sld_module_text(mod, SLD_TEXT_CORE, &base, &size);
	scan_region(rec, s, "core-text", base, size, false);
	if (init) {
		sld_module_text(mod, SLD_TEXT_INIT, &base, &size);
		if (base && size)
			rec->flags |= RF_INIT;
		scan_region(rec, s, "init-text", base, size, true);
	}
	kfree(s);
	return 0;
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
		.svm_at_risk = sld_kernel.svm_bld,
		.kvm_amd_switches = sld_kvm_amd_switches_debugctl(),
		.st = &rec->st,
	};

	rec->verdict = sld_classify(&f, &rec->reason);
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
	sld_modrec_first(rec, first, sizeof(first), " at ");
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

static int on_coming(struct module *mod)
{
	struct sld_elf_facts *e = kmalloc(sizeof(*e), GFP_KERNEL);
	struct modrec *rec = sld_modrec_new(mod);
	int err = -ENOMEM;

	if (!e || !rec) {
		sld_capture_drop(mod);
		pr_warn("%s: not scanned: out of memory\n", mod->name);
		goto out;
	}
	if (sld_capture_take(mod, e, &rec->atomic_ns))
		err = scan_sections(rec, e);
	else
		err = scan_regions(rec, mod, true);
	if (err) {
		pr_warn("%s: not scanned: out of memory\n", mod->name);
		goto out;
	}
	sld_modrec_lock();
	classify(rec);
	err = apply_policy(rec, true);
	if (!err) {
		sld_modrec_insert(rec);
		rec = NULL;
	}
	sld_modrec_unlock();
out:
	kfree(e);
	kfree(rec);
	return err == -EPERM ? err : 0;
}

static void on_going(struct module *mod)
{
	sld_capture_drop(mod);
	/* A scan of this module by sld_modwalk() finishes first. */
	sld_modwalk_wait();
	sld_modrec_gone(mod);
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

	sld_modrec_lock();
	for (r = sld_modrec_next_live(NULL); r; r = sld_modrec_next_live(r)) {
		if (strcmp(r->name, name))
			continue;
		redecide_one(r, "vendor declaration");
		break;
	}
	sld_modrec_unlock();
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
	sld_modrec_lock();
	for (r = sld_modrec_next_live(NULL); r; r = sld_modrec_next_live(r)) {
		n++;
		changed += redecide_one(r, knob);
	}
	sld_modrec_unlock();
	if (changed)
		pr_info("%s: %u of %u loaded module(s) changed\n", knob,
			changed, n);
	else
		sld_info("%s: none of %u loaded module(s) changed\n", knob, n);
}

/* ---- modules loaded before us (modwalk.c) ---------------------------- */

/*
 * A module that loaded after the notifier was registered was decided at
 * COMING from its sections and .modinfo: keep that verdict.
 */
static void scan_one_loaded(struct module *mod)
{
	struct modrec *rec = sld_modrec_new(mod);

	if (!rec || scan_regions(rec, mod, false)) {
		pr_warn("%s: not scanned: out of memory\n", mod->name);
		kfree(rec);
		return;
	}
	rec->flags |= RF_PRELOADED;
	sld_modrec_lock();
	if (!sld_modrec_recorded(mod)) {
		classify(rec);
		apply_policy(rec, false);
		sld_modrec_insert(rec);
		rec = NULL;
	}
	sld_modrec_unlock();
	kfree(rec);
}

/* ---- init / exit ------------------------------------------------------- */

/* Before sld_hooks_init(): allocate the pending slots, add the hooks. */
int sld_modscan_setup(void)
{
	return sld_capture_setup();
}

/* After sld_hooks_init(). */
int sld_modscan_init(void)
{
	int err;

	sld_capture_init();
	err = register_module_notifier(&modscan_nb);
	if (err)
		return err;
	notifier_on = true;
	sld_modwalk(scan_one_loaded);
	sld_modrec_proc_init();
	return 0;
}

/* Stop scanning and drop every record (undoing its policy). */
void sld_modscan_exit(void)
{
	sld_modrec_proc_exit();
	if (notifier_on)
		unregister_module_notifier(&modscan_nb);
	notifier_on = false;
	sld_modrec_drop_all();
}

/* After sld_hooks_exit(): no handler can run any more. */
void sld_modscan_free(void)
{
	sld_capture_free();
}
