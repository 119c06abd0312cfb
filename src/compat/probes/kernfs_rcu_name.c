// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_KERNFS_RCU_NAME: kernfs_node::name is RCU-managed (6.15+). Its
 * __rcu mark is for sparse only, so the probe looks for what came with
 * it in the same struct: the parent renamed __parent, also __rcu. (The
 * kernel's kernfs_rcu_name() is in fs/kernfs/, not in any header.)
 */
#include <linux/kernfs.h>

struct kernfs_node __rcu **conftest_kernfs_rcu_name(struct kernfs_node *kn);
struct kernfs_node __rcu **conftest_kernfs_rcu_name(struct kernfs_node *kn)
{
	return &kn->__parent;
}
