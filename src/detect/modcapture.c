// SPDX-License-Identifier: GPL-2.0
/*
 * Capture, at module_finalize(), where a loading module's ELF copy is, so
 * that modscan.c can scan it by section and read its .modinfo.
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
 *    slot, and the notifier (modscan.c) walks the sections through
 *    sld_capture_take(), scans, classifies, records and refuses.
 * Without the kprobe (missing, failed, or `enabled`=N) the notifier still
 * scans the module's text regions (compat.h), without section names or
 * modinfo; status says so.
 *
 * Every executable section, however many (issue #37 item 7). A copy of
 * the first 16 sections' names and addresses made a module loaded after
 * sld_compat lose the text of its 17th section on, while one loaded
 * before is scanned whole (its core text region): two verdicts by load
 * order. No bound replaces it: the notifier walks the section headers of
 * the loader's copy in place (sld_capture_next) while that copy lives,
 * so nothing is copied per section, and the work grows with the text
 * the loader itself accepted and copied, as the scan of a module loaded
 * before does. A record keeps only the count of sections scanned
 * (exec_secs= in /proc/sld_compat_modules) and, per kind of finding, the
 * name of the section it was first found in (a fixed 34 x 24 bytes).
 * So both orders read the same text: each executable section from its
 * own start at COMING; for a module loaded before, whose section table
 * is gone, its core text in one piece, the loader's padding between
 * sections included (tests/vm/t/31-loadorder.sh, fixture fx_sect20).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/elf.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "detect/modcapture.h"
#include "kernel/degraded.h"
#include "kernel/hooks.h"
#include "knobs/switches.h"
#include "modlib/modinfo.h"

#define NPENDING	8	/* loads between module_finalize and COMING */

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

/* An executable section the loader placed in the module's memory. */
static bool is_exec(const Elf_Shdr *s)
{
	const unsigned long exec = SHF_EXECINSTR | SHF_ALLOC;

	return (s->sh_flags & exec) == exec && s->sh_size &&
	       s->sh_type != SHT_NOBITS && s->sh_addr;
}

/*
 * Defence in depth behind pending_fresh(): read a section only if it lies
 * inside this module, as a section of this load's ELF copy does.
 */
static bool sec_fits(const Elf_Shdr *s, struct module *mod)
{
	return within_module(s->sh_addr, mod) &&
	       within_module(s->sh_addr + s->sh_size - 1, mod);
}

/*
 * Sleepable: check every executable section, read .modinfo. False if a
 * section lies outside the module: then scan none of them.
 */
static bool note_sections(struct sld_elf_facts *e, struct module *mod)
{
	const Elf_Ehdr *hdr = e->hdr;
	unsigned int i;

	if (hdr->e_shstrndx >= hdr->e_shnum)
		return false;
	e->names = (const char *)hdr + e->sh[hdr->e_shstrndx].sh_offset;
	e->nsize = e->sh[hdr->e_shstrndx].sh_size;
	for (i = 1; i < hdr->e_shnum; i++) {
		const Elf_Shdr *s = &e->sh[i];

		if (is_exec(s)) {
			if (!sec_fits(s, mod))
				return false;
		} else if (str_is(e->names, e->nsize, s->sh_name, ".modinfo") &&
			   s->sh_addr) {
			e->has_modinfo = true;
			e->modinfo_safe =
				sld_modinfo_sld_safe((const void *)s->sh_addr,
						     s->sh_size);
		}
		if (!(i % 64))
			cond_resched();
	}
	return true;
}

/* This load's module_finalize slot, checked (pending_fresh, sec_fits). */
bool sld_capture_take(struct module *mod, struct sld_elf_facts *e,
		      u64 *atomic_ns)
{
	struct pending p;

	if (!pending_take(mod, &p))
		return false;
	if (!pending_fresh(&p)) {
		sld_info("%s: finalize record not from this load, ignored\n",
			 mod->name);
		return false;
	}
	*atomic_ns = p.atomic_ns;
	memset(e, 0, sizeof(*e));
	e->hdr = p.hdr;
	e->sh = p.sh;
	return note_sections(e, mod);
}

static void sec_info(const struct sld_elf_facts *e, const Elf_Shdr *s,
		     struct sld_sec_info *si)
{
	size_t len = 0;

	if (s->sh_name < e->nsize)
		len = strnlen(e->names + s->sh_name,
			      min_t(size_t, e->nsize - s->sh_name,
				    SLD_SEC_NAME_LEN - 1));
	memcpy(si->name, e->names + s->sh_name, len);
	si->name[len] = '\0';
	if (!len)
		strscpy(si->name, "?", SLD_SEC_NAME_LEN);
	si->addr = s->sh_addr;
	si->size = s->sh_size;
}

bool sld_capture_next(const struct sld_elf_facts *e, unsigned int *pos,
		      struct sld_sec_info *si)
{
	for (; *pos < e->hdr->e_shnum; (*pos)++) {
		const Elf_Shdr *s = &e->sh[*pos];

		if (!is_exec(s))
			continue;
		sec_info(e, s, si);
		(*pos)++;
		return true;
	}
	return false;
}

void sld_capture_drop(struct module *mod)
{
	pending_take(mod, NULL);
}

/* ---- init / exit ------------------------------------------------------- */

/* Before sld_hooks_init(): allocate the pending slots, add the hooks. */
int sld_capture_setup(void)
{
	pending = kcalloc(NPENDING, sizeof(*pending), GFP_KERNEL);
	if (!pending)
		return -ENOMEM;
	sld_hook_add(&finalize_hook);
	sld_hook_add(&cleanup_hook);
	return 0;
}

/* After sld_hooks_init(). */
void sld_capture_init(void)
{
	if (!finalize_hook.registered)
		sld_degrade("modscan-sections",
			    "no module_finalize kprobe: text regions only, no modinfo");
}

/* After sld_hooks_exit(): no handler can run any more. */
void sld_capture_free(void)
{
	kfree(pending);
	pending = NULL;
}
