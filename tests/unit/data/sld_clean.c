/* SPDX-License-Identifier: GPL-2.0 */
/* Test object for sldctl: ordinary code, no finder instruction. */
int sld_clean_add(int a, int b)
{
	return a + b;
}

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"license=GPL\0name=sld_clean";
