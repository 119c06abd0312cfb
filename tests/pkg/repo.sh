#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Repository check (issue #42), run by `make pkg-check` after check.sh: the
# signed apt repository of `make repo` and its keyring package.
#  - packaging/repo.sh (make repo without its `make deb`: check.sh built
#    the .debs) with a throwaway key: it says so, and writes dists/stable/
#    {InRelease,Release,Release.gpg}, main/binary-amd64/Packages{,.xz},
#    pool/, the binary keyring and the deb822 .sources stanza;
#  - gpgv with that keyring verifies InRelease and Release.gpg, and
#    refuses a changed Release;
#  - Packages lists both packages and the keyring package; .sources has
#    project.mk's address, Suites, Components and Signed-By;
#  - apt-get update (a scratch apt state, never the host's) accepts the
#    repository as a file: URI, refuses it with another key, and refuses
#    a changed Packages file (its .xz and .gz made again from it);
#  - lintian on the keyring package; its contents;
#  - reproducible: the source packages rebuilt in another directory with
#    the same SOURCE_DATE_EPOCH give byte-identical .debs (cmp).
#    SLD_REPRO_EPOCH sets the second build's (another value: the check
#    fails, as it should).
# Installs nothing on the host. TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
ver=$(cat src/VERSION)
pkg=build/pkg
repo=build/repo
kr=$repo/sld-compat-archive-keyring.gpg
kname=sld-compat-archive-keyring
kdir=build/repo-work/keyring
rel=$repo/dists/stable
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/pkgs.sh"
[ "$(id -u)" != 0 ] || ensure_pkgs "repo check" reprepro gnupg gpgv lintian dpkg-dev xz-utils
. "$top/tests/lib/tap.sh"
TAP_DIAG_LINES=20
s0=$SECONDS

[ -f "$pkg/sld-compat-tools_${ver}-1_amd64.deb" ] || run "make deb (check.sh did not)" make -s deb
run "make repo (packaging/repo.sh, no key given)" env -u SLD_REPO_GNUPGHOME -u SLD_REPO_KEYFILE \
	-u SLD_REPO_KEY -u SLD_REPO_KEYRING_KEYS bash packaging/repo.sh
like "$TAP_OUTPUT" 'FOR TESTING ONLY' "make repo: says loudly the throwaway key's repository is for testing"
for f in "$rel/InRelease" "$rel/Release" "$rel/Release.gpg" "$rel/main/binary-amd64/Packages" \
	"$rel/main/binary-amd64/Packages.xz" "$rel/main/source/Sources.xz" "$kr" \
	"$repo/sld-compat.sources"; do
	run "make repo: ${f#"$repo"/}" test -s "$f"
done
run "make repo: pool/ holds the three .debs" sh -c \
	"test \$(find $repo/pool -name '*.deb' | wc -l) = 3"
run "make repo: no reprepro state (conf, db) in what is published" \
	sh -c "! ls -d $repo/conf $repo/db 2>/dev/null | grep -q ."

# --- Signatures ---------------------------------------------------------------
run "the keyring is a binary OpenPGP keyring (not armored) with one key" sh -c \
	"! grep -q -- '-----BEGIN' $kr && test \$(gpg --batch --with-colons --show-keys $kr | grep -c '^pub:') = 1"
run "gpgv --keyring (the keyring) InRelease" gpgv --keyring "$top/$kr" "$rel/InRelease"
run "gpgv --keyring (the keyring) Release.gpg Release" gpgv --keyring "$top/$kr" "$rel/Release.gpg" "$rel/Release"
sed 's/^Origin: .*/Origin: someone-else/' "$rel/Release" > "$tmp/Release"
run "gpgv refuses a changed Release" sh -c "! gpgv --keyring $top/$kr $rel/Release.gpg $tmp/Release"

# --- Indices, .sources ----------------------------------------------------------
P=$rel/main/binary-amd64/Packages
for p in sld-compat-dkms sld-compat-tools "$kname"; do
	run "Packages: $p" grep -qx "Package: $p" "$P"
done
run "Packages.xz is Packages" cmp "$P" <(xz -dc "$P.xz")
run "Sources: sld-compat and $kname" sh -c \
	"xz -dc $rel/main/source/Sources.xz | grep -qx 'Package: sld-compat' && \
	 xz -dc $rel/main/source/Sources.xz | grep -qx 'Package: $kname'"
run "Release: Suite stable, Components main, Architectures amd64" sh -c \
	"grep -qx 'Suite: stable' $rel/Release && grep -qx 'Components: main' $rel/Release && \
	 grep -qx 'Architectures: amd64' $rel/Release"
apt_url=$(sed -n 's/^PROJECT_APT := //p' packaging/project.mk)
is "$(cat "$repo/sld-compat.sources")" "Types: deb
URIs: $apt_url
Suites: stable
Components: main
Signed-By: /usr/share/keyrings/$kname.gpg" "sld-compat.sources: project.mk's PROJECT_APT, stable, main, Signed-By the keyring"

# --- apt itself, in a scratch state ---------------------------------------------
# apt_in STATE CMD ARG...: apt-get or apt-cache with the sources, lists and
# cache of STATE (a directory of $tmp), never the host's.
apt_in() {
	local a=$tmp/$1 c=$2
	shift 2
	"$c" -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts="$a/parts" \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User="$(id -un)" -o Acquire::Languages=none "$@"
}
# apt_update STATE DIR KEYRING: apt-get update against file:DIR trusting
# KEYRING alone; passes if apt says no W:, E: or Err:.
apt_update() {
	local a=$tmp/$1 out rc
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/parts"
	: > "$a/sources.list"
	printf 'Types: deb\nURIs: file:%s\nSuites: stable\nComponents: main\nSigned-By: %s\n' \
		"$2" "$3" > "$a/parts/t.sources"
	out=$(apt_in "$1" apt-get update 2>&1)
	rc=$?
	echo "$out"
	[ $rc = 0 ] && ! grep -qE '^(W|E|Err):' <<<"$out"
}
refuses() { ! "$@"; }
cp -a "$repo" "$tmp/good"
run "apt-get update: the repository, Signed-By its keyring" apt_update s1 "$tmp/good" "$top/$kr"
run "apt-cache policy: sld-compat-dkms $ver-1 from it" \
	grep -q "Candidate: $ver-1" <(apt_in s1 apt-cache policy sld-compat-dkms 2>&1)
run "apt-get update: refused with another key (Debian's)" \
	refuses apt_update s2 "$tmp/good" /usr/share/keyrings/debian-archive-keyring.gpg
cp -a "$repo" "$tmp/bad"
bp=$tmp/bad/dists/stable/main/binary-amd64/Packages
sed -i 's/^Version: .*/Version: 99:0-1/' "$bp"
rm -f "$bp.xz" "$bp.gz"
xz -k "$bp" && gzip -kn "$bp"
apt_update s3 "$tmp/bad" "$top/$kr" > "$tmp/bad.out" 2>&1
rc=$?
run "apt-get update: refuses a changed Packages (and its .xz, .gz made from it)" sh -c \
	"cat $tmp/bad.out; [ $rc != 0 ] && grep -qiE 'Hash Sum mismatch|unexpected size' $tmp/bad.out"

# --- The keyring package ----------------------------------------------------------
kver=$(dpkg-parsechangelog -l packaging/keyring/debian/changelog -S Version)
kdeb=$kdir/${kname}_${kver}_all.deb
lintian --tag-display-limit 0 "$kdir/${kname}_${kver}_amd64.changes" >"$tmp/lintian" 2>&1
rc=$?
run "lintian $kname: ran, no errors or warnings" sh -c \
	"cat $tmp/lintian; [ $rc -le 1 ] && ! grep -qE '^[EW]: ' $tmp/lintian"
dpkg-deb -c "$kdeb" 2>/dev/null | awk '{print $1 " " $NF}' | sed 's, \./, ,' > "$tmp/k.list"
run "$kname: usr/share/keyrings/$kname.gpg" grep -qx -- "-rw-r--r-- usr/share/keyrings/$kname.gpg" "$tmp/k.list"
run "$kname: etc/apt/sources.list.d/sld-compat.sources, a conffile" sh -c \
	"grep -qx -- '-rw-r--r-- etc/apt/sources.list.d/sld-compat.sources' $tmp/k.list && \
	 dpkg-deb --ctrl-tarfile $kdeb | tar -xOf - ./conffiles | grep -qx /etc/apt/sources.list.d/sld-compat.sources"
run "$kname: Architecture all" sh -c "test \"\$(dpkg-deb -f $kdeb Architecture)\" = all"
dpkg-deb -x "$kdeb" "$tmp/k.root"
run "$kname: ships the repository's keyring and .sources" sh -c \
	"cmp $kr $tmp/k.root/usr/share/keyrings/$kname.gpg && \
	 cmp $repo/sld-compat.sources $tmp/k.root/etc/apt/sources.list.d/sld-compat.sources"

# --- Reproducible .debs ------------------------------------------------------------
# The source packages make deb and make repo made, unpacked and built again
# in another directory with the same SOURCE_DATE_EPOCH (the changelog's,
# which dpkg-buildpackage gave the first build).
s1=$SECONDS
epoch=${SLD_REPRO_EPOCH:-${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l packaging/debian/changelog -S Timestamp)}}
kepoch=${SLD_REPRO_EPOCH:-${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l packaging/keyring/debian/changelog -S Timestamp)}}
rebuild() {	# rebuild DSC DIR EPOCH
	dpkg-source -x "$1" "$2" >/dev/null || return 1
	if ! (cd "$2" && SOURCE_DATE_EPOCH=$3 dpkg-buildpackage -b -us -uc -j1 >../build.log 2>&1); then
		tail -n 20 "$(dirname "$2")/build.log"
		return 1
	fi
}
mkdir -p "$tmp/rb/main" "$tmp/rb/keyring"
run "rebuilt sld-compat in $tmp/rb/main (SOURCE_DATE_EPOCH=$epoch)" \
	rebuild "$pkg/sld-compat_${ver}-1.dsc" "$tmp/rb/main/sld-compat-$ver" "$epoch"
run "rebuilt $kname in $tmp/rb/keyring (SOURCE_DATE_EPOCH=$kepoch)" \
	rebuild "$kdir/${kname}_${kver}.dsc" "$tmp/rb/keyring/$kname-$kver" "$kepoch"
for d in "$pkg/sld-compat-dkms_${ver}-1_all.deb" "$pkg/sld-compat-tools_${ver}-1_amd64.deb"; do
	run "reproducible: $(basename "$d") byte-identical" cmp "$d" "$tmp/rb/main/$(basename "$d")"
done
run "reproducible: $(basename "$kdeb") byte-identical" cmp "$kdeb" "$tmp/rb/keyring/$(basename "$kdeb")"
run "reproducible: the pool's .debs are the ones built" sh -c \
	"cmp $pkg/sld-compat-tools_${ver}-1_amd64.deb \$(find $repo/pool -name 'sld-compat-tools_*.deb') && \
	 cmp $kdeb \$(find $repo/pool -name '${kname}_*.deb')"
echo "# repo check: $((SECONDS - s0)) s, of which the rebuilds $((SECONDS - s1)) s"
tap_done
