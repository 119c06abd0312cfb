# sldctl configuration parser (cmocka, in-process) and the apply/status
# subcommands end to end against a fake /sys, /proc, /etc tree
# (SLDCTL_ROOT; shell + python3 json). Included by tests/unit/Makefile.
CONFIG_SRC := $(TOP)/tools/sldctl/lib/config.c $(TOP)/tools/sldctl/lib/util.c $(TOP)/src/schema/escape.c
CONFIG_HDRS := $(TOP)/tools/sldctl/lib/config.h $(TOP)/tools/sldctl/lib/util.h

UNIT_TESTS += $(B)/test_config $(B)/test_sldctl_conf

$(B)/test_config: test_config.c $(CONFIG_SRC) $(CONFIG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ test_config.c $(CONFIG_SRC) $(LDFLAGS) -lcmocka

# Runs the sanitizer build of the real binary (sldctl-san-bin: sldctl.mk).
$(B)/test_sldctl_conf: test_sldctl_conf.sh sldctl-san-bin
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec env SLDCTL=%s sh %s "$$@"\n' \
		'$(TOP)/build/tools/san/sldctl' '$(CURDIR)/test_sldctl_conf.sh' > $@
	chmod +x $@
