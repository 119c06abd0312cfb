# SPDX-License-Identifier: GPL-2.0
# sld-compat. The two commands a newcomer needs:
#   make demo    boot a VM with the module and show it at work
#   make check   every test: unit, decoder vs objdump, fuzz (short), VMs
# Both install what they need on Debian 12 (as root) via tests/vm/deps.sh.
VERSION := 0.1.0
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
include tests/vm/kernels.mk
export KVERS

CC ?= cc
VMBIN_CFLAGS := -static -O2 -Wall -Wextra -Werror
VMBIN_SRC := $(wildcard tests/vm/bin/*.c)
VMBIN := $(patsubst tests/vm/bin/%.c,build/vmbin/%,$(VMBIN_SRC))

all: module

module:
	$(MAKE) -C src KVER=$(KVER) KDIR=$(KDIR)

tools:
	$(MAKE) -C tools/sldctl

deps:
	bash tests/vm/deps.sh

build/vmbin/%: tests/vm/bin/%.c
	@mkdir -p $(@D)
	$(CC) $(VMBIN_CFLAGS) -o $@ $<

vmbin: $(VMBIN)

unit:
	$(MAKE) -C tests/unit check

objdump-check:
	$(MAKE) -C tests/objdump check

fuzz-short:
	$(MAKE) -C tests/fuzz short

fuzz:
	$(MAKE) -C tests/fuzz fuzz

vm-check: vmbin
	bash tests/vm/check.sh

# Lint builds of the module for every kernel of the suite: W=1 and sparse.
lint:
	@set -e; for k in $(KVERS); do \
		rm -rf build/lint/$$k; mkdir -p build/lint/$$k; cp -a src/. build/lint/$$k/; \
		echo "# W=1 C=1 $$k"; \
		$(MAKE) -s -C build/lint/$$k KVER=$$k W=1 C=1 2>&1 | \
			grep -v '^Skipping BTF' | tee build/lint/$$k.log; \
		test ! -s build/lint/$$k.log; \
	done

check: deps
	$(MAKE) lint
	$(MAKE) unit
	$(MAKE) fuzz-short
	$(MAKE) objdump-check
	$(MAKE) vm-check

demo: deps vmbin
	bash tests/vm/vm.sh $(firstword $(KVERS)) demo

clean:
	rm -rf build
	$(MAKE) -C src clean KDIR=$(KDIR) 2>/dev/null || true

.PHONY: all module tools deps vmbin unit objdump-check fuzz-short fuzz \
	vm-check lint check demo clean
