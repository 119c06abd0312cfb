/* SPDX-License-Identifier: GPL-2.0 */
/* debugctl.c: DEBUGCTL's bus-lock bit under sld_compat's holds. */
#ifndef SLD_DEBUGCTL_H
#define SLD_DEBUGCTL_H

#include <linux/types.h>

void sld_bld_sync(bool hold);		/* this CPU, irqs off */
int sld_bld_show(unsigned int cpu, char *buf, size_t size);

#endif /* SLD_DEBUGCTL_H */
