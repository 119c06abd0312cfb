# libFuzzer target for sldctl's configuration parser (config.c),
# included by tests/fuzz/Makefile, which provides B, CLANG, CFLAGS, CORPUS.
#   make -C tests/fuzz fuzz           # FUZZ_RUNS executions per target
#   make -C tests/fuzz fuzz_config-seed
# The seeds are written at run time (nothing binary is committed).
CONFIG_FUZZ_BIN := $(B)/fuzz_config
CONFIG_FUZZ_SRC := fuzz_config.c $(TOP)/tools/sldctl/lib/config.c $(TOP)/tools/sldctl/lib/util.c $(TOP)/src/schema/escape.c

FUZZ_TARGETS += $(CONFIG_FUZZ_BIN)

$(CONFIG_FUZZ_BIN): $(CONFIG_FUZZ_SRC) $(TOP)/tools/sldctl/lib/config.h $(TOP)/tools/sldctl/lib/util.h
	@mkdir -p $(@D)
	$(CLANG) $(CFLAGS) -o $@ $(CONFIG_FUZZ_SRC)

fuzz_config-seed:
	@mkdir -p $(CORPUS)/fuzz_config
	@printf '# sld-compat\n\nverbose = 2\nenabled=N\n' > $(CORPUS)/fuzz_config/good
	@printf 'verbose 2\n= 1\nk =\nKey = 1\nv = a\tb\r\n# \303\251\nv = 1\nv = 2\n' \
		> $(CORPUS)/fuzz_config/bad
	@printf 'verbose = 1\n\377\376verbose = 3\nenabled = Y\n' > $(CORPUS)/fuzz_config/dropin

.PHONY: fuzz_config-seed
