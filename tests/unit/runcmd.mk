# sldctl run: its allow list, name resolution and unit name in process
# (test_run_allow, cmocka), and the command end to end against a fake
# tree with a stand-in systemd-run (test_sldctl_runcmd.sh). Included by
# tests/unit/Makefile.
RUNALLOW_SRC := $(TOP)/tools/sldctl/lib/run_allow.c $(TOP)/src/schema/entries.c \
	$(TOP)/src/schema/glob.c

UNIT_TESTS += $(B)/test_run_allow $(B)/test_sldctl_runcmd

$(B)/test_run_allow: test_run_allow.c $(RUNALLOW_SRC) $(TOP)/tools/sldctl/lib/run_allow.h $(SCHEMA_HDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ test_run_allow.c $(RUNALLOW_SRC) $(LDFLAGS) -lcmocka

# Runs the sanitizer build of the real binary (sldctl-san-bin: sldctl.mk).
$(B)/test_sldctl_runcmd: test_sldctl_runcmd.sh sldctl-san-bin
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec env SLDCTL=%s sh %s "$$@"\n' \
		'$(TOP)/build/tools/san/sldctl' '$(CURDIR)/test_sldctl_runcmd.sh' > $@
	chmod +x $@
