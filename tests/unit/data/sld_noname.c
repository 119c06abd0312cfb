/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test object for sldctl: no "name=" in .modinfo and no VMX, like an old
 * out-of-tree build. The test copies it to a file named after a module
 * in the built-in table to see the file name used as a fallback.
 */
int sld_noname_nop(void)
{
	return 0;
}

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"license=GPL";
