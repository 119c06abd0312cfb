#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The version is written once, in src/VERSION (in src/ because DKMS and
# the per-kernel builds get only that directory). Whatever is built takes
# it from there: the module (src/Kbuild), sldctl (tools/sldctl/Makefile),
# dkms.conf and the package trees (the Makefile). What a release must
# carry written out is checked against it here: the newest entries of
# debian/changelog and of the rpm spec's %changelog, the spec's Version
# and the man page's header. And CHANGELOG.md has one "Unreleased"
# section, at the top, the others named by a version; whether the
# version is released, the three changelogs say alike. Part of
# `make lint`; TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/lib/tap.sh

ver=$(cat src/VERSION)
is "$(wc -l < src/VERSION)" 1 "src/VERSION is one line"
like "$ver" '^[0-9]+\.[0-9]+\.[0-9]+$' "src/VERSION is X.Y.Z ($ver)"
is "$(sed -n '1s/^sld-compat (\(.*\)-[^-]*).*/\1/p' packaging/debian/changelog)" \
	"$ver" "debian/changelog: the newest entry is $ver"
spec=packaging/rpm/sld-compat.spec
is "$(sed -n 's/^Version:[[:space:]]*//p' $spec)" "$ver" "rpm spec: Version is $ver"
is "$(sed -n '/^%changelog/,$s/^\* .* - \(.*\)-[^-]*$/\1/p' $spec | head -n1)" \
	"$ver" "rpm spec: the newest %changelog entry is $ver"
is "$(sed -n 's/^\.TH SLDCTL 8 "[^"]*" "sld-compat \([^"]*\)".*/\1/p' packaging/sldctl.8)" \
	"$ver" "sldctl.8: .TH names sld-compat $ver"
run "dkms.conf: PACKAGE_VERSION is filled in from src/VERSION" \
	grep -qx 'PACKAGE_VERSION="#MODULE_VERSION#"' dkms.conf
fails "no C file defines SLD_COMPAT_VERSION (src/Kbuild and tools/sldctl/Makefile pass it)" \
	grep -rnE --include='*.[ch]' '#[[:space:]]*define[[:space:]]+SLD_COMPAT_VERSION[[:space:]]' src tools
heads=$(grep '^## ' CHANGELOG.md)
is "$(printf '%s\n' "$heads" | head -n1)" "## Unreleased" "CHANGELOG.md: Unreleased comes first"
is "$(printf '%s\n' "$heads" | grep -ci 'unreleased')" 1 "CHANGELOG.md: one Unreleased section"
is "$(printf '%s\n' "$heads" | sed 1d | grep -cvE '^## [0-9]+\.[0-9]+\.[0-9]+ \([0-9]{4}-[0-9]{2}-[0-9]{2}\)$')" 0 \
	"CHANGELOG.md: every other section is '## X.Y.Z (YYYY-MM-DD)'"
# Released or not, the three changelogs agree: CHANGELOG.md has a
# "## X.Y.Z (DATE)" section for the version exactly when debian/changelog's
# newest entry names a distribution (not UNRELEASED) and the spec's newest
# %changelog entry does not begin "Not released yet".
if grep -q "^## $ver (" CHANGELOG.md; then rel=released; else rel=unreleased; fi
dist=$(sed -n '1s/^[^)]*) \([^;]*\);.*/\1/p' packaging/debian/changelog)
if [ "$dist" = UNRELEASED ]; then drel=unreleased; else drel=released; fi
if sed -n '/^%changelog/,$p' $spec | sed -n '/^\* /{n;p;q}' | grep -q '^- Not released yet'; then
	srel=unreleased
else
	srel=released
fi
is "$drel" "$rel" "debian/changelog ($dist) agrees with CHANGELOG.md: $ver is $rel"
is "$srel" "$rel" "rpm spec's %changelog agrees with CHANGELOG.md: $ver is $rel"
tap_done
