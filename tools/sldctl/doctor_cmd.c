// SPDX-License-Identifier: GPL-2.0
#include "sldctl.h"
int cmd_doctor(int argc, char **argv)
{
	(void)argc; (void)argv;
	return SLDCTL_EXIT_ERROR;
}
