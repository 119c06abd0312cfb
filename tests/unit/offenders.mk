# `sldctl offenders` and doctor's offender findings end to end on the
# sanitizer build, against a fake /dev/kmsg and /proc (SLDCTL_ROOT) and a
# fake journalctl (SLDCTL_JOURNALCTL). Included by tests/unit/Makefile.
UNIT_TESTS += $(B)/test_sldctl_offenders

$(B)/test_sldctl_offenders: test_sldctl_offenders.sh sldctl-san-bin
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec env SLDCTL=%s FIXTURES=%s sh %s "$$@"\n' \
		'$(TOP)/build/tools/san/sldctl' '$(TOP)/tests/fixtures' \
		'$(CURDIR)/test_sldctl_offenders.sh' > $@
	chmod +x $@
