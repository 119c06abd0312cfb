// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict rule shared by sld_compat.ko and sldctl, so the kernel and
 * the tool always agree on what a module is.
 */
#include "verdict.h"

/*
 * Hypervisors known not to handle split-lock #AC in their guests, whatever
 * their text shows. Names compare with '-' and '_' equal.
 */
static const struct {
	const char *name;
	const char *why;
} known_hv[] = {
	/*
	 * VMware Workstation/Player: its text has VMX, but it also handles
	 * VM exits in its own code and reflects #AC into the guest itself,
	 * so no sld_safe tag can be trusted to exist; list it by name so
	 * the verdict does not depend on what the scan happens to find.
	 */
	{ "vmmon", "VMware vmmon: handles VM exits itself, injects #AC" },
	/*
	 * VirtualBox: the world switch is loaded at run time, so the
	 * module's own text has no VMX instruction at all and the scan
	 * alone would call it clean.
	 */
	{ "vboxdrv", "VirtualBox vboxdrv: VMX code loaded at run time" },
};

static bool name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;

		if (x != y)
			return false;
	}
	return !*a && !*b;
}

bool sld_known_hypervisor(const char *name, const char **why)
{
	size_t i;

	if (!name)
		return false;
	for (i = 0; i < sizeof(known_hv) / sizeof(known_hv[0]); i++) {
		if (name_eq(name, known_hv[i].name)) {
			if (why)
				*why = known_hv[i].why;
			return true;
		}
	}
	return false;
}

const char *sld_known_hypervisor_at(unsigned int i, const char **why)
{
	if (i >= sizeof(known_hv) / sizeof(known_hv[0]))
		return NULL;
	if (why)
		*why = known_hv[i].why;
	return known_hv[i].name;
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
	if (has_class(f->st, X86_C_SVM))
		return set(why, SLD_R_SVM_TEXT, SLD_V_SVM_ONLY);
	return set(why, SLD_R_NONE, SLD_V_CLEAN);
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
