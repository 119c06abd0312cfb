#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# repo.sh: the signed apt repository of `make repo` (docs/releasing.md),
# from the .debs `make deb` left in build/pkg/, into build/repo/:
#   dists/stable/{InRelease,Release,Release.gpg}, dists/stable/main/
#   binary-amd64/Packages{,.xz}, source/Sources.xz, pool/ (reprepro);
#   sld-compat-archive-keyring.gpg, the public key(s) as a binary OpenPGP
#   keyring for Signed-By:, and sld-compat.sources, the deb822 stanza for
#   /etc/apt/sources.list.d.
# The keyring package sld-compat-archive-keyring (its own source,
# packaging/keyring/, as Debian's debian-archive-keyring) is built here,
# in build/repo-work/keyring/, with the same keyring and .sources file.
#
# The signing key comes from the environment:
#   SLD_REPO_GNUPGHOME  a GnuPG home holding the secret key, used in place
#   SLD_REPO_KEYFILE    or: an exported secret key, imported into a
#                       scratch home in build/repo-work/
#   SLD_REPO_KEY        the fingerprint to sign with (needed only where the
#                       home holds more than one secret key)
#   SLD_REPO_KEYRING_KEYS  the fingerprints the keyring ships (default: the
#                       signing key; during a key rotation the old and the
#                       new one)
# SLD_REPO_URL (default PROJECT_APT of packaging/project.mk) is the
# address the .sources stanza names; SLD_REPO_OUT and SLD_REPO_WORK put
# the repository and the work directory elsewhere than build/repo and
# build/repo-work (tests/system/: a copy served from a file: URI); a
# relative one is taken from the checkout's top.
# With none of these, a throwaway key is made in build/repo-work/ (kept
# for the next run) and the result is for testing only: said loudly.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/lib/pkgs.sh
ensure_pkgs "make repo" reprepro gnupg gpgv dpkg-dev debhelper

ver=$(cat src/VERSION)
pkg=build/pkg
out=$(realpath -m "${SLD_REPO_OUT:-build/repo}")
work=$(realpath -m "${SLD_REPO_WORK:-build/repo-work}")
name=sld-compat-archive-keyring
keyring=$out/$name.gpg
mkval() { sed -n "s/^$1 := //p" packaging/project.mk; }
apt_url=${SLD_REPO_URL:-$(mkval PROJECT_APT)}
debs=("$pkg/sld-compat-dkms_${ver}-1_all.deb" "$pkg/sld-compat-tools_${ver}-1_amd64.deb")
for f in "${debs[@]}" "$pkg/sld-compat_${ver}-1.dsc"; do
	[ -f "$f" ] || { echo "make repo: $f missing: run make deb first" >&2; exit 1; }
done

# Only what this script publishes goes: SLD_REPO_OUT may name a directory
# that holds other files.
rm -rf "$out/dists" "$out/pool" "$keyring" "$out/sld-compat.sources" \
	"$work/db" "$work/conf" "$work/keyring"
mkdir -p "$out" "$work/conf" "$work/keyring"

# --- The signing key --------------------------------------------------------
throwaway=
if [ -n "${SLD_REPO_GNUPGHOME:-}" ]; then
	GNUPGHOME=$(cd "$SLD_REPO_GNUPGHOME" && pwd)
elif [ -n "${SLD_REPO_KEYFILE:-}" ]; then
	GNUPGHOME=$work/gnupg-keyfile
	rm -rf "$GNUPGHOME"
	mkdir -m 0700 "$GNUPGHOME"
	gpg --homedir "$GNUPGHOME" --batch --quiet --import "$SLD_REPO_KEYFILE"
else
	throwaway=1
	GNUPGHOME=$work/gnupg-throwaway
	# Made again once expired (sec's validity no longer u, ultimate).
	if ! gpg --homedir "$GNUPGHOME" --batch --quiet --with-colons --list-secret-keys 2>/dev/null |
		grep -q '^sec:u:'; then
		rm -rf "$GNUPGHOME"
		mkdir -p "$work"
		mkdir -m 0700 "$GNUPGHOME"
		gpg --homedir "$GNUPGHOME" --batch --quiet --passphrase '' \
			--quick-gen-key "sld-compat THROWAWAY test archive key (not for release)" \
			ed25519 sign 1y 2>/dev/null
	fi
fi
export GNUPGHOME
if [ -n "${SLD_REPO_KEY:-}" ]; then
	fpr=$(gpg --batch --quiet --with-colons --list-secret-keys "$SLD_REPO_KEY" 2>/dev/null |
		awk -F: '$1 == "fpr" { print $10; exit }')
	[ -n "$fpr" ] || { echo "make repo: no secret key $SLD_REPO_KEY in $GNUPGHOME" >&2; exit 1; }
else
	fpr=$(gpg --batch --quiet --with-colons --list-secret-keys 2>/dev/null | awk -F: '
		$1 == "sec" { n++; want = 1; next }
		$1 == "fpr" && want { f = $10; want = 0 }
		END { if (n == 1) print f }')
	[ -n "$fpr" ] || { echo "make repo: $GNUPGHOME holds no or several secret keys: set SLD_REPO_KEY to the fingerprint to sign with" >&2; exit 1; }
fi

# --- The keyring and the .sources stanza --------------------------------------
read -ra ship <<< "${SLD_REPO_KEYRING_KEYS:-$fpr}"
gpg --batch --export --export-options export-minimal "${ship[@]}" > "$keyring"
shipped=$(gpg --batch --with-colons --show-keys "$keyring" 2>/dev/null |
	awk -F: '$1 == "pub" { p = 1; next } $1 == "fpr" && p { print $10; p = 0 }')
for k in "${ship[@]}"; do
	[ "$(gpg --batch --with-colons --list-keys "$k" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')" != "" ] ||
		{ echo "make repo: SLD_REPO_KEYRING_KEYS: no key $k in $GNUPGHOME" >&2; exit 1; }
done
# The signing key must be in what users trust, or apt refuses the result.
grep -qx "$fpr" <<< "$shipped" ||
	{ echo "make repo: SLD_REPO_KEYRING_KEYS leaves out the signing key $fpr" >&2; exit 1; }
cat > "$out/sld-compat.sources" <<EOF
Types: deb
URIs: $apt_url
Suites: stable
Components: main
Signed-By: /usr/share/keyrings/$name.gpg
EOF

# --- The keyring package ----------------------------------------------------
kver=$(dpkg-parsechangelog -l packaging/keyring/debian/changelog -S Version)
ksrc=$work/keyring/$name-$kver
mkdir -p "$ksrc"
cp -a packaging/keyring/debian "$ksrc/"
cp "$keyring" "$out/sld-compat.sources" "$ksrc/"
(cd "$ksrc" && dpkg-buildpackage -us -uc >../build.log 2>&1) ||
	{ tail -n 30 "$work/keyring/build.log" >&2; exit 1; }

# --- The repository (reprepro) ----------------------------------------------
cat > "$work/conf/distributions" <<EOF
Origin: sld-compat
Label: sld-compat
Suite: stable
Codename: stable
Architectures: amd64 source
Components: main
Description: sld-compat packages ($apt_url)
DebIndices: Packages Release . .gz .xz
DscIndices: Sources Release .gz .xz
SignWith: $fpr
EOF
rr() { reprepro --silent --basedir "$work" --outdir "$out" "$@"; }
rr includedeb stable "${debs[@]}" "$work/keyring/${name}_${kver}_all.deb"
# A .dsc has no Section or Priority: its debian/control's.
srcfield() { sed -n "1,/^\$/s/^$1: *//p" "$2"; }
for d in "$pkg/sld-compat_${ver}-1.dsc:packaging/debian/control" \
	"$work/keyring/${name}_${kver}.dsc:packaging/keyring/debian/control"; do
	rr -S "$(srcfield Section "${d#*:}")" -P "$(srcfield Priority "${d#*:}")" \
		includedsc stable "${d%%:*}"
done
# The agent of a home made here ends with the run; the caller's keeps going.
[ -n "${SLD_REPO_GNUPGHOME:-}" ] || gpgconf --kill gpg-agent 2>/dev/null || :

echo "make repo: $out signed with $fpr; keyring package $name $kver"
if [ -n "$throwaway" ]; then
	cat >&2 <<EOF

  ************************************************************************
  *  make repo: NO SIGNING KEY GIVEN (SLD_REPO_GNUPGHOME, SLD_REPO_KEYFILE)
  *  $out is signed with a THROWAWAY key made in $work/gnupg-throwaway/:
  *  FOR TESTING ONLY, never publish it (docs/releasing.md).
  ************************************************************************
EOF
fi
