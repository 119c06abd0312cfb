/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The owners of protected tasks (task/task.h), apart so that the pieces
 * of the task engine (internal.h) need not include the interface the
 * top piece implements.
 */
#ifndef SLD_TASK_OWNER_H
#define SLD_TASK_OWNER_H

#include <linux/atomic.h>
#include <linux/module.h>

enum sld_why {			/* why a task is protected */
	SLD_WHY_NONE, SLD_WHY_COMM, SLD_WHY_PATH, SLD_WHY_CGROUP, SLD_WHY_RUN,
	SLD_WHY_HV,		/* last: arrays are sized SLD_WHY_HV + 1 */
};

/*
 * On whose behalf a task is protected: one per exemption rule kind
 * (exempt.c), one for `sldctl run` scopes (run.c), one per watched
 * hypervisor module (hvwatch.c). The owner
 * holds it in static storage, so a record may point at it for as long
 * as sld_compat is loaded, and passes it to sld_task_protect(). What
 * task/task.c needs of it is here, as data: why (a hypervisor's records
 * pin sld_compat and do not count against the exempt share), a name for
 * dmesg and the tasks file, and counters it adds to for the owner to
 * show. It never calls an owner back.
 */
struct sld_owner {
	enum sld_why why;		/* never SLD_WHY_NONE */
	char name[MODULE_NAME_LEN];	/* a hypervisor's module, else "" */
	bool need;			/* task/task.c's, see sld_task_need() */
	/* for SLD_WHY_HV owners: tasks that became its, their split locks */
	atomic_long_t tasks, ac_user, ac_guest;
};

#endif /* SLD_TASK_OWNER_H */
