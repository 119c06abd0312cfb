# sldctl's shared helpers (tools/sldctl/lib/util.c), cmocka, in process:
# the parser of the module's "name N" counters files. Included by
# tests/unit/Makefile.
UTIL_SRC := $(TOP)/tools/sldctl/lib/util.c $(TOP)/src/schema/escape.c
UTIL_HDRS := $(TOP)/tools/sldctl/lib/util.h $(TOP)/src/schema/escape.h

UNIT_TESTS += $(B)/test_util

$(B)/test_util: test_util.c $(UTIL_SRC) $(UTIL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ test_util.c $(UTIL_SRC) $(LDFLAGS) -lcmocka
