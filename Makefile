# SPDX-License-Identifier: GPL-2.0
# sld-compat. The two commands a newcomer needs:
#   make demo    boot a VM with the module and show it at work
#   make check   every test: unit, decoder vs objdump, fuzz (short), VMs
# Both install what they need on Debian 12 (as root) via tests/vm/deps.sh.
# Packages: make deb, make rpm, and make repo, the signed apt repository
# in build/repo/ (docs/releasing.md: the signing key, publishing it).
# This file builds, installs and packages; tests/Makefile has the tests.
# The version: written only in src/VERSION (see src/Kbuild).
VERSION := $(shell cat src/VERSION)
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

all: module

module:
	$(MAKE) -C src KVER=$(KVER) KDIR=$(KDIR)

tools:
	$(MAKE) -C tools/sldctl

# Every test target (docs/testing.md), run by tests/Makefile from here.
TESTS := check check-full check-stress check-system demo deps vmbin lint \
	lint-build lint-sid unit fuzz fuzz-short objdump-check objdump-check-sid \
	vm-check vm-check-sid vm-check-255 cpu-check cpu-check-sid cpu-boots \
	dkms-check dkms-check-sid pkg-check pkg-lifecycle pkg-qa
$(TESTS):
	@$(MAKE) -f tests/Makefile $@

# Benchmarks (bench/): numbers, tables and plots in bench/results/. Not part
# of `make check`; installs its own extras (bench/deps.sh).
bench:
	$(MAKE) -C bench all

clean:
	rm -rf build
	$(MAKE) -C src clean KDIR=$(KDIR) 2>/dev/null || true

.PHONY: all module tools bench clean $(TESTS)

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

# --- Packages (packaging/): make deb, rpm, repo (tests: make pkg-check) ------
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

# The signed apt repository (packaging/repo.sh, reprepro) in build/repo/:
# dists/stable, pool/, the public key as sld-compat-archive-keyring.gpg
# and sld-compat.sources for /etc/apt/sources.list.d; it holds make deb's
# packages and sld-compat-archive-keyring, built from packaging/keyring/
# with that key. The signing key: SLD_REPO_GNUPGHOME or SLD_REPO_KEYFILE
# (SLD_REPO_KEY, SLD_REPO_KEYRING_KEYS); without one a throwaway key in
# build/repo-work/, for testing only (docs/releasing.md).
repo: deb
	bash packaging/repo.sh

.PHONY: pkg-tree deb rpm repo
