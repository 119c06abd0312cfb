# SPDX-License-Identifier: GPL-2.0
# sld-compat. The two commands a newcomer needs:
#   make demo    boot a VM with the module and show it at work
#   make check   every test: unit, decoder vs objdump, fuzz (short), VMs
# Both install what they need on Debian 12 (as root) via tests/vm/deps.sh.
# The version: written only in src/VERSION (see src/Kbuild).
VERSION := $(shell cat src/VERSION)
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
include tests/config.mk
export KVERS SLD_CACHE

CC ?= cc
VMBIN_CFLAGS := -static -pthread -O2 -Wall -Wextra -Werror
VMBIN_SRC := $(wildcard tests/vm/bin/*.c)
VMBIN := $(patsubst tests/vm/bin/%.c,build/vmbin/%,$(VMBIN_SRC))

all: module

module:
	$(MAKE) -C src KVER=$(KVER) KDIR=$(KDIR)

tools:
	$(MAKE) -C tools/sldctl

deps:
	bash tests/vm/deps.sh

build/vmbin/%: tests/vm/bin/%.c $(wildcard tests/vm/bin/*.h)
	@mkdir -p $(@D)
	$(CC) $(VMBIN_CFLAGS) -o $@ $<

# sldctl for the VM suite: static, so it runs on the busybox initramfs.
build/vmbin/sldctl: FORCE
	@mkdir -p $(@D)
	$(MAKE) -C tools/sldctl OUT=$(CURDIR)/build/vmbin-static LDFLAGS=-static \
		PC_LIBS='-l:libelf.a -l:liblzma.a -l:libzstd.a -l:libz.a'
	cp build/vmbin-static/sldctl $@

vmbin: $(VMBIN) build/vmbin/sldctl

unit:
	$(MAKE) -C tests/unit check

objdump-check:
	$(MAKE) -C tests/objdump check

# The decoder against objdump on Debian unstable's newest kernel: its
# modules with VMX/SVM opcode bytes and 50 others (tests/objdump/xz-sample.sh).
objdump-check-sid:
	SLD_SID=1 bash tests/vm/deps.sh
	$(MAKE) -C tests/objdump check-xz KVER=$$(bash tests/vm/sid.sh kvers | cut -d' ' -f1)

fuzz-short:
	$(MAKE) -C tests/fuzz short

fuzz:
	$(MAKE) -C tests/fuzz fuzz

# Every VM test file on every boot of vm-check (VM_MATRIX=full), the
# decoder against objdump over every module of $(KVER_61), the
# VM suite on Debian unstable's newest kernel and its -rt, and the account
# on the most vCPUs QEMU's pc machine boots.
check-full: deps
	$(MAKE) vm-check VM_MATRIX=full
	$(MAKE) -C tests/objdump check-full
	$(MAKE) objdump-check-sid
	$(MAKE) lint-sid
	$(MAKE) dkms-check-sid
	$(MAKE) vm-check-sid
	$(MAKE) cpu-check-sid
	$(MAKE) vm-check-255
	$(MAKE) check-system SYS_RELEASES="trixie bookworm"

# tests/vm/t-many on 255 vCPUs (make check boots 64): about 15 minutes of
# TCG on two host cores.
vm-check-255: vmbin
	VM_SMP=255 VM_TIMEOUT=3600 VM_OUT=build/vm-255 \
		bash tests/vm/vm.sh $(KVER_61) many
	prove --exec cat build/vm-255/$(KVER_61)-many.tap

# Debian unstable's newest kernel (resolved from its linux-image-amd64 by
# tests/vm/sid.sh, built for in a debootstrapped unstable root) and its -rt:
# the main suite and the SMT boot on each, on the enforcing CPU as in
# `make check`; then cpu-check on each (t-cpu, its SMT boot and both crash
# boots). Not in `make check`: about 4 minutes to set up the root the
# first time and 10 per boot, past .ci/run's budget.
vm-check-sid: vmbin
	SLD_SID=1 bash tests/vm/deps.sh
	set -e; for k in $$(bash tests/vm/sid.sh kvers); do \
		VM_CPU=enforcing VM_OUT=build/vm bash tests/vm/vm.sh $$k check; \
		VM_CPU=enforcing VM_OUT=build/vm bash tests/vm/vm.sh $$k smt; \
	done
	prove --exec cat $$(for k in $$(bash tests/vm/sid.sh kvers); do \
		echo build/vm/$$k.tap build/vm/$$k-smt.tap; done)

cpu-check-sid: vmbin
	SLD_SID=1 bash tests/vm/deps.sh
	k="$$(bash tests/vm/sid.sh kvers)"; $(MAKE) cpu-check CPU_KVERS="$$k" \
		CPU_SMT_KVERS="$$k" CPU_IBT_KVER="$${k%% *}" CPU_BLD_KVERS="$${k%% *}"

# The VM suite on the enforcing test CPU (6.1, 6.1-rt, 6.12, their SMT
# boots), the 6.1 suite on stock TCG and the 64-vCPU boot (check.sh;
# SUITE_CPU=stock: everything on stock TCG).
# VM_MATRIX=check runs on each boot what only it catches (check.sh says
# which); make check-full runs VM_MATRIX=full, every file on every boot.
VM_MATRIX ?= check
vm-check: vmbin
	VM_MATRIX=$(VM_MATRIX) bash tests/vm/check.sh

# The stress suite in full on every kernel: knobstress phases of
# STRESS_SECS each (make check: 8 s) and 500 unload/load cycles under 100
# protected tasks in 85-cycles.sh (make check: 20).
STRESS_SECS ?= 120
check-stress: deps vmbin
	VM_MATRIX=full VM_STRESS_SECS=$(STRESS_SECS) VM_STRESS_FULL=1 VM_TIMEOUT=3600 bash tests/vm/check.sh

# The enforcing test CPU (tests/qemu/: split-lock detection and kernel IBT
# in a patched QEMU, built once), the CPU `make vm-check` runs the suite
# on: tests/vm/t-cpu (the CPU without sld_compat, then sld_compat on real
# traps, real WRMSR counts) on each of CPU_KVERS, and on each of
# CPU_SMT_KVERS with two SMT threads of one core; then issue #12's crash
# on CPU_IBT_KVER and a kernel split lock's on the first of CPU_KVERS
# (tests/qemu/crash.sh); then the bus-lock #DB trap (t-cpu/70-buslock.sh)
# and sld_compat's #DB path (t-cpu/72-dbpath.sh)
# on each of CPU_BLD_KVERS: the Intel model in split_lock_detect=ratelimit:1
# (72 also on two SMT threads of one core: DEBUGCTL is per logical CPU),
# the AMD model (with t-cpu/75-svmguest.sh and 76-kvmguest.sh: a real SVM
# guest under the host's bit, in fx_svmhv and in kvm_amd; 77-blockstep.sh,
# which every t-cpu boot runs: ptrace's block-step in a protected task)
# and the AMD model in ratelimit:1. CPU_BLD_KVERS: CPU_BLD_KVER (6.12: no AMD bus-lock
# support, its absence shown), trixie-backports' newest kernel (7.3, set
# up by tests/vm/bpo.sh: the kernel's own AMD bus-lock #DB) and, once
# tests/vm/sid.sh has cached it, Debian unstable's newest (7.x).
# On the backports kernel also t/43-exeswap and t-smt (issue #37: what
# changed under the module after 6.7), which vm-check runs on Debian 12's.
# cpu-check sets up the backports kernel, then runs cpu-boots, where
# the kernel lists are resolved; tests/vm/cpu-check.sh boots two at a time.
CPU_KVERS ?= $(KVERS)
CPU_SMT_KVERS ?= $(firstword $(CPU_KVERS))
CPU_IBT_KVER ?= $(KVER_612)
CPU_BLD_KVER ?= $(KVER_612)
CPU_BPO_KVER := $(firstword $(shell bash tests/vm/bpo.sh kvers 2>/dev/null))
CPU_SID_KVER := $(firstword $(shell bash tests/vm/sid.sh kvers 2>/dev/null))
CPU_BLD_KVERS ?= $(CPU_BLD_KVER) $(filter-out $(CPU_BLD_KVER),$(CPU_BPO_KVER)) \
	$(filter-out $(CPU_BLD_KVER), \
	$(if $(wildcard $(SLD_CACHE)/$(CPU_SID_KVER)/chroot),$(CPU_SID_KVER)))
cpu-check: deps vmbin
	SLD_DEPS_BG= SLD_BPO=1 bash tests/vm/deps.sh
	$(MAKE) cpu-boots

cpu-boots:
	CPU_KVERS="$(CPU_KVERS)" CPU_SMT_KVERS="$(CPU_SMT_KVERS)" \
		CPU_IBT_KVER="$(CPU_IBT_KVER)" CPU_BLD_KVERS="$(CPU_BLD_KVERS)" \
		CPU_BPO_KVER="$(CPU_BPO_KVER)" bash tests/vm/cpu-check.sh

# Lint (tests/lint/, each installs what it needs): the version's copies
# agree with src/VERSION, the project's address with packaging/project.mk,
# the documentation with the knobs and subcommands, README's install
# steps with the booted-system test's (install-steps.sh), shellcheck on every
# shell script, the kernel's checkpatch.pl on src/, no circle and no call
# up a layer between the files of src/ (layers.sh, src/README.md); then
# the module built for every kernel of the suite with W=1 and sparse
# (lint-build). All of it runs, whatever fails.
lint:
	@status=0; \
	prove -j2 -e bash -f -o tests/lint/version.sh tests/lint/project.sh tests/lint/docs.sh \
		tests/lint/install-steps.sh tests/lint/shellcheck.sh tests/lint/checkpatch.sh tests/lint/layers.sh || status=1; \
	$(MAKE) -s lint-build || status=1; \
	exit $$status

lint-build:
	@bash tests/lint/build.sh $(KVERS)

# The same for Debian unstable's kernels (tests/vm/sid.sh), built in its
# root with unstable's gcc and sparse (installed there once, kept cached).
lint-sid:
	SLD_SID=1 bash tests/vm/deps.sh
	bash tests/vm/sid.sh pkgs sparse
	@LINT_RUN="bash tests/vm/sid.sh run" bash tests/lint/build.sh $$(bash tests/vm/sid.sh kvers)

# Each phase prints `# phase TARGET SECONDS s` (tests/phases.sh).
check:
	@SLD_DEPS_BG=1 MAKE="$(MAKE)" bash tests/phases.sh deps lint unit fuzz-short objdump-check \
		dkms-check pkg-check pkg-lifecycle vm-check cpu-check \
		"check-system SYS_RELEASES=trixie SYS_SCENARIOS=rules"

# Whole Debian systems (tests/system/system.sh): a debootstrapped root with
# its own kernel, the packages installed with apt (or `make install`),
# booted from a disk image with systemd as PID 1 on the enforcing CPU,
# checked inside, removed, rebooted. SYS_RELEASES and SYS_SCENARIOS pick
# (bookworm: Debian 12, the same scenarios). `make check` runs Debian 13's
# rules (steps a, b, c, h), `make check-full` every scenario on both
# releases: about 5 to 10 minutes per scenario (the first run debootstraps
# the root, 1.5 to 6 minutes), kernel and upgrade longer (DKMS builds
# under TCG in the booted system).
SYS_RELEASES ?= trixie
SYS_SCENARIOS ?= pkg tools module source rules run kernel upgrade
check-system: deps
	$(MAKE) -s deb vmbin
	@mkdir -p build/system
	rm -f build/system/*.tap
	-for r in $(SYS_RELEASES); do for s in $(SYS_SCENARIOS); do \
		SYS_BUILT=1 bash tests/system/system.sh $$r $$s > build/system/$$r-$$s.tap; \
	done; done
	prove --exec cat build/system/*.tap

# dkms add/build/install for each kernel, in scratch trees (host untouched).
dkms-check:
	prove -e bash tests/pkg/dkms-build.sh

# The same with Debian unstable's dkms in its root (tests/vm/sid.sh) for
# its newest kernel and -rt, each built .ko then booted (t/10-load.sh).
dkms-check-sid:
	prove -e bash tests/pkg/dkms-sid.sh

# Benchmarks (bench/): numbers, tables and plots in bench/results/. Not part
# of `make check`; installs its own extras (bench/deps.sh).
bench:
	$(MAKE) -C bench all

# The demo boots the CPU that enforces split-lock detection (tests/qemu);
# `make demo DEMO_CPU=` boots stock QEMU instead (no #AC to show).
DEMO_CPU ?= enforcing
demo: deps vmbin
	VM_CPU=$(DEMO_CPU) bash tests/vm/vm.sh $(firstword $(KVERS)) demo

clean:
	rm -rf build
	$(MAKE) -C src clean KDIR=$(KDIR) 2>/dev/null || true

.PHONY: all module tools deps vmbin unit objdump-check fuzz-short fuzz \
	vm-check vm-check-sid cpu-check-sid vm-check-255 lint lint-build lint-sid check check-full check-stress demo clean dkms-check dkms-check-sid objdump-check-sid bench FORCE \
	cpu-check cpu-boots check-system

# A real host: install the source under /usr/src and let DKMS build and
# install it for the running kernel (and every future one: AUTOINSTALL).
DKMS_SRC := $(DESTDIR)/usr/src/sld-compat-$(VERSION)
dkms-src:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf
	cp -a src $(DKMS_SRC)/
	find $(DKMS_SRC)/src \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name conftest.h \) -delete

dkms-install: dkms-src
	dkms status -m sld-compat -v $(VERSION) | grep -q . || \
		dkms add -m sld-compat -v $(VERSION)
	dkms build -m sld-compat -v $(VERSION) -k $(KVER)
	dkms install -m sld-compat -v $(VERSION) -k $(KVER)

dkms-uninstall:
	dkms remove -m sld-compat -v $(VERSION) --all
	rm -rf /usr/src/sld-compat-$(VERSION)

# Everything the packages install, from a checkout, as root: the module
# through DKMS (for KVER, the running kernel unless given; AUTOINSTALL
# builds it for every later kernel) with its modules-load.d entry (loaded
# at boot), then sldctl, its man page and completion, the udev rule,
# modprobe.d, /etc/sld-compat with the examples and the metrics units
# (tools/sldctl's install; PREFIX /usr/local unless given). The metrics
# timer is enabled as the Debian package does (it starts only where
# node_exporter's directory exists); where sld_compat is loaded the
# configuration is applied again. tests/system/ (scenario source) runs it
# in a Debian root and boots that. `make uninstall` removes all of it,
# /etc/sld-compat included.
PREFIX ?= /usr/local
install: dkms-install tools
	install -D -m 0644 packaging/modules-load.d/sld-compat.conf \
		$(DESTDIR)/usr/lib/modules-load.d/sld-compat.conf
	$(MAKE) -C tools/sldctl install PREFIX=$(PREFIX)
	install -D -m 0644 packaging/sldctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/sldctl.8
	systemctl daemon-reload 2>/dev/null || :
	systemctl enable sld-compat-metrics.timer
	udevadm control --reload 2>/dev/null || :
	$(PREFIX)/libexec/sld-compat/reapply

uninstall:
	systemctl disable --now sld-compat-metrics.timer 2>/dev/null || :
	$(MAKE) -C tools/sldctl uninstall PREFIX=$(PREFIX)
	rm -f $(DESTDIR)$(PREFIX)/share/man/man8/sldctl.8 \
		$(DESTDIR)/usr/lib/modules-load.d/sld-compat.conf \
		/var/lib/prometheus/node-exporter/sld_compat.prom
	rm -rf /run/sld-compat
	systemctl daemon-reload 2>/dev/null || :
	udevadm control --reload 2>/dev/null || :
	! dkms status -m sld-compat -v $(VERSION) | grep -q . || \
		dkms remove -m sld-compat -v $(VERSION) --all
	rm -rf /usr/src/sld-compat-$(VERSION)

.PHONY: dkms-src dkms-install dkms-uninstall install uninstall

# --- Packages (packaging/): make deb, make rpm, make pkg-check ---------------
# Both build from a clean copy of the tree in build/pkg/src-tree (never in the
# repository root) and leave their results in build/pkg/.
PKG_DIR := build/pkg
PKG_TREE := $(PKG_DIR)/src-tree
PKG_TARBALL := $(PKG_DIR)/sld-compat-$(VERSION).tar.gz
PKG_FILES := dkms.conf src tools packaging udev README.md CHANGELOG.md COPYING docs

pkg-tree:
	rm -rf $(PKG_TREE)
	mkdir -p $(PKG_TREE)
	cp -a $(PKG_FILES) $(PKG_TREE)/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(PKG_TREE)/dkms.conf
	find $(PKG_TREE) \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name conftest.h \
		-o -name Module.symvers -o -name modules.order -o -name '*.o.d' \) -delete
	tar -C $(PKG_TREE) --sort=name --owner=0 --group=0 --numeric-owner \
		--transform 's,^\.,sld-compat-$(VERSION),' -czf $(PKG_TARBALL) .

deb: pkg-tree
	cp $(PKG_TARBALL) $(PKG_DIR)/sld-compat_$(VERSION).orig.tar.gz
	cp -a packaging/debian $(PKG_TREE)/debian
	sh packaging/build-deps.sh deb $(PKG_TREE)
	cd $(PKG_TREE) && dpkg-buildpackage -us -uc -j1
	@ls -1 $(PKG_DIR)/*.deb

rpm: pkg-tree
	sh packaging/build-deps.sh rpm
	mkdir -p $(PKG_DIR)/rpm/SOURCES
	cp $(PKG_TARBALL) $(PKG_DIR)/rpm/SOURCES/
	# --nodeps: on Debian the rpm database knows none of the dpkg-installed
	# build dependencies. No debuginfo: Debian's rpm lacks find-debuginfo.
	rpmbuild -bb --nodeps --define '_topdir $(abspath $(PKG_DIR)/rpm)' \
		--define '_smp_mflags -j1' --define 'debug_package %{nil}' \
		packaging/rpm/sld-compat.spec
	@find $(PKG_DIR)/rpm/RPMS -name '*.rpm'

pkg-check:
	bash tests/pkg/check.sh

# The .debs installed with apt in a fresh debootstrapped Debian 12 root:
# DKMS build for two kernels, MOK signing, the built .ko booted under QEMU,
# remove and purge (tests/pkg/lifecycle.sh; root only).
pkg-lifecycle: deps
	prove -v --timer -e bash tests/pkg/lifecycle.sh

.PHONY: pkg-tree deb rpm pkg-check pkg-lifecycle
