# `sldctl status --format prometheus` on the sanitizer build against a fake
# /sys, /proc and /dev/kmsg (SLDCTL_ROOT), checked with promtool, and the
# shipped systemd units (packaging/systemd) with systemd-analyze verify.
# Included by tests/unit/Makefile.
UNIT_TESTS += $(B)/test_sldctl_prom

$(B)/test_sldctl_prom: test_sldctl_prom.sh sldctl-san-bin
	@mkdir -p $(@D)
	printf '#!/bin/sh\nexec env SLDCTL=%s TOP=%s sh %s "$$@"\n' \
		'$(TOP)/build/tools/san/sldctl' '$(TOP)' \
		'$(CURDIR)/test_sldctl_prom.sh' > $@
	chmod +x $@
