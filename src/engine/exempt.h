/* SPDX-License-Identifier: GPL-2.0 */
/* exempt.c: exemption rules (knobs exempt_*) and their probes. */
#ifndef SLD_EXEMPT_H
#define SLD_EXEMPT_H

#include <linux/types.h>

struct sld_owner;

void sld_exempt_setup(void);		/* before sld_hooks_init() */
void sld_exempt_init(void);		/* after sld_task_init() */
void sld_exempt_free(void);
int sld_exempt_protect(bool ahead);		/* current, any context */
int sld_exempt_ensure(void);			/* current, any context */
int sld_exempt_pending_show(char *buf, size_t size);	/* sleepable */

#endif /* SLD_EXEMPT_H */
