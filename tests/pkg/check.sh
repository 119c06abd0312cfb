#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Package check: builds the .debs (make deb) and the .rpms (make rpm), lints
# them and checks their contents and scripts. Installs nothing on the host:
# the .rpms go into a scratch --root, the .debs are only listed/extracted.
# Needs the build deps of packaging/debian/control plus lintian, rpm, rpmlint.
# TAP on stdout; exit status 1 if any test failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
ver=$(cat src/VERSION)
pkg=build/pkg
ddeb="$pkg/sld-compat-dkms_${ver}-1_all.deb"
tdeb="$pkg/sld-compat-tools_${ver}-1_amd64.deb"
drpm="$pkg/rpm/RPMS/noarch/dkms-sld-compat-${ver}-1.noarch.rpm"
trpm="$pkg/rpm/RPMS/x86_64/sld-compat-tools-${ver}-1.x86_64.rpm"
usrsrc=usr/src/sld-compat-$ver
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Build dependencies: on a fresh Debian 12 CI runner (root), install what is
# missing, as tests/vm/deps.sh does for the VM suite.
# reprepro, gnupg, gpgv, xz-utils: the repository check after this one
# (tests/pkg/repo.sh, make repo).
deps="build-essential debhelper dh-dkms dkms fakeroot lintian libelf-dev liblzma-dev
	libzstd-dev pkg-config rpm rpmlint reprepro gnupg gpgv xz-utils"
. "$top/tests/lib/pkgs.sh"
# shellcheck disable=SC2086
[ "$(id -u)" != 0 ] || ensure_pkgs "pkg check" $deps
. "$top/tests/lib/tap.sh"
TAP_DIAG_LINES=20
has() { grep -qxF -- "$1" "$2"; }			# has LINE FILE
hasnt() { ! grep -qE -- "$1" "$2"; }			# hasnt REGEX FILE
# lint_clean FILE RC: lintian ran (its exit status RC: 0, or 1 for tags at
# its fail-on level; 2 is its own error, 127 not installed, 128+ killed)
# and FILE, its output, has no E:/W:/P: tag (issue #42 item 5: what is
# left is overridden, with a reason: overrides_justified).
lint_clean() {
	cat "$1"
	[ "$2" -le 1 ] || { echo "lintian did not run to its end: exit status $2"; return 1; }
	! grep -qE '^[EWP]: ' "$1"
}

# overrides_justified FILE...: each override line comes right after a
# comment that says why (or after another override under that comment).
overrides_justified() {
	awk 'FNR == 1 { why = 0 } /^#/ { why = 1; next } /^[[:space:]]*$/ { why = 0; next }
		!why { print FILENAME ": no reason above: " $0; bad = 1 }
		END { exit bad }' "$@"
}

# --- Debian ---------------------------------------------------------------
run "make deb" make -s deb
lintian --pedantic --display-info --tag-display-limit 0 \
	"$pkg/sld-compat_${ver}-1_amd64.changes" >"$tmp/lintian" 2>&1
run "lintian --pedantic: ran, no errors, warnings or pedantic tags" lint_clean "$tmp/lintian" $?
run "lintian overrides: each with its reason" overrides_justified \
	packaging/debian/*.lintian-overrides packaging/debian/source/lintian-overrides
dpkg-deb -c "$ddeb" 2>/dev/null | awk '{print $1 " " $NF}' | sed 's, \./, ,' >"$tmp/dkms.list"
run "dkms deb: dkms.conf" has "-rw-r--r-- $usrsrc/dkms.conf" "$tmp/dkms.list"
run "dkms deb: src/Makefile" has "-rw-r--r-- $usrsrc/src/Makefile" "$tmp/dkms.list"
run "dkms deb: src/compat/conftest.sh, executable" \
	has "-rwxr-xr-x $usrsrc/src/compat/conftest.sh" "$tmp/dkms.list"
# The vendor API header, and its earlier name that includes it.
for h in sld_compat_api.h sld_compat.h; do
	run "dkms deb: src/include/$h" has "-rw-r--r-- $usrsrc/src/include/$h" "$tmp/dkms.list"
done
run "dkms deb: no build products" hasnt \
	'\.(o|ko|ko\.xz|mod|mod\.c|cmd)$|/(conftest\.h|Module\.symvers|modules\.order)$' "$tmp/dkms.list"
run "dkms deb: dkms.conf builds for x86_64 only (BUILD_EXCLUSIVE_ARCH)" sh -c \
	"dpkg-deb --fsys-tarfile $ddeb | tar -xOf - ./$usrsrc/dkms.conf | grep -qx 'BUILD_EXCLUSIVE_ARCH=\"x86_64\"'"
run "dkms deb: the boot-time modules-load.d entry" \
	has "-rw-r--r-- usr/lib/modules-load.d/sld-compat.conf" "$tmp/dkms.list"
run "dkms deb: Depends dkms" sh -c "dpkg-deb -f $ddeb Depends | grep -qw dkms"
run "dkms deb: Depends/Recommends sld-compat-tools" \
	sh -c "dpkg-deb -f $ddeb Depends Recommends | grep -qw sld-compat-tools"
run "dkms deb: Architecture all" sh -c "test \"\$(dpkg-deb -f $ddeb Architecture)\" = all"
dpkg-deb -e "$ddeb" "$tmp/dkms.ctrl" 2>/dev/null
run "dkms deb: postinst registers with DKMS (dh_dkms)" sh -c \
	"grep -qx 'DKMS_NAME=sld-compat' $tmp/dkms.ctrl/postinst && \
	 grep -qx 'DKMS_VERSION=$ver' $tmp/dkms.ctrl/postinst && \
	 grep -q '/usr/lib/dkms/common.postinst' $tmp/dkms.ctrl/postinst"
run "dkms deb: prerm removes from DKMS" sh -c \
	"grep -qx 'DKMS_NAME=sld-compat' $tmp/dkms.ctrl/prerm && \
	 grep -q 'dkms remove -m \\\$DKMS_NAME -v \\\$DKMS_VERSION --all' $tmp/dkms.ctrl/prerm"
dpkg-deb -c "$tdeb" 2>/dev/null | awk '{print $1 " " $NF}' | sed 's, \./, ,' >"$tmp/tools.list"
run "tools deb: usr/sbin/sldctl" has "-rwxr-xr-x usr/sbin/sldctl" "$tmp/tools.list"
run "tools deb: man page" has "-rw-r--r-- usr/share/man/man8/sldctl.8.gz" "$tmp/tools.list"
run "tools deb: bash completion" has "-rw-r--r-- usr/share/bash-completion/completions/sldctl" "$tmp/tools.list"
run "tools deb: udev rule" has "-rw-r--r-- usr/lib/udev/rules.d/90-sld-compat.rules" "$tmp/tools.list"
run "tools deb: no modules-load.d entry (it goes with the module)" \
	hasnt 'modules-load\.d' "$tmp/tools.list"
run "tools deb: libexec/sld-compat/reapply, executable" \
	has "-rwxr-xr-x usr/libexec/sld-compat/reapply" "$tmp/tools.list"
run "tools deb: metrics service" has "-rw-r--r-- usr/lib/systemd/system/sld-compat-metrics.service" "$tmp/tools.list"
run "tools deb: metrics timer" has "-rw-r--r-- usr/lib/systemd/system/sld-compat-metrics.timer" "$tmp/tools.list"
dpkg-deb -e "$tdeb" "$tmp/tools.ctrl" 2>/dev/null
run "tools deb: postinst enables the metrics timer (dh_installsystemd)" \
	grep -q "sld-compat-metrics.timer" "$tmp/tools.ctrl/postinst"
run "tools deb: postinst runs reapply after dh's snippets" \
	sh -c "sed -n '/dh_installsystemd/,\$p' $tmp/tools.ctrl/postinst | grep -qx '	/usr/libexec/sld-compat/reapply'"
dpkg-deb -x "$tdeb" "$tmp/tools.root" 2>/dev/null
run "tools deb: the metrics timer starts only where node_exporter's directory is" \
	grep -qx 'ConditionPathIsDirectory=/var/lib/prometheus/node-exporter' \
	"$tmp/tools.root/usr/lib/systemd/system/sld-compat-metrics.timer"
run "tools deb: extracted sldctl --version" \
	sh -c "$tmp/tools.root/usr/sbin/sldctl --version | grep -qx 'sldctl $ver'"

# --- RPM ------------------------------------------------------------------
# Where dpkg-query is missing (not Debian), make rpm's build-deps.sh says
# what to do instead of trying apt-get: a PATH with only what it needs.
mkdir -p "$tmp/nodpkg"
for c in sh dirname id; do ln -s "$(command -v $c)" "$tmp/nodpkg/$c"; done
PATH=$tmp/nodpkg sh packaging/build-deps.sh rpm >"$tmp/nodpkg.out" 2>&1
is "$?" 1 "build-deps.sh rpm without dpkg-query: exit 1"
run "build-deps.sh rpm without dpkg-query: says Debian only, and what to do" \
	grep -q "on Debian only (apt); here install the spec's BuildRequires and run rpmbuild" "$tmp/nodpkg.out"
run "make rpm" make -s rpm
rpmlint -c packaging/rpm/rpmlint.toml "$drpm" "$trpm" packaging/rpm/sld-compat.spec >"$tmp/rpmlint" 2>&1
run "rpmlint: no errors" sh -c "cat $tmp/rpmlint; grep -q ' 0 errors,' $tmp/rpmlint"
echo "# rpmlint: $(grep -c ': W: ' "$tmp/rpmlint") warnings"
rpm -qlp "$drpm" >"$tmp/drpm.list" 2>/dev/null
run "dkms rpm: dkms.conf" has "/$usrsrc/dkms.conf" "$tmp/drpm.list"
run "dkms rpm: src/Makefile" has "/$usrsrc/src/Makefile" "$tmp/drpm.list"
run "dkms rpm: src/compat/conftest.sh" has "/$usrsrc/src/compat/conftest.sh" "$tmp/drpm.list"
for h in sld_compat_api.h sld_compat.h; do
	run "dkms rpm: src/include/$h" has "/$usrsrc/src/include/$h" "$tmp/drpm.list"
done
run "dkms rpm: no build products" hasnt \
	'\.(o|ko|ko\.xz|mod|mod\.c|cmd)$|/(conftest\.h|Module\.symvers|modules\.order)$' "$tmp/drpm.list"
run "dkms rpm: noarch, Requires dkms" sh -c \
	"rpm -qp --qf '%{ARCH}\n' $drpm | grep -qx noarch && rpm -qpR $drpm | grep -qx dkms"
rpm -qp --scripts "$drpm" >"$tmp/drpm.scripts" 2>/dev/null
run "dkms rpm: %post dkms add --rpm_safe_upgrade" \
	grep -qE 'dkms add -m sld-compat .*--rpm_safe_upgrade' "$tmp/drpm.scripts"
run "dkms rpm: %post dkms build, install" \
	sh -c "grep -q 'dkms build -m sld-compat' $tmp/drpm.scripts && grep -q 'dkms install -m sld-compat' $tmp/drpm.scripts"
run "dkms rpm: %post shows a failed build (exit status, make.log), no '|| :'" sh -c \
	"grep -q 'failed (exit \\\$rc)' $tmp/drpm.scripts && \
	 grep -q '/var/lib/dkms/sld-compat/$ver/build/make.log' $tmp/drpm.scripts && \
	 ! grep -qE 'dkms (build|install) .*\\|\\| :' $tmp/drpm.scripts"
run "dkms rpm: the boot-time modules-load.d entry" \
	has /usr/lib/modules-load.d/sld-compat.conf <(rpm -qlp "$drpm" 2>/dev/null)
run "dkms rpm: %preun dkms remove" sh -c \
	"sed -n '/^preuninstall/,\$p' $tmp/drpm.scripts | grep -q 'dkms remove -m sld-compat'"
run "tools rpm: /usr/sbin/sldctl" has /usr/sbin/sldctl <(rpm -qlp "$trpm" 2>/dev/null)
run "tools rpm: metrics timer" has /usr/lib/systemd/system/sld-compat-metrics.timer <(rpm -qlp "$trpm" 2>/dev/null)
run "tools rpm: no modules-load.d entry" sh -c \
	"! rpm -qlp $trpm 2>/dev/null | grep -q modules-load"
rpm -qp --scripts "$trpm" >"$tmp/trpm.scripts" 2>/dev/null
run "tools rpm: %post presets the timer, then reapply" sh -c \
	"cat $tmp/trpm.scripts; sed -n '/^postinstall/,/^preuninstall/p' $tmp/trpm.scripts | grep -q 'preset sld-compat-metrics.timer' && \
	 grep -q '/usr/libexec/sld-compat/reapply' $tmp/trpm.scripts"
run "tools rpm: %preun disables the timer, %postun restarts it" sh -c \
	"sed -n '/^preuninstall/,/^postuninstall/p' $tmp/trpm.scripts | grep -q 'disable --now sld-compat-metrics.timer' && \
	 sed -n '/^postuninstall/,\$p' $tmp/trpm.scripts | grep -q 'try-restart sld-compat-metrics.timer'"
run "tools rpm: bash completion" has /usr/share/bash-completion/completions/sldctl <(rpm -qlp "$trpm" 2>/dev/null)
run "bash completion: bash -n" bash -n tools/sldctl/sldctl.bash-completion
# udevadm verify exists from systemd 253; Debian 12 has udev 252.
if udevadm verify --help >/dev/null 2>&1; then
	run "udev rule: udevadm verify" udevadm verify --no-style udev/90-sld-compat.rules
else
	echo "# udevadm $(udevadm --version 2>/dev/null) has no 'verify' (systemd 253+); the rule is tested by a real udevd in tests/vm/t/55-udev.sh"
fi
# Scratch root only. --noscripts: the scriptlets (checked above) would run
# dkms, and the scratch root has no shell or dkms anyway.
root="$tmp/rpmroot"
run "rpm -i both into a scratch root" \
	rpm --root "$root" --dbpath /var/lib/rpm --nodeps --noscripts -i "$drpm" "$trpm"
run "scratch root: files and rpm database" sh -c \
	"test -f $root/$usrsrc/dkms.conf && test -x $root/usr/sbin/sldctl && \
	 rpm --root $root --dbpath /var/lib/rpm -q dkms-sld-compat sld-compat-tools"
run "rpm -e both from the scratch root" \
	rpm --root "$root" --dbpath /var/lib/rpm --nodeps --noscripts -e dkms-sld-compat sld-compat-tools

tap_done
