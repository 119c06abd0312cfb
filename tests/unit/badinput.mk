# Bad input for every sldctl subcommand (test_sldctl_badinput.sh), on the
# sanitizer build; data from sldctl.mk.
UNIT_TESTS += $(B)/test_sldctl_badinput

$(B)/test_sldctl_badinput: test_sldctl_badinput.sh $(SLDCTL_DATA_FILES) sldctl-san-bin
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec env SLDCTL=%s SLDCTL_DATA=%s sh %s "$$@"\n' \
		'$(SLDCTL_SAN_BIN)' '$(SLDCTL_DATA)' '$(CURDIR)/test_sldctl_badinput.sh' > $@
	chmod +x $@
