/* SPDX-License-Identifier: GPL-2.0 */
/* run.c: the tasks of `sldctl run` scopes, the run_allow list, runs. */
#ifndef SLD_RUN_H
#define SLD_RUN_H

#include <linux/types.h>

struct task_struct;

/* The run scope's name if t is relieved as a run's task, else NULL. rcu. */
const char *sld_run_match(struct task_struct *t);
bool sld_run_any(void);		/* run_allow is not empty, or root ran */
bool sld_run_root_arm(void);			/* knobs mutex */
int sld_run_allow_set(const char *val, const char **why);	/* knobs mutex */
int sld_run_allow_show(char *buf, size_t size);		/* knobs mutex */
void sld_run_free(void);
int sld_run_show(char *buf, size_t size);	/* the runs file, sleepable */

#endif /* SLD_RUN_H */
