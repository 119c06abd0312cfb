/* SPDX-License-Identifier: GPL-2.0 */
/* Test object for sldctl: SVM only (an AMD hypervisor), at .text+2. */
asm(".pushsection .text, \"ax\"\n"
    "\tnop\n"
    "\tnop\n"
    "\t.byte 0x0f, 0x01, 0xd8\n"		/* vmrun */
    "\tret\n"
    ".popsection\n");

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"name=sld_svm";
