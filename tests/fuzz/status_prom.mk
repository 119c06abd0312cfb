# libFuzzer target for the status-file readers of `sldctl status --format
# prometheus` (tools/sldctl/status_prom.c), included by tests/fuzz/Makefile.
# Seeded from the fake tree of tests/unit/test_sldctl_prom.sh.
PROM_FUZZ_BIN := $(B)/fuzz_status_prom
PROM_FUZZ_SRC := fuzz_status_prom.c $(TOP)/tools/sldctl/status_prom.c \
	$(TOP)/tools/sldctl/lib/util.c $(TOP)/src/schema/escape.c

FUZZ_TARGETS += $(PROM_FUZZ_BIN)

$(PROM_FUZZ_BIN): $(PROM_FUZZ_SRC) $(TOP)/tools/sldctl/status_prom.h \
		$(TOP)/tools/sldctl/lib/util.h
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS) -o $@ $(PROM_FUZZ_SRC)

fuzz_status_prom-seed:
	@mkdir -p $(CORPUS)/fuzz_status_prom
	@printf 'ac_user_handled 3\ntasks_live 2\nsched_calls 9\n\377vmmon state=watching via=profile entry=x tasks=2 ac_user=4 ac_guest=1\n\37712 CPU 1/KVM why=exempt hv=- cpu=0 running=1 switches=3 ac_user=0 ac_guest=1\n... 3 more\n\377cpu0 core=0.0 hold=0 task=0 bracket=0 sld=on toggles_off=4 toggles_on=3 msr_writes=7 msr_skipped=0 reasserts=1 brackets=2\n\377vmmon hypervisor vmx-text vmx=12 svm=0 cr=1 dr=0 first=x@0x10 guest_calls=9 scan_us=10 atomic_ns=5 flags=loaded\n\3771\n' \
		> $(CORPUS)/fuzz_status_prom/tree

.PHONY: fuzz_status_prom-seed
