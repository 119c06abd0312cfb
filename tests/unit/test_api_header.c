// SPDX-License-Identifier: GPL-2.0
/*
 * The vendor header under its earlier name (src/include/sld_compat.h)
 * still gives a vendor module the whole API of sld_compat_api.h: the
 * version and each function with its type, as symbol_get() needs them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../src/include/sld_compat.h"	/* the old name */

#define SAME_TYPE(fn, type) __builtin_types_compatible_p(__typeof__(fn), type)

static void test_old_name(void **state)
{
	(void)state;
	assert_int_equal(SLD_COMPAT_API_VERSION, 2);
	assert_true(SAME_TYPE(sld_compat_declare_safe, int (struct module *)));
	assert_true(SAME_TYPE(sld_compat_declare_hypervisor,
			      int (struct module *)));
	assert_true(SAME_TYPE(sld_compat_guest_enter, int (void)));
	assert_true(SAME_TYPE(sld_compat_guest_exit, void (void)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
