/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a task name is shown (task/notifier.c), in the tasks and runs files
 * and dmesg alike; apart so that the pieces of the task engine and the files
 * above them share it without including each other.
 */
#ifndef SLD_TASK_COMM_H
#define SLD_TASK_COMM_H

#include <linux/sched.h>

/* An escaped task name, sld_comm_escape(): \xNN for each byte at most. */
#define COMM_ESC_LEN	(4 * (TASK_COMM_LEN - 1) + 1)
void sld_comm_escape(char dst[COMM_ESC_LEN], const char *comm);

#endif /* SLD_TASK_COMM_H */
