/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test object for sldctl: VMX and a *defined* handle_guest_split_lock.
 * Only an undefined symbol is an import, so this stays a hypervisor.
 */
asm(".pushsection .text, \"ax\"\n"
    "\t.byte 0x0f, 0x01, 0xc2\n"		/* vmlaunch */
    "\tret\n"
    ".popsection\n");

__attribute__((section(".text.unlikely"), used))
int handle_guest_split_lock(unsigned long ip)
{
	return ip != 0;
}

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"name=sld_defines";
