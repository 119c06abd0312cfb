# x86scan library unit tests (cmocka): decoder lengths and finder
# (test_x86decode), the scan loop (test_x86scan), the fast path against
# the frozen reference decoder of tests/x86ref (test_x86diff). Every test
# buffer is an exactly sized malloc so ASan sees any read past the end.
X86SCAN_TESTS := $(B)/test_x86decode $(B)/test_x86scan
X86REF := $(TOP)/tests/x86ref
X86REF_SRC := $(X86REF)/ref_decode.c $(X86REF)/ref.h

UNIT_TESTS += $(X86SCAN_TESTS) $(B)/test_x86diff $(B)/x86diff-all

$(X86SCAN_TESTS): $(B)/test_x86%: test_x86%.c test_x86util.h $(X86SCAN_SRC) $(X86SCAN_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(X86SCAN_SRC) $(LDFLAGS) -lcmocka

$(B)/test_x86diff: test_x86diff.c test_x86util.h $(X86SCAN_SRC) $(X86SCAN_HDR) $(X86REF_SRC)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(X86REF) -o $@ $< $(X86REF)/ref_decode.c $(X86SCAN_SRC) \
		$(LDFLAGS) -lcmocka

# The same comparison at every offset of all module text of X86DIFF_KVER
# (~5 s): optimized and without sanitizers, which fuzz_decdiff has.
X86DIFF_KVER ?= $(KVER_61)
X86DIFF_MODDIR ?= $(SLD_CACHE)/$(X86DIFF_KVER)/root/lib/modules/$(X86DIFF_KVER)
X86DIFF_PC := libelf liblzma libzstd
$(B)/x86diff: x86diff.c $(X86SCAN_SRC) $(X86SCAN_HDR) $(X86REF_SRC) \
		$(TOP)/tools/sldctl/lib/kofile.c $(TOP)/tools/sldctl/lib/kofile.h \
		$(TOP)/tools/sldctl/lib/util.c $(TOP)/src/schema/escape.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(TOP)/src \
		-I$(TOP)/tools/sldctl -I$(X86REF) $(shell pkg-config --cflags $(X86DIFF_PC)) \
		-o $@ $< $(X86REF)/ref_decode.c $(X86SCAN_SRC) $(TOP)/tools/sldctl/lib/kofile.c \
		$(TOP)/tools/sldctl/lib/util.c $(TOP)/src/schema/escape.c \
		$(shell pkg-config --libs $(X86DIFF_PC))

# check runs every UNIT_TESTS entry without arguments: a wrapper.
$(B)/x86diff-all: $(B)/x86diff
	printf '#!/bin/sh\nexec %s %s\n' '$(B)/x86diff' '$(X86DIFF_MODDIR)' > $@
	chmod +x $@
