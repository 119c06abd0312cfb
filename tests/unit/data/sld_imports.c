/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test object for sldctl: VMX and an undefined reference to the kernel's
 * handle_guest_split_lock, as kvm_intel has since 5.8.
 */
asm(".pushsection .text, \"ax\"\n"
    "\t.byte 0x0f, 0x01, 0xc3\n"		/* vmresume */
    "\tret\n"
    ".popsection\n");

extern int handle_guest_split_lock(unsigned long ip);

/* Kept out of .text so the offsets above stay fixed. */
__attribute__((section(".text.unlikely"), used))
int sld_imports_ac(unsigned long ip)
{
	return handle_guest_split_lock(ip);
}

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"name=sld_imports";
