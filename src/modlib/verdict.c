// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict rule shared by sld_compat.ko and sldctl, so the kernel and
 * the tool always agree on what a module is.
 */
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "modlib/verdict.h"
#include "schema/hypervisors.h"

/* verdict.h says why init sections do not count. */
bool sld_section_counts(const char *name)
{
	return strncmp(name, ".init", 5) != 0;
}

/* "Hypervisor text" means instructions only a VMM executes (verdict.h). */
bool sld_find_host_only(enum x86_find f)
{
	return f != X86_F_VMCALL && f != X86_F_VMFUNC && f != X86_F_VMMCALL;
}

bool sld_find_host_vmx(enum x86_find f)
{
	return x86_find_class(f) == X86_C_VMX && sld_find_host_only(f);
}

static bool has_class(const struct x86scan_stats *st, enum x86_find_class c)
{
	int f;

	if (!st)
		return false;
	for (f = 0; f < X86_F_COUNT; f++)
		if (st->count[f] && sld_find_host_only(f) && x86_find_class(f) == c)
			return true;
	return false;
}

static enum sld_verdict set(enum sld_reason *why, enum sld_reason r,
			    enum sld_verdict v)
{
	if (why)
		*why = r;
	return v;
}

enum sld_verdict sld_classify(const struct sld_facts *f, enum sld_reason *why)
{
	if (f->admin == SLD_R_ADMIN_SAFE)
		return set(why, SLD_R_ADMIN_SAFE, SLD_V_SAFE);
	if (f->admin == SLD_R_ADMIN_HYPERVISOR)
		return set(why, SLD_R_ADMIN_HYPERVISOR, SLD_V_HYPERVISOR);
	if (f->vendor == SLD_R_VENDOR_SAFE)
		return set(why, SLD_R_VENDOR_SAFE, SLD_V_SAFE);
	if (f->vendor == SLD_R_VENDOR_HYPERVISOR)
		return set(why, SLD_R_VENDOR_HYPERVISOR, SLD_V_HYPERVISOR);
	if (f->modinfo_safe)
		return set(why, SLD_R_MODINFO_SAFE, SLD_V_SAFE);
	if (f->imports_guest_handler)
		return set(why, SLD_R_IMPORTS_HANDLER, SLD_V_SAFE);
	if (sld_known_hypervisor(f->name, NULL))
		return set(why, SLD_R_KNOWN_HYPERVISOR, SLD_V_HYPERVISOR);
	if (has_class(f->st, X86_C_VMX))
		return set(why, SLD_R_VMX_TEXT, SLD_V_HYPERVISOR);
	if (!has_class(f->st, X86_C_SVM))
		return set(why, SLD_R_NONE, SLD_V_CLEAN);
	if (!f->svm_at_risk)
		return set(why, SLD_R_SVM_TEXT, SLD_V_SVM_ONLY);
	if (f->kvm_amd_switches && sld_known_switches_debugctl(f->name))
		return set(why, SLD_R_SWITCHES_DEBUGCTL, SLD_V_SAFE);
	return set(why, SLD_R_SVM_TEXT, SLD_V_HYPERVISOR);
}

const char *sld_verdict_name(enum sld_verdict v)
{
	switch (v) {
	case SLD_V_CLEAN: return "clean";
	case SLD_V_SVM_ONLY: return "svm-only";
	case SLD_V_HYPERVISOR: return "hypervisor";
	case SLD_V_SAFE: return "sld_safe";
	}
	return "unknown";
}

const char *sld_reason_name(enum sld_reason r)
{
	static const char *const names[] = {
		[SLD_R_NONE] = "none",
		[SLD_R_VMX_TEXT] = "vmx-text",
		[SLD_R_SVM_TEXT] = "svm-text",
		[SLD_R_MODINFO_SAFE] = "modinfo-sld-safe",
		[SLD_R_IMPORTS_HANDLER] = "imports-guest-handler",
		[SLD_R_KNOWN_HYPERVISOR] = "known-hypervisor",
		[SLD_R_ADMIN_SAFE] = "admin-safe",
		[SLD_R_ADMIN_HYPERVISOR] = "admin-hypervisor",
		[SLD_R_VENDOR_SAFE] = "vendor-safe",
		[SLD_R_VENDOR_HYPERVISOR] = "vendor-hypervisor",
		[SLD_R_SWITCHES_DEBUGCTL] = "switches-debugctl",
	};

	if ((unsigned int)r >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[r];
}

/* Does f come before g: by section, then by offset? */
static bool earlier(const struct x86scan_stats *st, const uint8_t *sec,
		    int f, int g)
{
	unsigned int sf = sec ? sec[f] : 0, sg = sec ? sec[g] : 0;

	return sf < sg || (sf == sg && st->first[f] < st->first[g]);
}

enum x86_find sld_first_finding(const struct x86scan_stats *st,
				const uint8_t *sec, bool hypervisor)
{
	int f, best = X86_F_NONE, pass;

	for (pass = !hypervisor; pass < 2 && best == X86_F_NONE; pass++) {
		for (f = 0; f < X86_F_COUNT; f++) {
			if (!st->count[f] || (!pass && !sld_find_host_vmx(f)))
				continue;
			if (best == X86_F_NONE || earlier(st, sec, f, best))
				best = f;
		}
	}
	return (enum x86_find)best;
}
