/* SPDX-License-Identifier: GPL-2.0 */
/* ac_path.c: the #AC path for protected and exempt tasks. */
#ifndef SLD_AC_PATH_H
#define SLD_AC_PATH_H

#include <linux/types.h>

void sld_ac_setup(void);		/* before sld_hooks_init() */
int sld_ac_show(char *buf, size_t size);

#endif /* SLD_AC_PATH_H */
