/* SPDX-License-Identifier: GPL-2.0 */
/* Test object for sldctl, built with -m32: a 32-bit ELF must be refused. */
asm(".pushsection .text, \"ax\"\n"
    "\t.byte 0x0f, 0x01, 0xc2\n"		/* vmlaunch */
    "\tret\n"
    ".popsection\n");

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"name=m32_vmx";
