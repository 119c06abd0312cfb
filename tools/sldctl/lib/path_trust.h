/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether only root decides what an executable path runs, the condition
 * under which an exempt_path rule relieves no one but whom root chooses.
 *
 * The module's rule (src/engine/exempt.c) matches the file the path
 * names when written, and, while root owns it and nobody else may write
 * it, the file later at that name in that directory. A user who owns the
 * file, or may write it or a directory on its way, can put their own
 * program there (or the file keeps matching after they rewrote it in a
 * way the module cannot tell), so the rule would relieve whatever that
 * user runs. `sldctl exempt add --path` refuses such a path unless
 * --force, and `sldctl offenders` and `doctor` offer a path rule only
 * for a path that passes (the advice names the trade-off otherwise).
 */
#ifndef SLDCTL_PATH_TRUST_H
#define SLDCTL_PATH_TRUST_H

#include <stddef.h>

/*
 * path (absolute; below SLDCTL_ROOT when set) resolved as the module
 * resolves it (symlinks followed), then the file and every directory
 * from the root down: each owned by uid 0 and writable by neither its
 * group nor others. 0: root alone; 1: not, who[] saying who else could
 * satisfy the rule ("uid 1000 (mallory) owns /home/mallory/qemu"); or
 * -errno with why in who[]. Names in who[] are escaped (sldctl_q()).
 * POSIX ACLs and capabilities are not read: the mode bits decide.
 */
int path_trust(const char *path, char *who, size_t n);

#endif /* SLDCTL_PATH_TRUST_H */
