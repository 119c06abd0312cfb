# libFuzzer target for the kernel log parser of `sldctl offenders`
# (tools/sldctl/lib/offlog.c), included by tests/fuzz/Makefile. Seeded from
# the real-format lines in tests/fixtures/offenders-*.txt.
OFFLOG_FUZZ_BIN := $(B)/fuzz_offlog
OFFLOG_FUZZ_SRC := fuzz_offlog.c $(TOP)/tools/sldctl/lib/offlog.c

FUZZ_TARGETS += $(OFFLOG_FUZZ_BIN)

$(OFFLOG_FUZZ_BIN): $(OFFLOG_FUZZ_SRC) $(TOP)/tools/sldctl/lib/offlog.h
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS) -o $@ $(OFFLOG_FUZZ_SRC)

fuzz_offlog-seed:
	@mkdir -p $(CORPUS)/fuzz_offlog
	@cp $(TOP)/tests/fixtures/offenders-kmsg.txt $(CORPUS)/fuzz_offlog/kmsg
	@cp $(TOP)/tests/fixtures/offenders-journal.txt $(CORPUS)/fuzz_offlog/journal

.PHONY: fuzz_offlog-seed
