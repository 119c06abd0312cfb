/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's source folders below SRC_DIR: src/ itself and its layers
 * (src/README.md), for the unit tests that read the module's sources.
 */
#ifndef SLD_TEST_SRC_DIRS_H
#define SLD_TEST_SRC_DIRS_H

static const char *const module_dirs[] = {
	"", "/status", "/detect", "/engine", "/engine/task", "/engine/msr",
	"/kernel", "/knobs",
};
#define MODULE_DIRS	(sizeof(module_dirs) / sizeof(module_dirs[0]))

#endif
