/* SPDX-License-Identifier: GPL-2.0 */
/* hvwatch.c: hypervisor modules and their tasks. */
#ifndef SLD_HVWATCH_H
#define SLD_HVWATCH_H

#include <linux/types.h>

struct module;

void sld_hv_setup(void);		/* before sld_hooks_init() */
void sld_hv_exit(void);
void sld_hv_free(void);			/* after sld_hooks_exit() */
void sld_hv_watch(struct module *mod);
void sld_hv_unwatch(struct module *mod);
void sld_hv_arm(bool on);
int sld_hv_show(char *buf, size_t size);

#endif /* SLD_HVWATCH_H */
