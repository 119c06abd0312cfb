/* SPDX-License-Identifier: GPL-2.0 */
/* Test object for sldctl: VMX, but tagged MODULE_INFO(sld_safe, "Y"). */
asm(".pushsection .text, \"ax\"\n"
    "\t.byte 0x0f, 0x01, 0xc2\n"		/* vmlaunch */
    "\tret\n"
    ".popsection\n");

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"sld_safe=Y\0license=GPL\0name=sld_safe";
