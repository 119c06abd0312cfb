SHELL := /bin/bash
# libFuzzer target: the scanner's decoder (fast path, x86_decode, scan
# loop) against the frozen reference decoder of tests/x86ref, included by
# tests/fuzz/Makefile, which provides B, CLANG, CFLAGS, CORPUS, X86SCAN_SRC.
#   make -C tests/fuzz fuzz            # FUZZ_RUNS executions per target
# Seeds: the same 1 KiB slices of kvm-intel.ko's and kvm-amd.ko's .text
# as fuzz_decode (decode.mk's DECODE_FUZZ_KO).
DECDIFF_FUZZ_BIN := $(B)/fuzz_decdiff
X86REF := $(TOP)/tests/x86ref

FUZZ_TARGETS += $(DECDIFF_FUZZ_BIN)

$(DECDIFF_FUZZ_BIN): fuzz_decdiff.c $(X86SCAN_SRC) $(X86SCAN_HDR) \
		$(X86REF)/ref_decode.c $(X86REF)/ref.h
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS) -I$(X86REF) -o $@ fuzz_decdiff.c $(X86REF)/ref_decode.c $(X86SCAN_SRC)

fuzz_decdiff-seed:
	@mkdir -p $(CORPUS)/fuzz_decdiff
	@for m in kvm-intel kvm-amd; do \
		objcopy -O binary --only-section=.text $(DECODE_FUZZ_KO)/$$m.ko \
			$(CORPUS)/fuzz_decdiff/.text 2>/dev/null || continue; \
		split -b 1024 -a 3 -d $(CORPUS)/fuzz_decdiff/.text \
			$(CORPUS)/fuzz_decdiff/$$m-; \
		rm -f $(CORPUS)/fuzz_decdiff/.text; \
	done

.PHONY: fuzz_decdiff-seed
