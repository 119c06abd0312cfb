/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of sld_compat shares: the core switches and the log
 * helpers that read them (the version comes from src/VERSION, through
 * Kbuild). What one file offers the others is in its own header
 * (engine/task/task.h, kernel/hooks.h, ...), so that each dependency
 * shows at its #include.
 */
#ifndef SLD_KNOBS_SWITCHES_H
#define SLD_KNOBS_SWITCHES_H

#include <linux/types.h>

struct module;

/*
 * The core switches every part reads: knobs.c holds them (verbose is its
 * knob), main.c switches `enabled`.
 */
struct sld_knobs {
	bool enabled;
	int verbose;		/* 0 quiet .. 3 debug */
};

extern struct sld_knobs sld_knobs;

#define sld_info(fmt, ...) do {						\
	if (READ_ONCE(sld_knobs.verbose) >= 2)				\
		pr_info(fmt, ##__VA_ARGS__);				\
} while (0)
#define sld_dbg(fmt, ...) do {						\
	if (READ_ONCE(sld_knobs.verbose) >= 3)				\
		pr_info(fmt, ##__VA_ARGS__);				\
} while (0)

#endif /* SLD_KNOBS_SWITCHES_H */
