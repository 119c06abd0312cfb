# The kernel log parser of `sldctl offenders` (tools/sldctl/lib/offlog.c),
# cmocka, on real-format lines (tests/fixtures/offenders-*.txt and inline).
OFFLOG_SRC := $(TOP)/tools/sldctl/lib/offlog.c
OFFLOG_HDRS := $(TOP)/tools/sldctl/lib/offlog.h

UNIT_TESTS += $(B)/test_offlog

$(B)/test_offlog: test_offlog.c $(OFFLOG_SRC) $(OFFLOG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DFIXTURES='"$(TOP)/tests/fixtures"' -o $@ \
		test_offlog.c $(OFFLOG_SRC) $(LDFLAGS) -lcmocka
