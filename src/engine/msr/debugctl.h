/* SPDX-License-Identifier: GPL-2.0 */
/* debugctl.c: DEBUGCTL's bus-lock bit under sld_compat's holds. */
#ifndef SLD_DEBUGCTL_H
#define SLD_DEBUGCTL_H

#include <linux/types.h>

bool sld_bld_police(void);		/* siblings of a held core policed */
bool sld_bld_policed_here(void);	/* this CPU's bit is for that */
void sld_bld_init(void);
void sld_bld_sync(bool cpu_holds, bool core_held);	/* this CPU, locked */
int sld_bld_show(unsigned int cpu, char *buf, size_t size);

#endif /* SLD_DEBUGCTL_H */
