/* SPDX-License-Identifier: GPL-2.0 */
/* db_path.c: the bus-lock #DB path for protected and exempt tasks. */
#ifndef SLD_DB_PATH_H
#define SLD_DB_PATH_H

#include <linux/types.h>

void sld_db_setup(void);		/* before sld_hooks_init() */
int sld_db_show(char *buf, size_t size);

#endif /* SLD_DB_PATH_H */
