/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The modules whose load re-applies the configuration: those a module
 * list of the configuration names (safe_modules, hypervisor_modules).
 *
 * udev sees every module that loads, hundreds at boot; spawning
 * `sldctl apply --module NAME` for each only to find that the
 * configuration does not name it cost a process per module. So sldctl
 * keeps one empty file per named module in NAMED_MODULES_DIR, and the
 * udev rule (udev/90-sld-compat.rules) tests for $kernel's file before it
 * spawns anything. `sldctl apply` of the system configuration and every
 * --persist edit of it rewrite the set; /run starts empty at boot, where
 * the rule's `sldctl apply` for sld_compat itself fills it. After editing
 * the files by hand, `sldctl apply` (which the admin runs anyway to apply
 * them) brings the set up to date.
 */
#ifndef SLDCTL_NAMED_MODULES_H
#define SLDCTL_NAMED_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

#define NAMED_MODULES_DIR	"/run/sld-compat/named-modules"

/* Is key a module list (whose values name modules for the rule)? */
bool named_modules_knob(const char *key);

/* Does a module list of cf name module ('-' equal to '_')? */
bool named_modules_has(const struct conf *cf, const char *module);

/*
 * Make NAMED_MODULES_DIR (under $SLDCTL_ROOT) hold exactly one file per
 * module cf names, in the kernel's spelling ('_'). 0, or -errno with a
 * message in why.
 */
int named_modules_sync(const struct conf *cf, char *why, size_t n);

/* The same from the system configuration (/etc/sld-compat). */
int named_modules_update(char *why, size_t n);

#endif /* SLDCTL_NAMED_MODULES_H */
