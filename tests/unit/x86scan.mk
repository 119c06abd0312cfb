# x86scan library unit tests (cmocka): decoder lengths and finder
# (test_x86decode), the scan loop (test_x86scan), .modinfo and the verdict
# rule (test_x86verdict). Every test buffer is an exactly sized malloc so
# ASan sees any read past the end.
X86SCAN_TESTS := $(B)/test_x86decode $(B)/test_x86scan $(B)/test_x86verdict
X86SCAN_HDR := $(TOP)/src/x86scan/x86scan.h

UNIT_TESTS += $(X86SCAN_TESTS)

$(X86SCAN_TESTS): $(B)/test_x86%: test_x86%.c test_x86util.h $(X86SCAN_SRC) $(X86SCAN_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(X86SCAN_SRC) $(LDFLAGS) -lcmocka
