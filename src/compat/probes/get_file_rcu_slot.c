// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_GET_FILE_RCU_SLOT: get_file_rcu() takes the __rcu slot and returns
 * a counted file (6.7+, when struct file became SLAB_TYPESAFE_BY_RCU).
 */
#include <linux/fs.h>

struct file *conftest_get_file_rcu(struct file __rcu **slot);
struct file *conftest_get_file_rcu(struct file __rcu **slot)
{
	return get_file_rcu(slot);
}
