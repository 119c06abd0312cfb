# libFuzzer target for the x86scan decoder and scan loop, included by
# tests/fuzz/Makefile, which provides B, CLANG, CFLAGS, CORPUS, X86SCAN_SRC.
#   make -C tests/fuzz fuzz            # FUZZ_RUNS executions per target
#   make -C tests/fuzz fuzz_decode-seed
# Seeds: 1 KiB slices of kvm-intel.ko's and kvm-amd.ko's .text (real VMX
# and SVM code), cut at run time from the unpacked Debian kernel.
DECODE_FUZZ_BIN := $(B)/fuzz_decode
DECODE_FUZZ_KO ?= $(SLD_CACHE)/$(KVER_61)/root/lib/modules/$(KVER_61)/kernel/arch/x86/kvm

FUZZ_TARGETS += $(DECODE_FUZZ_BIN)

$(DECODE_FUZZ_BIN): fuzz_decode.c $(X86SCAN_SRC) $(X86SCAN_HDR)
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS) -o $@ fuzz_decode.c $(X86SCAN_SRC)

fuzz_decode-seed:
	@mkdir -p $(CORPUS)/fuzz_decode
	@for m in kvm-intel kvm-amd; do \
		objcopy -O binary --only-section=.text $(DECODE_FUZZ_KO)/$$m.ko \
			$(CORPUS)/fuzz_decode/.text 2>/dev/null || continue; \
		split -b 1024 -a 3 -d $(CORPUS)/fuzz_decode/.text \
			$(CORPUS)/fuzz_decode/$$m-; \
		rm -f $(CORPUS)/fuzz_decode/.text; \
	done

.PHONY: fuzz_decode-seed
