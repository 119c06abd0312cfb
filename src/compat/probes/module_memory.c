// SPDX-License-Identifier: GPL-2.0
/* HAVE_MODULE_MEMORY: struct module has mem[MOD_TEXT] (6.4+). */
#include <linux/module.h>

void *conftest_module_memory(struct module *m);
void *conftest_module_memory(struct module *m)
{
	return m->mem[MOD_TEXT].base;
}
