/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What sld_compat knows about particular hypervisors by name, in one
 * table: whether a module is an unprepared hypervisor whatever its text
 * shows (the verdict, modlib/verdict.c), safe given a kernel function
 * (the registry), which function runs a guest (hvwatch's profiles), and
 * how to name it to a person (sldctl). Plain C with no kernel headers:
 * the same table builds into sld_compat.ko and sldctl, and
 * tests/unit/test_hypervisors.c walks it.
 */
#ifndef SLD_HYPERVISORS_H
#define SLD_HYPERVISORS_H

#include "schema/modname.h"

enum sld_hv_kind {
	/* Reflects split-lock #AC into its guests: a hypervisor, always. */
	SLD_HV_UNPREPARED,
	/*
	 * Handles its guests' #AC by calling the kernel's
	 * handle_guest_split_lock(): safe where the kernel has it.
	 */
	SLD_HV_GUEST_HANDLER,
	/*
	 * An SVM hypervisor that clears the host's DEBUGCTL bus-lock bit
	 * around VMRUN itself: safe on the AMD hosts whose kernel sets it,
	 * where any other SVM hypervisor's guests take the host's #DBs.
	 */
	SLD_HV_SWITCHES_DEBUGCTL,
};

struct sld_known_hv {
	const char *module;	/* as the kernel names it */
	const char *title;	/* "VMware's vmmon"; NULL: "module NAME" */
	enum sld_hv_kind kind;
	/*
	 * The function that runs a guest, hooked as soon as the module
	 * loads (hvwatch.c's profile), or NULL: learned at the first ioctl.
	 */
	const char *entry;
	const char *why;	/* one line: why the table says so */
};

#define SLD_KNOWN_HVS	4
extern const struct sld_known_hv sld_known_hvs[SLD_KNOWN_HVS];

/* The entry of module (names compare with '-' equal to '_'), or NULL. */
const struct sld_known_hv *sld_known_hv_find(const char *module);

/*
 * The unprepared hypervisors of the table, which the verdict calls
 * hypervisors whatever their text shows (vboxdrv has no VMX in its own
 * text). True and a short why if name is one.
 */
bool sld_known_hypervisor(const char *name, const char **why);
/* Is name an SVM hypervisor that switches DEBUGCTL itself (kvm_amd)? */
bool sld_known_switches_debugctl(const char *name);
/* Unprepared hypervisor i (its name, and why in *why), or NULL past the end. */
const char *sld_known_hypervisor_at(unsigned int i, const char **why);

#endif /* SLD_HYPERVISORS_H */
