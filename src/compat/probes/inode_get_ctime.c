// SPDX-License-Identifier: GPL-2.0
/* HAVE_INODE_GET_CTIME: ctime behind inode_get_ctime() (6.6+). */
#include <linux/fs.h>

struct timespec64 conftest_inode_get_ctime(const struct inode *i);
struct timespec64 conftest_inode_get_ctime(const struct inode *i)
{
	return inode_get_ctime(i);
}
