// SPDX-License-Identifier: GPL-2.0
/* The table of hypervisors known by name (see hypervisors.h). */
#include "schema/hypervisors.h"

const struct sld_known_hv sld_known_hvs[SLD_KNOWN_HVS] = {
	/*
	 * VMware Workstation/Player: its text has VMX, but it also handles
	 * VM exits in its own code and reflects #AC into the guest itself,
	 * so no sld_safe tag can be trusted to exist; listed by name so
	 * the verdict does not depend on what the scan happens to find.
	 * Vmx86_RunVM is the worker of IOCTL_VMX86_RUN_VM (the ioctl number
	 * moves between releases, the function name does not).
	 */
	{ "vmmon", "VMware's vmmon", SLD_HV_UNPREPARED, "Vmx86_RunVM",
	  "VMware vmmon: handles VM exits itself, injects #AC" },
	/*
	 * VirtualBox: the world switch is loaded at run time, so the
	 * module's own text has no VMX instruction at all and the scan
	 * alone would call it clean. supdrvIOCtlFast is the fast path of
	 * VT-x guest runs; without it, hvwatch learns the
	 * VBoxDrvLinuxIOCtl_<version> handler.
	 */
	{ "vboxdrv", "VirtualBox's vboxdrv", SLD_HV_UNPREPARED,
	  "supdrvIOCtlFast", "VirtualBox vboxdrv: VMX code loaded at run time" },
	/*
	 * kvm_intel handles split-lock #AC in its guests itself since 5.8,
	 * by calling the kernel's handle_guest_split_lock(). That is only
	 * true when the running kernel has that function: a kvm_intel built
	 * for a kernel without it reflects #AC into guests that do not
	 * expect it.
	 */
	{ "kvm_intel", NULL, SLD_HV_GUEST_HANDLER, NULL,
	  "kvm_intel calls the kernel's handle_guest_split_lock" },
	/*
	 * kvm_amd clears the host's DEBUGCTL around VMRUN when LBR
	 * virtualization is off ("KVM: SVM: Manually context switch
	 * DEBUGCTL if LBR virtualization is disabled", 6.14, in the stable
	 * kernels and Debian's 6.12). 6.13, the first to set the bus-lock
	 * bit on AMD, shipped without it: the verdict asks the kernel too
	 * (sld_facts.kvm_amd_switches, a conftest probe).
	 */
	{ "kvm_amd", NULL, SLD_HV_SWITCHES_DEBUGCTL, NULL,
	  "kvm_amd clears the host's DEBUGCTL bus-lock bit around VMRUN" },
};

const struct sld_known_hv *sld_known_hv_find(const char *module)
{
	unsigned int i;

	for (i = 0; module && i < SLD_KNOWN_HVS; i++)
		if (sld_modname_eq(module, sld_known_hvs[i].module))
			return &sld_known_hvs[i];
	return NULL;
}

bool sld_known_hypervisor(const char *name, const char **why)
{
	const struct sld_known_hv *hv = sld_known_hv_find(name);

	if (!hv || hv->kind != SLD_HV_UNPREPARED)
		return false;
	if (why)
		*why = hv->why;
	return true;
}

bool sld_known_switches_debugctl(const char *name)
{
	const struct sld_known_hv *hv = sld_known_hv_find(name);

	return hv && hv->kind == SLD_HV_SWITCHES_DEBUGCTL;
}

const char *sld_known_hypervisor_at(unsigned int i, const char **why)
{
	unsigned int k;

	for (k = 0; k < SLD_KNOWN_HVS; k++) {
		if (sld_known_hvs[k].kind != SLD_HV_UNPREPARED || i--)
			continue;
		if (why)
			*why = sld_known_hvs[k].why;
		return sld_known_hvs[k].module;
	}
	return NULL;
}
