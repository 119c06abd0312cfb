// SPDX-License-Identifier: GPL-2.0
/* HAVE_CONST_MODULE_ATTRIBUTE: module_attribute's show/store take a const
 * struct module_attribute * (6.14+).
 */
#include <linux/module.h>

static ssize_t conftest_show(const struct module_attribute *a,
			     struct module_kobject *mk, char *buf)
{
	return 0;
}

struct module_attribute conftest_attr;
struct module_attribute conftest_attr = { .show = conftest_show };
