/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test object for sldctl: VMX in init code only (.init.text +1 vmxon,
 * +5 vmlaunch), none in .text. Init findings do not count (modlib's
 * sld_section_counts()): clean, as the kernel decides in either load order.
 */
asm(".pushsection .text, \"ax\"\n"
    "initvmx_run:\n"
    "\tnop\n"
    "\tret\n"
    ".popsection\n"
    ".pushsection .init.text, \"ax\"\n"
    "initvmx_init:\n"
    "\tnop\n"
    "\t.byte 0xf3, 0x0f, 0xc7, 0x30\n"	/* vmxon (%rax) */
    "\t.byte 0x0f, 0x01, 0xc2\n"		/* vmlaunch */
    "\tret\n"
    ".popsection\n");

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"license=GPL\0name=sld_initvmx";
