# libFuzzer target for sldctl's module reader (kofile + scan + JSON),
# included by tests/fuzz/Makefile, which provides B, CLANG, CFLAGS, CORPUS,
# X86SCAN_SRC, MODLIB_SRC and their headers.
#   make -C tests/fuzz fuzz           # FUZZ_RUNS executions per target
#   make -C tests/fuzz fuzz_kofile-seed
# The seed corpus is copied at run time from the unpacked Debian kernel
# (small .ko files, plus xz/zstd copies of a few) and never committed.
KOFILE_FUZZ_BIN := $(B)/fuzz_kofile
KOFILE_FUZZ_SEEDS ?= $(SLD_CACHE)/$(KVER_61)/root/lib/modules/$(KVER_61)/kernel
KOFILE_FUZZ_PC := libelf liblzma libzstd
KOFILE_FUZZ_SRC := fuzz_kofile.c $(TOP)/tools/sldctl/lib/kofile.c \
	$(TOP)/tools/sldctl/lib/json.c $(TOP)/tools/sldctl/scan_cmd.c \
	$(TOP)/tools/sldctl/cli.c $(TOP)/tools/sldctl/lib/util.c $(TOP)/src/schema/escape.c $(X86SCAN_SRC) \
	$(MODLIB_SRC)

FUZZ_TARGETS += $(KOFILE_FUZZ_BIN)

$(KOFILE_FUZZ_BIN): $(KOFILE_FUZZ_SRC) $(wildcard $(TOP)/tools/sldctl/*.h $(TOP)/tools/sldctl/lib/*.h) \
		$(X86SCAN_HDR) $(MODLIB_HDR)
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS) $(shell pkg-config --cflags $(KOFILE_FUZZ_PC)) -o $@ \
		$(KOFILE_FUZZ_SRC) $(shell pkg-config --libs $(KOFILE_FUZZ_PC))

# Twenty of the smallest modules, and packed copies of three of them.
fuzz_kofile-seed:
	@mkdir -p $(CORPUS)/fuzz_kofile
	@find $(KOFILE_FUZZ_SEEDS) -name '*.ko' -size -12k 2>/dev/null | sort | head -n 20 | \
		while read -r f; do cp "$$f" $(CORPUS)/fuzz_kofile/; done
	@for f in $$(ls $(CORPUS)/fuzz_kofile/*.ko 2>/dev/null | head -n 3); do \
		xz -q -c --check=crc32 "$$f" > "$$f.xz"; zstd -q -c "$$f" > "$$f.zst"; done

.PHONY: fuzz_kofile-seed
