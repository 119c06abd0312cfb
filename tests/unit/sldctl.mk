# sldctl unit tests: kofile/json/scan in-process (cmocka) and the CLI end
# to end (shell + python3 json). Test modules are built here, at test time,
# from tests/unit/data/*.c with the host gcc; nothing binary is committed.
SLDCTL_DIR := $(TOP)/tools/sldctl
SLDCTL_DATA := $(B)/sldctl-data
SLDCTL_SAN_BIN := $(TOP)/build/tools/san/sldctl
# Plain flags on purpose: the test modules must not carry sanitizer code.
SLDCTL_DATA_CC ?= gcc
SLDCTL_DATA_CFLAGS := -c -O2 -fno-asynchronous-unwind-tables -fno-pic

SLDCTL_PC := libelf liblzma libzstd
SLDCTL_LIBS := $(shell pkg-config --libs $(SLDCTL_PC)) -lcmocka
SLDCTL_LIB_SRC := $(SLDCTL_DIR)/lib/kofile.c $(SLDCTL_DIR)/lib/json.c $(SLDCTL_DIR)/scan_cmd.c \
	$(SLDCTL_DIR)/cli.c $(SLDCTL_DIR)/lib/util.c $(TOP)/src/schema/escape.c
SLDCTL_HDRS := $(wildcard $(SLDCTL_DIR)/*.h $(SLDCTL_DIR)/lib/*.h) $(SLDCTL_DIR)/commands.def \
	$(TOP)/src/x86scan/x86scan.h $(MODLIB_HDR)

SLDCTL_KO := $(patsubst data/%.c,$(SLDCTL_DATA)/%.ko,$(wildcard data/sld_*.c))
SLDCTL_DATA_FILES := $(SLDCTL_KO) $(SLDCTL_KO:.ko=.ko.xz) $(SLDCTL_KO:.ko=.ko.zst) \
	$(SLDCTL_DATA)/m32_vmx.ko

UNIT_TESTS += $(B)/test_kofile $(B)/test_sldctl_cli

$(SLDCTL_DATA)/sld_%.ko: data/sld_%.c
	@mkdir -p $(@D)
	$(SLDCTL_DATA_CC) $(SLDCTL_DATA_CFLAGS) -o $@ $<

$(SLDCTL_DATA)/m32_%.ko: data/m32_%.c
	@mkdir -p $(@D)
	$(SLDCTL_DATA_CC) -m32 $(SLDCTL_DATA_CFLAGS) -o $@ $<

$(SLDCTL_DATA)/%.ko.xz: $(SLDCTL_DATA)/%.ko
	xz -q -c --check=crc32 $< > $@

$(SLDCTL_DATA)/%.ko.zst: $(SLDCTL_DATA)/%.ko
	zstd -q -c $< > $@

$(B)/test_kofile: test_kofile.c $(SLDCTL_LIB_SRC) $(X86SCAN_SRC) $(MODLIB_SRC) $(SLDCTL_HDRS) \
		$(SLDCTL_DATA_FILES)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(shell pkg-config --cflags $(SLDCTL_PC)) \
		-DSLDCTL_DATA_DIR='"$(SLDCTL_DATA)"' -o $@ \
		test_kofile.c $(SLDCTL_LIB_SRC) $(X86SCAN_SRC) $(MODLIB_SRC) $(LDFLAGS) \
		$(SLDCTL_LIBS)

# The CLI test runs the sanitizer build of the real binary, so it always
# asks tools/sldctl to bring it up to date first.
sldctl-san-bin:
	$(MAKE) -C $(SLDCTL_DIR) SAN=1

$(B)/test_sldctl_cli: test_sldctl_cli.sh $(SLDCTL_DATA_FILES) sldctl-san-bin
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec env SLDCTL=%s SLDCTL_DATA=%s sh %s "$$@"\n' \
		'$(SLDCTL_SAN_BIN)' '$(SLDCTL_DATA)' '$(CURDIR)/test_sldctl_cli.sh' > $@
	chmod +x $@

.PHONY: sldctl-san-bin
