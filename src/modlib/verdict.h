/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict rule (verdict.c), shared by sld_compat.ko and sldctl so that
 * the kernel and the tool always agree on what a module is, and what of
 * a scan (x86scan) counts for it. Plain C, no kernel headers (modlib).
 */
#ifndef SLD_VERDICT_H
#define SLD_VERDICT_H

#include "x86scan/x86scan.h"

enum sld_verdict {
	SLD_V_CLEAN,		/* nothing of interest */
	SLD_V_SVM_ONLY,		/* SVM only: an AMD hypervisor, no VMX */
	SLD_V_HYPERVISOR,	/* VMX found, or known unprepared hypervisor */
	SLD_V_SAFE,		/* handles split-lock #AC itself */
};

enum sld_reason {
	SLD_R_NONE,		/* clean */
	SLD_R_VMX_TEXT,		/* VMX instructions in its text */
	SLD_R_SVM_TEXT,		/* SVM instructions only */
	SLD_R_MODINFO_SAFE,	/* MODULE_INFO(sld_safe, "Y") */
	SLD_R_IMPORTS_HANDLER,	/* imports handle_guest_split_lock */
	SLD_R_KNOWN_HYPERVISOR,	/* built-in table: known unprepared */
	SLD_R_ADMIN_SAFE,	/* admin said safe */
	SLD_R_ADMIN_HYPERVISOR,	/* admin said hypervisor */
	SLD_R_VENDOR_SAFE,	/* vendor API: declared safe */
	SLD_R_VENDOR_HYPERVISOR,/* vendor API: asked to be a hypervisor */
	SLD_R_SWITCHES_DEBUGCTL,/* built-in table: SVM, switches DEBUGCTL */
};

/* Facts about one module, gathered by the kernel or by sldctl. */
struct sld_facts {
	const char *name;		/* module name ("kvm_intel") */
	bool modinfo_safe;		/* MODULE_INFO(sld_safe, "Y") */
	bool imports_guest_handler;	/* undefined symbol handle_guest_split_lock */
	int admin;			/* 0, SLD_R_ADMIN_SAFE or _HYPERVISOR */
	int vendor;			/* 0, SLD_R_VENDOR_SAFE or _HYPERVISOR */
	/*
	 * An AMD host whose kernel set DEBUGCTL's bus-lock bit: VMRUN keeps
	 * it, so an SVM hypervisor's guests take the host's #DBs.
	 */
	bool svm_at_risk;
	/* This kernel's kvm_amd switches DEBUGCTL itself (6.14 on). */
	bool kvm_amd_switches;
	const struct x86scan_stats *st;
};

/*
 * The one verdict rule, in priority order: admin entry, vendor entry,
 * sld_safe tag, imports the kernel's guest #AC handler, built-in table of
 * known unprepared hypervisors, VMX text, SVM text (a hypervisor on an
 * AMD host that raises bus-lock #DBs, unless the table says it switches
 * DEBUGCTL itself), clean.
 */
enum sld_verdict sld_classify(const struct sld_facts *f, enum sld_reason *why);
const char *sld_verdict_name(enum sld_verdict v);	/* "hypervisor" ... */
const char *sld_reason_name(enum sld_reason r);		/* "vmx-text" ... */

/* The built-in table of known hypervisors: schema/hypervisors.h. */

/*
 * Whether findings in the executable section named name count for the
 * verdict: not in init sections (".init*"), for every module, whether
 * the kernel scans it at load or later, or sldctl scans its file. A
 * module loaded before sld_compat has no init text left to scan, so
 * counting it where it is there would give one module two verdicts by
 * load order; and init code runs once, while the module loads, before it
 * can serve a guest: a hypervisor's world switch (VMLAUNCH/VMRESUME) or
 * its VMXON for later runs lives in its core text, where it is found in
 * either order. What init text alone could do is run a guest from its
 * init function, which no known hypervisor does. Init findings are still
 * reported (flags init-findings-ignored; sldctl: init_counts).
 */
bool sld_section_counts(const char *name);

/*
 * Host-only: an instruction only a VMM executes. VMCALL, VMFUNC and
 * VMMCALL are executed by guests (KVM/Hyper-V/Xen paravirt calls), so a
 * guest driver that makes hypercalls is not a hypervisor. Host-only VMX
 * (VMX class and host-only) is what makes the verdict vmx-text, and what
 * a report names first for a hypervisor (sld_first_finding).
 */
bool sld_find_host_only(enum x86_find f);
bool sld_find_host_vmx(enum x86_find f);

/*
 * The finding a report names (dmesg, /proc/sld_compat_modules): with
 * hypervisor set (the verdict is hypervisor), the earliest host-only VMX
 * one if there is any, else the earliest finding of any kind. Earliest by
 * section (sec[f]: the index of the section of f's first hit; NULL: all
 * in one), then by offset (st->first[f]). X86_F_NONE if nothing was found.
 */
enum x86_find sld_first_finding(const struct x86scan_stats *st,
				const uint8_t *sec, bool hypervisor);

#endif /* SLD_VERDICT_H */
