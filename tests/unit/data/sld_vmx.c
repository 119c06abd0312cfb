/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test object for sldctl: VMX in two executable sections at known offsets.
 * Top-level asm keeps the offsets exact whatever the compiler flags.
 *   .text:       +1 vmlaunch, +4 vmresume
 *   .init.text:  +1 vmxon
 */
asm(".pushsection .text, \"ax\"\n"
    "vmx_run:\n"
    "\tnop\n"
    "\t.byte 0x0f, 0x01, 0xc2\n"		/* vmlaunch */
    "\t.byte 0x0f, 0x01, 0xc3\n"		/* vmresume */
    "\tret\n"
    ".popsection\n"
    ".pushsection .init.text, \"ax\"\n"
    "vmx_init:\n"
    "\tnop\n"
    "\t.byte 0xf3, 0x0f, 0xc7, 0x30\n"	/* vmxon (%rax) */
    "\tret\n"
    ".popsection\n");

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"license=GPL\0name=sld_vmx\0vermagic=6.1.0 SMP mod_unload";
