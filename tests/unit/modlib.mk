# modlib unit tests (cmocka): .modinfo, the verdict rule and the finding a
# report names (test_verdict); the vendor header under its old name
# (test_api_header). Included by tests/unit/Makefile.
MODLIB_TESTS := $(B)/test_verdict $(B)/test_api_header
API_HDR := $(wildcard $(TOP)/src/include/*.h)

UNIT_TESTS += $(MODLIB_TESTS)

$(B)/test_verdict: test_verdict.c test_x86util.h $(MODLIB_SRC) $(MODLIB_HDR) \
		$(X86SCAN_SRC) $(X86SCAN_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(MODLIB_SRC) $(X86SCAN_SRC) $(LDFLAGS) -lcmocka

$(B)/test_api_header: test_api_header.c $(API_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -lcmocka
