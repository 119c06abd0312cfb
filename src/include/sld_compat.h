/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vendor API's name up to sld-compat 0.1.0, kept so that a module
 * built against this path (or one that copied it) still builds. The API
 * is sld_compat_api.h, in this directory; copy that one from now on.
 * It is none of the module's internal headers (src/knobs/switches.h ...).
 */
#ifndef SLD_COMPAT_API_COMPAT_H
#define SLD_COMPAT_API_COMPAT_H

#include "sld_compat_api.h"

#endif /* SLD_COMPAT_API_COMPAT_H */
