// SPDX-License-Identifier: GPL-2.0
/* HAVE_KERNFS_RCU_NAME: kernfs_node::name is RCU-managed (6.15+). */
#include <linux/kernfs.h>

const char *conftest_kernfs_rcu_name(struct kernfs_node *kn);
const char *conftest_kernfs_rcu_name(struct kernfs_node *kn)
{
	return kernfs_rcu_name(kn);
}
