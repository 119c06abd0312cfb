# SPDX-License-Identifier: GPL-2.0
# The test suite's settings for make: each taken from tests/config.sh, the
# one place they are written (see there). `make VAR=...` or the environment
# still wins.
SLD_CONFIG_SH := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))/config.sh
SLD_CONFIG_VARS := SLD_CACHE KVER_61 KVER_61RT KVER_612 KVERS
$(foreach v,$(SLD_CONFIG_VARS),$(eval \
	$(v) ?= $(shell . $(SLD_CONFIG_SH) && echo "$$$(v)")))
ifeq ($(strip $(KVERS)),)
$(error tests/config.mk: no KVERS from $(SLD_CONFIG_SH))
endif
