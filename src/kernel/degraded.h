/* SPDX-License-Identifier: GPL-2.0 */
/* degraded.c: features that are off, and why. */
#ifndef SLD_DEGRADED_H
#define SLD_DEGRADED_H

#include <linux/types.h>

void sld_degrade(const char *feature, const char *reason);
bool sld_is_degraded(const char *feature);
int sld_degraded_show(char *buf, size_t size);	/* "feature: reason\n"... */
void sld_degraded_reset(void);

#endif /* SLD_DEGRADED_H */
