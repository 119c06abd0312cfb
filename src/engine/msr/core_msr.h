/* SPDX-License-Identifier: GPL-2.0 */
/* core_msr.c: the only writer of MSR_TEST_CTRL, and its account. */
#ifndef SLD_CORE_MSR_H
#define SLD_CORE_MSR_H

#include <linux/types.h>

void sld_msr_setup(void);		/* before sld_hooks_init() */
int sld_msr_init(void);
void sld_msr_exit(void);
void sld_msr_disable_get(void);		/* SLD off on every CPU */
void sld_msr_disable_put(void);		/* back on with the last put */
void sld_msr_task_in(void);		/* this CPU, preemption off */
void sld_msr_task_out(void);
bool sld_msr_task_held(void);		/* this CPU, irqs off */
void sld_msr_bracket_enter(void);
void sld_msr_bracket_exit(void);
void sld_msr_reassert(void);		/* after the kernel wrote it */
enum sld_ac_msr {
	SLD_AC_MSR_OFF, SLD_AC_MSR_CLEARED, SLD_AC_MSR_STUCK,
	SLD_AC_MSR_RELEASED,		/* this CPU no longer holds its core */
};
enum sld_ac_msr sld_msr_ac_off(void);	/* #AC of a protected task */
void sld_msr_drop_task_holds(void);	/* under stop_machine */
void sld_msr_sync_all(void);		/* sleepable */
void sld_account_init(void);		/* /proc/sld_compat_account */
void sld_account_exit(void);
int sld_disable_count_show(char *buf, size_t size);
void sld_msr_exposure(unsigned long *n, unsigned long long *ms);	/* sums */

#endif /* SLD_CORE_MSR_H */
